import { auditSteps, type AuditActor } from '#shared/audit';
import type { AppContext } from '#shared/context';
import type { TransactStep } from '#db/transact';

/**
 * The catalog's audit entries (issue 18; shared/audit.ts writes them): one helper for the
 * creation entry and one for the changes after it, for items that live in an environment.
 * `shown` is what the entity's own read answers (internal fields left out), so an entry never
 * shows a field the reader could not read on the entity.
 */
export interface EnvItem {
  id: string;
  project_id: string;
  environment_id: string;
  audit_head?: string | null;
}

const target = (kind: string, verb: string, item: EnvItem, importId?: string | null) => ({
  action: `${kind}.${verb}`, entity_type: kind, entity_id: item.id, project_id: item.project_id, environment_id: item.environment_id, import_id: importId ?? null,
});

/** A creation's entry: kept for good. */
export const creationAudit = (ctx: AppContext, kind: string, item: EnvItem, shown: Record<string, unknown>, opts: { importId?: string | null; actor?: AuditActor } = {}): TransactStep[] =>
  auditSteps(ctx, { ...target(kind, 'create', item, opts.importId), after: shown }, { mode: 'creation' }, { actor: opts.actor }).steps;

/**
 * An update's or deletion's entry: it becomes the item's latest (kept while it is), the previous
 * latest starts expiring; `head` is what the item's write stores as `audit_head`.
 */
export function changeAudit(
  ctx: AppContext,
  kind: string,
  verb: string,
  item: EnvItem,
  shown: { before: Record<string, unknown> | null; after: Record<string, unknown> | null },
  days: number | null,
  opts: { actor?: AuditActor; summary?: Record<string, unknown> } = {},
): { steps: TransactStep[]; head: string } {
  const { steps, sk } = auditSteps(ctx, { ...target(kind, verb, item), ...shown, summary: opts.summary }, { mode: 'latest', days, previous: item.audit_head }, { actor: opts.actor });
  return { steps, head: sk };
}
