/** A session: started at sign-in, its refresh token rotated (with a grace window for several tabs), ended by sign-out or revocation. */
import { keys } from '#db/keys';
import { transact, type TransactStep } from '#db/transact';
import { conditionalUpdate, deleteItem, putItem } from '#db/items';
import { deleteStep, setWhenExpression } from '#db/steps';
import { issueAccessToken, newSecret, refreshToken, sha256 } from '#auth/tokens';
import { seal, open } from '#auth/secret-box';
import { forbidden, isRefusal, notFound, unauthenticated } from '#shared/errors';
import { KEY_TOKEN_ACCOUNT_ONLY } from '#auth/key-grant';
import { actorAccount, NOT_AUTHENTICATED, type AppContext } from '#shared/context';
import { getAccountAndSession, sessionExpired, USER_NOT_FOUND_OR_INACTIVE } from '#auth/caller';
import type { Account, Session } from '#shared/actor';
import { sessionEntity } from '#shared/account-entity';
import { securityLogStep, type SecurityEventInput } from './security-log.ts';

export type { Session } from '#shared/actor';

/** Where a request comes from (request data, handed in by the route): a session records both. */
export interface ClientMeta {
  userAgent: string;
  sourceIp: string;
}

export const INVALID_REFRESH = 'Invalid refresh token';
export const SESSION_NOT_FOUND = 'Session not found';

/** What a started or refreshed session hands the client; the HTTP layer also sets both as cookies. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
}

function expiry(ctx: AppContext) {
  const at = new Date(ctx.clock.now().getTime() + ctx.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000);
  return { expires_at: at.toISOString(), expires_at_epoch: Math.floor(at.getTime() / 1000) };
}

/** Starts a session and answers with its token pair, as login and invitation acceptance do. */
export async function startSession(account: Account, meta: ClientMeta, ctx: AppContext): Promise<TokenPair> {
  const started = sessionStart(account, meta, ctx);
  await putItem(started.step.Put!.Item);
  return started.tokens();
}

/**
 * A new session as a step of the caller's own transaction (sign-in writes it with the account's last
 * login and the security-log entry: one transaction, not two writes one after the other), and the
 * token pair to answer once it is written.
 */
export function sessionStart(
  account: Account,
  meta: ClientMeta,
  ctx: AppContext,
  extra: Pick<Session, 'sso_project_id'> = {},
): { step: TransactStep & { Put: { Item: Record<string, unknown> } }; tokens: () => Promise<TokenPair> } {
  const secret = newSecret();
  const now = ctx.clock.now().toISOString();
  const { expires_at, expires_at_epoch } = expiry(ctx);
  const session: Session = {
    id: ctx.ids.newId(),
    user_id: account.id,
    refresh_hash: sha256(secret),
    device: meta.userAgent.slice(0, 256),
    ip: meta.sourceIp,
    created_at: now,
    last_seen_at: now,
    expires_at,
    token_version: account.token_version,
    ...extra,
  };
  return {
    step: { Put: { Item: { ...keys.session(account.id, session.id), type: 'session', ...session, expires_at_epoch } } },
    tokens: () => tokenPair(account, session.id, secret, ctx),
  };
}

/** The context as it was at `instant`: a rotation's pair is issued at the rotation's instant, so a replay in the grace window is byte-identical. */
const atInstant = (ctx: AppContext, instant: Date): AppContext => ({
  ...ctx,
  clock: { ...ctx.clock, now: () => instant },
});

async function tokenPair(account: Account, sessionId: string, secret: string, ctx: AppContext): Promise<TokenPair> {
  const access_token = await issueAccessToken({ sub: account.id, ver: account.token_version, sid: sessionId }, ctx);
  return { access_token, refresh_token: refreshToken.compose(account.id, sessionId, secret), token_type: 'bearer' };
}

/** What the sealed secret of a rotation is bound to: it opens only on this session, for this rotation. */
const graceSealContext = (userId: string, sessionId: string, previousHash: string) => ({
  purpose: 'refresh-grace',
  user_id: userId,
  session_id: sessionId,
  previous_hash: previousHash,
});

/** Whether `presentedHash` is the secret the session's last rotation replaced, and that rotation is younger than the grace window. */
function inGraceWindow(session: Session, presentedHash: string, ctx: AppContext): boolean {
  if (session.previous_hash !== presentedHash || !session.rotated_at || !session.rotated_to_sealed) return false;
  return ctx.clock.now().getTime() - Date.parse(session.rotated_at) < ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
}

/** Whether a refresh token still proves its session: its secret is the current one, or the one just replaced (grace window). */
async function refreshTokenHolds(
  parsed: { userId: string; sessionId: string; secret: string },
  ctx: AppContext,
): Promise<boolean> {
  const { session } = await getAccountAndSession(parsed.userId, parsed.sessionId);
  if (!session || sessionExpired(session, ctx)) return false;
  const presented = sha256(parsed.secret);
  return presented === session.refresh_hash || inGraceWindow(session, presented, ctx);
}

/**
 * Exchanges a refresh token for a new pair. The secret rotates on every use; presenting a secret
 * that is no longer the session's current one means it was copied, so the session is revoked —
 * except for the secret the last rotation replaced, within REFRESH_REUSE_GRACE_SECONDS of that
 * rotation: several tabs of one browser refreshing at once all get the same new pair.
 */
