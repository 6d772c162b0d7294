import type { AppContext } from '#shared/context';
import { auditStep, changeAudit } from '#shared/audit';
import type { TransactStep } from '#db/transact';
import type { ArchivableKind } from './selection.ts';
import type { Target } from './archive-targets.ts';

/**
 * Archive and restore are changes of the resource, each with its entry in the unit's transaction:
 * the caller, or the service at a downgrade deadline's enforcement. API keys are the account's, not a
 * project's: their archive and restore are entries of the account's own log (`apiKeyAudit`).
 */
const AUDITED_AS: Record<ArchivableKind, string | null> = {
  services: 'service',
  service_floors: 'floor',
  environments: 'environment',
  project_users: 'project_user',
  api_keys: 'api_key',
};
export interface AuditRun {
  ctx: AppContext;
  days: number | null;
}

export function lifecycleAudit(
  run: AuditRun,
  t: Target,
  verb: 'archive' | 'restore',
  now: string,
): { steps: TransactStep[]; head?: string } {
  const archivedAt = (t.item.archived_at as string | null | undefined) ?? null;
  if (t.kind === 'api_keys') return { steps: apiKeyAudit(run.ctx, t, verb, archivedAt, now) };
  const kind = AUDITED_AS[t.kind];
  if (!kind || !t.project) return { steps: [] };
  const entity = {
    id: t.id,
    project_id: t.project.id,
    environment_id: t.kind === 'environments' ? t.id : (t.env?.id ?? null),
    audit_head: t.item.audit_head as string | undefined,
  };
  return changeAudit(
    run.ctx,
    kind,
    verb,
    entity,
    { before: { archived_at: archivedAt }, after: { archived_at: verb === 'archive' ? now : null } },
    run.days,
  );
}

/**
 * An API key's archive or restore: an account-level entry in its account's own log, like the key's
 * creation and revocation (kept: account-level entries are few), by the caller or, at a downgrade
 * deadline, the service. The key's value and hash never enter it (only its set and name).
 */
function apiKeyAudit(
  ctx: AppContext,
  t: Target,
  verb: 'archive' | 'restore',
  archivedAt: string | null,
  now: string,
): TransactStep[] {
  return auditStep(
    ctx,
    {
      action: `api_key.${verb}`,
      entity_type: 'api_key',
      entity_id: t.id,
      project_id: null,
      account_id: String(t.item.user_id),
      before: { archived_at: archivedAt },
      after: { archived_at: verb === 'archive' ? now : null },
      summary: { key_set: t.item.key_set, name: t.item.name },
    },
    { mode: 'creation' },
  );
}
