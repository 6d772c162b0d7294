import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { keys } from '#db/keys';
import { actorAccount, type AppContext } from '#shared/context';
import type { AuditItem } from '#shared/audit';
import { auditEntryOut, auditPage, type AuditQuery } from './log.ts';

/**
 * GET /me/audit-log: the caller's own account-level entries (API keys created, revoked,
 * archived and restored; plan changes), which belong to no project. Stored in the account's own
 * partition `USER#<id>#AUDIT`; their index entries (GSI2 by entity, GSI3 by actor) are scoped to
 * `ACCOUNT#<id>`, so no read here can reach another account's entries nor a project's.
 */

/** The project log's entry shape; `project_id` and `environment_id` are always null, `account_id` is the caller. */
export const accountAuditEntryOut = lazySchema(() =>
  auditEntryOut().extend({
    project_id: z.null(),
    environment_id: z.null(),
    account_id: z.uuid(),
  }),
);
export type AccountAuditEntryOut = z.infer<ReturnType<typeof accountAuditEntryOut>>;

export type AccountAuditLogInput = AuditQuery;

const accountScope = (userId: string) => `ACCOUNT#${userId}`;

const toOut = (i: AuditItem, userId: string): AccountAuditEntryOut => ({
  id: i.id,
  at: i.at,
  action: i.action,
  entity_type: i.entity_type,
  entity_id: i.entity_id,
  project_id: null,
  environment_id: null,
  account_id: userId,
  actor: i.actor,
  before: i.before ?? null,
  after: i.after ?? null,
  import_id: i.import_id ?? null,
  summary: i.summary ?? null,
  request_id: i.request_id ?? null,
  source_ip: i.source_ip ?? null,
  user_agent: i.user_agent ?? null,
});

/**
 * One page of the caller's account-level log, newest first, and the next page's cursor (null at the
 * end). The same filters and paging as a project's log: `entity_id` reads GSI2, else `actor_id`
 * GSI3, else the account's partition; since/until are the sort-key range; the rest filter
 * expressions. No permission beyond being signed in: the partition is the caller's own.
 * Refusal: 422 for a cursor this service did not hand out for this query.
 */
export async function readAccountAuditLog(
  ctx: AppContext,
  q: AccountAuditLogInput,
): Promise<{ entries: AccountAuditEntryOut[]; next: string | null }> {
  const userId = actorAccount(ctx).id;
  const page = await auditPage(
    { scope: accountScope(userId), own: keys.accountAuditPK(userId) },
    q,
    // Belt and braces: only the caller's own account-level entries (the keys already say so).
    (entry) => entry.project_id == null && entry.account_id === userId,
  );
  return { entries: page.items.map((i) => toOut(i, userId)), next: page.next };
}
