import { epochSeconds, type AppContext } from './context.ts';
import { isStaff } from './actor.ts';
import { keys } from '#db/keys';
import { putNewStep } from '#db/steps';
import { expireEntryStep, type TransactStep } from '#db/transact';

/**
 * The audit log's write side, modelled on `eventStep`: an audit entry is a step of the
 * transaction that makes the change it records, so there is no change without its entry and no
 * entry without its change. The read side is the `audit` context (shared/domain/audit).
 */

/** Who made a change: the signed-in account (its e-mail at the time), or the service for background work nobody started. */
export interface AuditActor {
  type: 'account' | 'service';
  id: string | null;
  email: string | null;
  is_staff: boolean;
}

/** The background actor: changes no account asked for (e.g. the scheduled archive at a downgrade deadline). */
export const SERVICE_ACTOR: AuditActor = { type: 'service', id: null, email: null, is_staff: false };

/** An account as the actor of background work it started (an import, a discovery run). */
export const accountActor = (a: {
  id: string;
  email: string;
  is_staff?: boolean;
  is_superuser?: boolean;
}): AuditActor => ({
  type: 'account',
  id: a.id,
  email: a.email,
  is_staff: isStaff(a),
});

/** The actor of a context: its signed-in caller, else the service. */
export const actorOf = (ctx: AppContext): AuditActor => (ctx.actor ? accountActor(ctx.actor.account) : SERVICE_ACTOR);

export interface AuditChange {
  /** `<entity_type>.<verb>`, e.g. `service.update`. */
  action: string;
  entity_type: string;
  entity_id: string;
  /** The project whose log holds the entry; null for an account-level change (then `account_id`). */
  project_id: string | null;
  /** For an account-level change (API keys, plan changes): the account whose own log holds it. */
  account_id?: string | null;
  environment_id?: string | null;
  /** The entity as its readers see it before the change (null for a creation); only changed fields are kept. */
  before?: Record<string, unknown> | null;
  /** ... and after it (null for a deletion). */
  after?: Record<string, unknown> | null;
  /** Set on the per-entity entries an import wrote. */
  import_id?: string | null;
  /** Counts and other facts of an entry that records a whole operation (an import, a discovery run). */
  summary?: Record<string, unknown> | null;
}

/**
 * How long an entry is kept. Retention comes from the owner's plan feature
 * `data_retention_days` when the entry is written:
 * - `creation`: an entity's creation entry never expires;
 * - `latest`: an update or deletion becomes its entity's latest entry and is kept (no TTL) until a
 *   later one replaces it; that later write sets the TTL of `previous` (the SK the entity stores
 *   as `audit_head`) to the expiry computed when `previous` was written;
 * An operation's own entry (an import's, a discovery run's) is a `creation`: the operation is its entity.
 */
export type AuditRetention = { mode: 'creation' } | { mode: 'latest'; days: number | null; previous?: string | null };

/**
 * The deny-list, in this one place: fields whose name says secret never enter an entry, at any
 * depth (hashes, tokens, keys, passwords, webhook secrets, credentials). Internal bookkeeping
 * (`audit_head`, `updated_at`, quota counters) is left out as noise: the entry has its own time.
 */
const SECRET_FIELD =
  /(secret|password|passwd|hash|token|credential|private_?key|api_?key|key_?value|signing|session|(^|_)t?otp(_|$)|recovery|external_id)/i;
const INTERNAL_FIELDS = new Set([
  'audit_head',
  'refs_version',
  'updated_at',
  'PK',
  'SK',
  'type',
  'expires_at_epoch',
  'GSI1PK',
  'GSI1SK',
]);
const isCounter = (field: string) => field.endsWith('_count');

export const isAuditedField = (field: string) =>
  !SECRET_FIELD.test(field) && !INTERNAL_FIELDS.has(field) && !isCounter(field);

/** A value with every secret field removed (objects at any depth; arrays element-wise). */
export function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => isAuditedField(k))
        .map(([k, v]) => [k, scrub(v)]),
    );
  }
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The changed fields, before and after: a creation lists the set fields (non-null, non-empty),
 * a deletion the fields the entity had, an update only the fields whose value changed.
 */
export function changedFields(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
) {
  const b = (before ? scrub(before) : null) as Record<string, unknown> | null;
  const a = (after ? scrub(after) : null) as Record<string, unknown> | null;
  const meaningful = (v: unknown) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0);
  if (!b && a) return { before: null, after: Object.fromEntries(Object.entries(a).filter(([, v]) => meaningful(v))) };
  if (b && !a) return { before: Object.fromEntries(Object.entries(b).filter(([, v]) => meaningful(v))), after: null };
  if (!b || !a) return { before: null, after: null };
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((f) => !same(b[f], a[f]));
  return {
    before: Object.fromEntries(fields.map((f) => [f, b[f] ?? null])),
    after: Object.fromEntries(fields.map((f) => [f, a[f] ?? null])),
  };
}

export interface AuditItem {
  id: string;
  at: string;
  action: string;
  entity_type: string;
  entity_id: string;
  project_id: string | null;
  account_id?: string | null;
  environment_id: string | null;
  actor: AuditActor;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  import_id: string | null;
  summary: Record<string, unknown> | null;
  request_id: string | null;
  source_ip: string | null;
  user_agent: string | null;
}

