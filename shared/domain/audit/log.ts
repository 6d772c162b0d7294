import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { TABLE } from '#db/table';
import { queryNewestPage } from '#db/query';
import { encodeCursor, pageStart } from '#auth/cursor';
import { forbidden } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import type { AuditItem } from '#shared/audit';
import type { Permission } from '#auth/permissions';
import { accessToProject, type ProjectAccess } from '#domain/tenancy';

/** GET /projects/{project_id}/audit-log: who changed what, when, and from where. */

export const AUDIT_FORBIDDEN = 'Insufficient permissions to read the audit log of this project';

export const auditEntryOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    at: z.string(),
    action: z.string(),
    entity_type: z.string(),
    entity_id: z.string(),
    project_id: z.uuid(),
    environment_id: z.uuid().nullable(),
    actor: z.object({
      type: z.enum(['account', 'service']),
      id: z.uuid().nullable(),
      email: z.string().nullable(),
      is_staff: z.boolean(),
    }),
    before: z.record(z.string(), z.unknown()).nullable(),
    after: z.record(z.string(), z.unknown()).nullable(),
    import_id: z.uuid().nullable(),
    summary: z.record(z.string(), z.unknown()).nullable(),
    request_id: z.string().nullable(),
    source_ip: z.string().nullable(),
    user_agent: z.string().nullable(),
  }),
);
export type AuditEntryOut = z.infer<ReturnType<typeof auditEntryOut>>;

/** The filters and paging of an audit log read (a project's or an account's). */
export interface AuditQuery {
  entity_type?: string;
  entity_id?: string;
  actor_id?: string;
  action?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}

export interface AuditLogInput extends AuditQuery {
  project_id: string;
}

/**
 * Privacy: an entry is shown only to a reader who could read its entity. Catalog and structure
 * entries need the kind's view permission in the entry's environment; project users need
 * `project_users.view`; webhooks `webhooks.manage`; what only owners manage (custom roles and their
 * assignments, invitations, members, imports, discovery, archive) `project.manage`; the project
 * and its environments and environment roles every member sees. Unknown kinds: `project.manage`.
 */
const READ_PERMISSION: Record<string, Permission | null> = {
  service: 'services.view',
  floor: 'floors.view',
  network: 'networks.view',
  attachment: 'networks.view',
  connection: 'connections.view',
  chain: 'connections.view',
  link: 'connections.view',
  group: 'groups.view',
  subgroup: 'groups.view',
  project_user: 'project_users.view',
  webhook: 'webhooks.manage',
  project: null,
  environment: null,
  env_role: null,
  // An import's own entry (its counts) is for whoever reads the environment's services (import history is the members').
  import: 'services.view',
  // A discovery run's entry (its counts) is for whoever reads the environment's floors.
  discovery_run: 'floors.view',
  // A cloud account (never its credentials) is for whoever sees it: connections.view in its environment.
  cloud_account: 'connections.view',
};

/**
 * Where the caller may read the log: everywhere with `audit.read` project-wide (owners hold every
 * key), or only the environments a custom role grants it in (then only those environments' entries).
 */
export function readScope(access: ProjectAccess): 'project' | Set<string> {
  if (access.can('audit.read')) return 'project';
  const envs = access.envsGranting('audit.read');
  if (!envs.size) throw forbidden(AUDIT_FORBIDDEN);
  return envs;
}

export function readable(access: ProjectAccess, scope: 'project' | Set<string>, entry: AuditItem): boolean {
  const env = entry.environment_id ?? undefined;
  if (scope !== 'project' && !(env && scope.has(env))) return false;
  const needed = entry.entity_type in READ_PERMISSION ? READ_PERMISSION[entry.entity_type] : 'project.manage';
  return needed === null || access.can(needed, env);
}

const toOut = (i: AuditItem): AuditEntryOut => ({
  id: i.id,
  at: i.at,
  action: i.action,
  entity_type: i.entity_type,
  entity_id: i.entity_id,
  project_id: i.project_id!,
  environment_id: i.environment_id ?? null,
  actor: i.actor,
  before: i.before ?? null,
  after: i.after ?? null,
  import_id: i.import_id ?? null,
  summary: i.summary ?? null,
  request_id: i.request_id ?? null,
  source_ip: i.source_ip ?? null,
  user_agent: i.user_agent ?? null,
});

const index = (name: string) => TABLE.indexes.find((i) => i.name === name)!;

/**
 * One page of a project's log, newest first, and the cursor of the next page (null at the end).
 * The partition read: an entity's index entries (entity_id), an actor's (actor_id), else the
 * project's time-ordered partition; since/until are the sort-key range, the other filters filter
 * expressions. Refusals: the byte-identical 404 of every project-scoped route, 403 without
 * `audit.read`, 422 for a cursor that is not one this service handed out for this query.
 */
export async function readAuditLog(
  ctx: AppContext,
  q: AuditLogInput,
): Promise<{ entries: AuditEntryOut[]; next: string | null }> {
  const access = await accessToProject(q.project_id, actorAccount(ctx).id);
  const scope = readScope(access);
  const page = await auditPage({ scope: q.project_id, own: keys.auditPK(q.project_id) }, q, (entry) =>
    readable(access, scope, entry),
  );
  return { entries: page.items.map(toOut), next: page.next };
}

/**
 * One page of an audit partition, newest first, and the next page's cursor (null at the end): an
 * entity's index entries (`entity_id`, GSI2), an actor's (`actor_id`, GSI3), else the `own`
 * time-ordered partition; `scope` (a project id, or `ACCOUNT#<id>`) is in the index keys, so no
 * read leaves it. since/until are the sort-key range, the other filters filter expressions; `keep`
 * drops what the reader may not see. 422 for a cursor this service did not hand out for this partition.
 */
export async function auditPage(
  where: { scope: string; own: string },
  q: AuditQuery,
  keep: (entry: AuditItem) => boolean,
) {
  const read = q.entity_id
    ? { index: index('GSI2'), pk: keys.auditEntityPK(where.scope, q.entity_id) }
    : q.actor_id
      ? { index: index('GSI3'), pk: keys.auditActorPK(where.scope, q.actor_id) }
      : { index: undefined, pk: where.own };
  const startAfter = await pageStart(q.cursor, read.pk, read.index?.partitionKey);
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (q.entity_type) filters.push('#et = :et'), (names['#et'] = 'entity_type'), (values[':et'] = q.entity_type);
  if (q.action) filters.push('#ac = :ac'), (names['#ac'] = 'action'), (values[':ac'] = q.action);
  if (q.entity_id && q.actor_id)
    filters.push('#actor.#aid = :aid'),
      (names['#actor'] = 'actor'),
      (names['#aid'] = 'id'),
      (values[':aid'] = q.actor_id);
  const page = await queryNewestPage<AuditItem & Record<string, unknown>>({
    ...read,
    // Sort keys are `<ISO time>#<id>`: since and until (inclusive) are a key range.
    from: q.since ?? '0',
    to: `${q.until ?? '9'}#~`,
    limit: q.limit,
    filter: filters.length ? filters.join(' AND ') : undefined,
    names,
    values,
    keep,
    startAfter,
  });
  return { items: page.items, next: page.last ? await encodeCursor(page.last) : null };
}