export async function refreshSession(
  ctx: AppContext,
  input: { refresh_token?: string; client: ClientMeta },
): Promise<TokenPair> {
  const parsed = input.refresh_token ? refreshToken.parse(input.refresh_token) : undefined;
  if (!parsed) throw unauthenticated(INVALID_REFRESH);
  const { account, session } = await getAccountAndSession(parsed.userId, parsed.sessionId);
  if (!session || sessionExpired(session, ctx)) throw unauthenticated(INVALID_REFRESH);
  if (!account?.is_active) throw unauthenticated(USER_NOT_FOUND_OR_INACTIVE);
  if ((session.token_version ?? 0) !== account.token_version) {
    // every session of the account was revoked at once (password reset, block); this one may not have been deleted yet
    await deleteSession(account.id, session.id);
    throw unauthenticated(INVALID_REFRESH);
  }
  const presented = sha256(parsed.secret);
  let current: Session | undefined = session;
  if (presented === session.refresh_hash) {
    const rotated = await rotate(account, session, presented, input.client, ctx);
    if (rotated.pair) return rotated.pair;
    // Someone rotated this secret a moment ago (another tab): the session as that rotation left it decides.
    current = rotated.now;
  }
  if (current && inGraceWindow(current, presented, ctx)) {
    const secret = await open(current.rotated_to_sealed!, graceSealContext(account.id, current.id, presented));
    return tokenPair(account, current.id, secret, atInstant(ctx, new Date(current.rotated_at!)));
  }
  // The same token used again after the window: it was copied.
  await endSession(
    account.id,
    session.id,
    { event: 'session.revoked', actor: 'anonymous', details: { session_id: session.id, cause: 'refresh_token_reuse' } },
    ctx,
  );
  throw unauthenticated(INVALID_REFRESH);
}

/**
 * Replaces the session's secret, if `presented` is still the current one (only its holder rotates
 * it). The new secret is kept sealed, with the replaced secret's hash and the instant, for the grace
 * window. Answers the new pair, or the session as it now is when another rotation came first.
 */
async function rotate(
  account: Account,
  session: Session,
  presented: string,
  client: ClientMeta,
  ctx: AppContext,
): Promise<{ pair?: TokenPair; now?: Session }> {
  const secret = newSecret();
  const at = ctx.clock.now();
  const set = setWhenExpression(
    {
      refresh_hash: sha256(secret),
      previous_hash: presented,
      rotated_at: at.toISOString(),
      rotated_to_sealed: await seal(secret, graceSealContext(account.id, session.id, presented)),
      last_seen_at: at.toISOString(),
      ip: client.sourceIp,
      ...expiry(ctx),
    },
    { refresh_hash: presented },
  );
  const rotated = await conditionalUpdate(keys.session(account.id, session.id), {
    ...set,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (!rotated.ok) return { now: sessionEntity.decodeFound(rotated.old) };
  return { pair: await tokenPair(account, session.id, secret, atInstant(ctx, at)) };
}

/** Deletes one session; answers whether there was one. */
async function deleteSession(userId: string, sessionId: string): Promise<boolean> {
  return Boolean(await deleteItem(keys.session(userId, sessionId)));
}

/**
 * Ends one session with its entry in the account's security log, in one transaction; answers
 * whether there was such a session (none: nothing is written, the log included).
 */
async function endSession(
  userId: string,
  sessionId: string,
  entry: SecurityEventInput,
  ctx: AppContext,
): Promise<boolean> {
  try {
    await transact([
      deleteStep(keys.session(userId, sessionId), notFound(SESSION_NOT_FOUND)),
      securityLogStep(userId, entry, ctx),
    ]);
    return true;
  } catch (err) {
    if (isRefusal(err, 'not_found')) return false;
    throw err;
  }
}

const signedOut = (sessionId: string): SecurityEventInput => ({
  event: 'session.signed_out',
  actor: 'self',
  details: { session_id: sessionId },
});

/** The signed-in caller's account and the session its token belongs to (a key's token has none: only a person signs out). */
export function actorSession(ctx: AppContext): { account: Account; session: Session } {
  const account = actorAccount(ctx);
  const session = ctx.actor!.session;
  if (!session) throw forbidden(KEY_TOKEN_ACCOUNT_ONLY);
  return { account, session };
}

/**
 * Signs out. With a valid access token (the caller), the calling session ends, and so does the one of
 * a refresh token sent along (body or cookie) when it is another session of the same account. Without
 * one (expired, or none sent), the refresh token alone ends its session, if it still proves it (its
 * secret is the current one, or the one just replaced within the grace window); otherwise 401.
 */
export async function logout(ctx: AppContext, input: { refresh_token?: string }): Promise<void> {
  const parsed = input.refresh_token ? refreshToken.parse(input.refresh_token) : undefined;
  if (ctx.actor) {
    const { account, session } = actorSession(ctx);
    await endSession(account.id, session.id, signedOut(session.id), ctx);
    if (parsed && parsed.userId === account.id && parsed.sessionId !== session.id)
      await endSession(account.id, parsed.sessionId, signedOut(parsed.sessionId), ctx);
    return;
  }
  if (!input.refresh_token) throw unauthenticated(NOT_AUTHENTICATED);
  if (!parsed || !(await refreshTokenHolds(parsed, ctx))) throw unauthenticated(INVALID_REFRESH);
  await endSession(parsed.userId, parsed.sessionId, signedOut(parsed.sessionId), ctx);
}

/** Revokes one of the caller's sessions (its tokens stop working at once); 404 when the caller has no such session. */
export async function revokeSession(ctx: AppContext, input: { session_id: string }): Promise<void> {
  const entry: SecurityEventInput = { event: 'session.revoked', details: { session_id: input.session_id } };
  if (!(await endSession(actorAccount(ctx).id, input.session_id, entry, ctx))) throw notFound(SESSION_NOT_FOUND);
}