const DAY = 24 * 3600;

/**
 * The steps that record `change`: the entry itself and, for a `latest` entry, setting the TTL of
 * the entry it replaces as its entity's latest. `sk` is the entry's sort key: the caller stores it
 * as the entity's `audit_head` in the same transaction when the entry is `latest`.
 */
export function auditSteps(
  ctx: AppContext,
  change: AuditChange,
  retention: AuditRetention,
  opts: { actor?: AuditActor } = {},
): { steps: TransactStep[]; sk: string } {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const id = ctx.ids.newId();
  const actor = opts.actor ?? actorOf(ctx);
  const { before, after } = changedFields(change.before, change.after);
  const entry: AuditItem = {
    id,
    at,
    action: change.action,
    entity_type: change.entity_type,
    entity_id: change.entity_id,
    project_id: change.project_id,
    ...(change.account_id ? { account_id: change.account_id } : {}),
    environment_id: change.environment_id ?? null,
    actor,
    before,
    after,
    // An import's own writes name it; so does anything an import runs through the ordinary functions (ctx.importId: its prune).
    import_id: change.import_id ?? ctx.importId ?? null,
    summary: change.summary ? (scrub(change.summary) as Record<string, unknown>) : null,
    request_id: ctx.origin?.requestId ?? null,
    source_ip: ctx.origin?.sourceIp ?? null,
    user_agent: ctx.origin?.userAgent ?? null,
  };
  // A project's entries live in its audit partition; an account-level one in the account's, its index entries scoped to the account.
  const scope = change.project_id ?? `ACCOUNT#${change.account_id}`;
  const key = change.project_id
    ? keys.auditEntry(change.project_id, at, id)
    : keys.accountAuditEntry(change.account_id!, at, id);
  const days = retention.mode === 'creation' ? null : retention.days;
  const expiry = days ? epochSeconds(now) + days * DAY : undefined;
  const item: Record<string, unknown> = {
    ...key,
    ...keys.auditByEntity(scope, change.entity_id, at, id),
    ...(actor.id ? keys.auditByActor(scope, actor.id, at, id) : {}),
    type: 'audit',
    ...entry,
    // A `latest` entry keeps its expiry aside until a later entry of its entity replaces it.
    ...(retention.mode === 'latest' && expiry ? { retain_until_epoch: expiry } : {}),
  };
  // A latest entry moves its entity's head: transact conditions the entity's write on the head it replaces (db/transact.ts).
  const steps: TransactStep[] = [
    retention.mode === 'latest'
      ? { ...putNewStep(item), headMove: { head: key.SK, previous: retention.previous ?? null } }
      : putNewStep(item),
  ];
  // Without a retention (a plan that keeps everything) the previous entry is kept as well.
  if (retention.mode === 'latest' && retention.previous && expiry)
    steps.push(expireEntryStep(key.PK, retention.previous, expiry));
  return { steps, sk: key.SK };
}

/** The one step of an entry (for writes that record a single entry and keep no head). */
export const auditStep = (
  ctx: AppContext,
  change: AuditChange,
  retention: AuditRetention,
  opts: { actor?: AuditActor } = {},
): TransactStep[] => auditSteps(ctx, change, retention, opts).steps;

/** An audited entity: its id, its project, its environment when it lives in one, and its latest entry's sort key. */
export interface AuditedEntity {
  id: string;
  project_id: string;
  environment_id?: string | null;
  audit_head?: string | null;
}

const target = (kind: string, verb: string, item: AuditedEntity, importId?: string | null) => ({
  action: `${kind}.${verb}`,
  entity_type: kind,
  entity_id: item.id,
  project_id: item.project_id,
  environment_id: item.environment_id ?? null,
  import_id: importId ?? null,
});

/**
 * A creation's entry: kept for good. `shown` is what the entity's own read answers (internal
 * fields left out), so an entry never shows a field the reader could not read on the entity.
 */
export const creationAudit = (
  ctx: AppContext,
  kind: string,
  item: AuditedEntity,
  shown: Record<string, unknown>,
  opts: { importId?: string | null; actor?: AuditActor; summary?: Record<string, unknown> } = {},
): TransactStep[] =>
  auditSteps(
    ctx,
    { ...target(kind, 'create', item, opts.importId), after: shown, summary: opts.summary },
    { mode: 'creation' },
    { actor: opts.actor },
  ).steps;

/**
 * An update's or deletion's entry: it becomes the entity's latest (kept while it is), the previous
 * latest starts expiring; `head` is what the entity's write stores as `audit_head` in the same transaction.
 */
export function changeAudit(
  ctx: AppContext,
  kind: string,
  verb: string,
  item: AuditedEntity,
  shown: { before: Record<string, unknown> | null; after: Record<string, unknown> | null },
  days: number | null,
  opts: { actor?: AuditActor; summary?: Record<string, unknown>; importId?: string | null } = {},
): { steps: TransactStep[]; head: string } {
  const { steps, sk } = auditSteps(
    ctx,
    { ...target(kind, verb, item, opts.importId), ...shown, summary: opts.summary },
    { mode: 'latest', days, previous: item.audit_head },
    { actor: opts.actor },
  );
  return { steps, head: sk };
}
