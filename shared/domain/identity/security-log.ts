import * as z from 'zod';
import { keys } from '#db/keys';
import { putItem } from '#db/items';
import { putStep } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { encodeCursor, pageStart } from '#auth/cursor';
import { queryNewestPage } from '#db/query';
import { defineEntity, defineView } from '#db/entity';
import { actorAccount, epochSeconds, type AppContext } from '#shared/context';
import type { KeyUnusable } from '#auth/caller';

/**
 * The account's security log: what happened to the account's sign-in and its secrets,
 * from where and with which device, for the account holder and for staff. Entries hold no password,
 * code, token, hash or secret: only what the event is, its reason code, ids and non-secret facts.
 * Written in the transaction of the change where the change has one (authenticators, recovery
 * codes, password reset, e-mail change, session revocation); see docs/decisions/0069-security-log-what-is-logged-entries-reason-codes.md.
 */
export const SECURITY_EVENTS = [
  'account.created',
  'sign_in.succeeded',
  'sign_in.refused',
  'lockout.started',
  'reauth.refused',
  'authenticator.added',
  'authenticator.removed',
  'recovery_codes.regenerated',
  'password_reset.requested',
  'password_reset.completed',
  'email_change.requested',
  'email.changed',
  'session.signed_out',
  'session.revoked',
  'sessions.revoked',
  'account.updated_by_staff',
  'api_key.exchanged',
  'api_key.exchange_refused',
  'sso.linked',
] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number];

/**
 * Why a sign-in (or a re-check of a signed-in caller) was refused: never more than the answer said.
 * `invalid_credentials` covers an unknown address's twin cases (wrong password, blocked account),
 * exactly like the 401 'Invalid credentials'. A refused API key exchange says why (the log is the
 * account holder's; the answer stays the one 401): `KeyUnusable`, `metrics_key` or `account_blocked`.
 */
export type RefusalReason =
  | KeyUnusable
  | 'metrics_key'
  | 'account_blocked'
  | 'invalid_credentials'
  | 'invalid_password'
  | 'totp_required'
  | 'totp_invalid'
  | 'totp_setup_required'
  | 'locked'
  | 'sign_in_gate'
  /** A single sign-on that would have entered this existing account: it never does; the holder links it. */
  | 'sso_account_exists';

/** Who acted: the account itself, a staff account (its id), or someone not (yet) proven to be anyone (a refused sign-in). */
export type SecurityActor = 'self' | 'staff' | 'anonymous';

const detailValue = () => z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const securityLogEntity = defineEntity('security_log', () =>
  z.object({
    id: z.uuid(),
    user_id: z.uuid(),
    event: z.enum(SECURITY_EVENTS),
    reason: z.string().nullable().default(null),
    at: z.string(),
    source_ip: z.string().nullable().default(null),
    user_agent: z.string().nullable().default(null),
    request_id: z.string().nullable().default(null),
    actor: z.enum(['self', 'staff', 'anonymous']),
    actor_id: z.string().nullable().default(null),
    /** Non-secret facts of the event (device id and name, session id, addresses of an e-mail change, second factor kind, lock end, counts). */
    details: z.record(z.string(), detailValue()).default({}),
  }),
);

export const securityLogView = defineView(securityLogEntity, {
  id: true,
  event: true,
  reason: true,
  at: true,
  source_ip: true,
  user_agent: true,
  request_id: true,
  actor: true,
  actor_id: true,
  details: true,
});
/** The response schema of one entry (GET /auth/me/security-log, GET /admin/users/{user_id}/security-log). */
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const securityLogEntryOut = () => securityLogView.schema;

export interface SecurityEventInput {
  event: SecurityEvent;
  reason?: RefusalReason | null;
  details?: Record<string, string | number | boolean | null>;
  /** Default: the signed-in caller — `self` on its own account, `staff` on another's — else `anonymous`. */
  actor?: SecurityActor;
}

/** The caller as the entry's actor, unless the flow says otherwise. */
function actorOf(
  userId: string,
  ctx: AppContext,
  given?: SecurityActor,
): { actor: SecurityActor; actor_id: string | null } {
  const caller = ctx.actor?.account;
  if (given === 'anonymous') return { actor: 'anonymous', actor_id: null };
  if (given === 'self') return { actor: 'self', actor_id: userId };
  if (caller && caller.id !== userId) return { actor: 'staff', actor_id: caller.id };
  if (caller) return { actor: 'self', actor_id: caller.id };
  return { actor: 'anonymous', actor_id: null };
}

const retainUntil = (at: Date, ctx: AppContext) => epochSeconds(at) + ctx.config.SECURITY_LOG_RETENTION_DAYS * 86_400;

/** The item of one entry about account `userId`, with where the request came from (`ctx.origin`) and when. */
export function securityLogItem(userId: string, input: SecurityEventInput, ctx: AppContext): Record<string, unknown> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const origin = ctx.origin;
  const entry = securityLogEntity.create({
    id: ctx.ids.newId(),
    user_id: userId,
    event: input.event,
    reason: input.reason ?? null,
    at,
    source_ip: origin?.sourceIp ?? null,
    user_agent: origin ? origin.userAgent.slice(0, 256) : null,
    request_id: origin?.requestId ?? null,
    ...actorOf(userId, ctx, input.actor),
    details: input.details ?? {},
  });
  return {
    ...securityLogEntity.encode(keys.securityLog(userId, at, entry.id), entry),
    expires_at_epoch: retainUntil(now, ctx),
  };
}

/** The entry as a step of the transaction that makes the change it records. */
export const securityLogStep = (userId: string, input: SecurityEventInput, ctx: AppContext): TransactStep =>
  putStep(securityLogItem(userId, input, ctx));

/** The entry on its own, for an event that writes nothing else (a refused sign-in, a mailed link). */
export const recordSecurityEvent = (userId: string, input: SecurityEventInput, ctx: AppContext): Promise<void> =>
  putItem(securityLogItem(userId, input, ctx));

export interface SecurityLogPage {
  limit: number;
  cursor?: string;
}

/** One page of an account's log, newest first, as clients see it (sort keys are `<ISO time>#<id>`). */
export async function securityLogPage(userId: string, input: SecurityLogPage) {
  const pk = keys.securityLogPK(userId);
  const page = await queryNewestPage({
    pk,
    from: '0',
    to: '9#~',
    limit: input.limit,
    startAfter: await pageStart(input.cursor, pk),
  });
  return {
    entries: page.items.map((item) => securityLogView.project(securityLogEntity.decode(item))),
    next: page.last ? await encodeCursor(page.last) : undefined,
  };
}

/** The caller's own security log, newest first, one page (the next page's cursor when there is more). */
export const listOwnSecurityLog = (ctx: AppContext, input: SecurityLogPage) =>
  securityLogPage(actorAccount(ctx).id, input);
