import { keys } from '#db/keys';
import { transactInChunks } from '#db/transact';
import { conditionalUpdate, deleteItem, putItem } from '#db/items';
import { deleteStep, setExpression } from '#db/steps';
import { issueAccessToken, newSecret, refreshToken, sha256 } from '#auth/tokens';
import { notFound, unauthenticated } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { USER_NOT_FOUND_OR_INACTIVE, type Account } from './accounts';
import { queryAll } from '#db/query';
import { batchGet, keyId } from '#db/batch-get';

/** One signed-in device. Revoking a session deletes it; its refresh token and access tokens then stop working. */
export interface Session {
  id: string;
  user_id: string;
  refresh_hash: string;
  device: string;
  ip: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** The account's token version when the session began: bumping the version (password reset, block) ends it. */
  token_version?: number;
}

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
  };
  await putItem({ ...keys.session(account.id, session.id), type: 'session', ...session, expires_at_epoch });
  return tokenPair(account, session.id, secret, ctx);
}

async function tokenPair(account: Account, sessionId: string, secret: string, ctx: AppContext): Promise<TokenPair> {
  const access_token = await issueAccessToken({ sub: account.id, ver: account.token_version, sid: sessionId }, ctx);
  return { access_token, refresh_token: refreshToken.compose(account.id, sessionId, secret), token_type: 'bearer' };
}

/** Reads an account and one of its sessions in a single round trip (strongly consistent). */
export async function getAccountAndSession(userId: string, sessionId: string): Promise<{ account?: Account; session?: Session }> {
  const accountKey = keys.account(userId);
  const sessionKey = keys.session(userId, sessionId);
  const items = await batchGet([accountKey, sessionKey]);
  return { account: items.get(keyId(accountKey)) as Account | undefined, session: items.get(keyId(sessionKey)) as Session | undefined };
}

export const sessionExpired = (s: Session, ctx: AppContext) => s.expires_at <= ctx.clock.now().toISOString();

/**
 * Exchanges a refresh token for a new pair. The secret rotates on every use; presenting a secret
 * that is no longer the session's current one means it was copied, so the session is revoked.
 */
export async function refreshSession(ctx: AppContext, input: { refresh_token?: string; client: ClientMeta }): Promise<TokenPair> {
  const parsed = input.refresh_token ? refreshToken.parse(input.refresh_token) : undefined;
  if (!parsed) throw unauthenticated(INVALID_REFRESH);
  const { account, session } = await getAccountAndSession(parsed.userId, parsed.sessionId);
  if (!session || sessionExpired(session, ctx)) throw unauthenticated(INVALID_REFRESH);
  if (!account || !account.is_active) throw unauthenticated(USER_NOT_FOUND_OR_INACTIVE);
  if ((session.token_version ?? 0) !== account.token_version) {
    // every session of the account was revoked at once (password reset, block); this one may not have been deleted yet
    await deleteSession(account.id, session.id);
    throw unauthenticated(INVALID_REFRESH);
  }
  const presented = sha256(parsed.secret);
  if (presented !== session.refresh_hash) {
    await deleteSession(account.id, session.id);
    throw unauthenticated(INVALID_REFRESH);
  }
  const secret = newSecret();
  const next = expiry(ctx);
  const set = setExpression({ refresh_hash: sha256(secret), last_seen_at: ctx.clock.now().toISOString(), ip: input.client.sourceIp, ...next });
  // Only the holder of the current secret rotates it.
  const rotated = await conditionalUpdate(keys.session(account.id, session.id), {
    ...set,
    ConditionExpression: 'refresh_hash = :old',
    ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':old': presented },
  });
  if (!rotated.ok) {
    // Someone rotated this secret a moment ago: the same token was used twice.
    await deleteSession(account.id, session.id);
    throw unauthenticated(INVALID_REFRESH);
  }
  return tokenPair(account, session.id, secret, ctx);
}

/** Deletes one session; answers whether there was one. */
async function deleteSession(userId: string, sessionId: string): Promise<boolean> {
  return Boolean(await deleteItem(keys.session(userId, sessionId)));
}

/** The signed-in caller's account and the session its token belongs to. */
function actorSession(ctx: AppContext): { account: Account; session: Session } {
  const account = actorAccount(ctx);
  return { account, session: ctx.actor!.session };
}

/**
 * Signs out: the calling session ends, and so does the one of a refresh token sent along (body or
 * cookie) when it is another session of the same account.
 */
export async function logout(ctx: AppContext, input: { refresh_token?: string }): Promise<void> {
  const { account, session } = actorSession(ctx);
  await deleteSession(account.id, session.id);
  const other = refreshToken.parse(input.refresh_token || '');
  if (other && other.userId === account.id && other.sessionId !== session.id) await deleteSession(account.id, other.sessionId);
}

/** Revokes one of the caller's sessions (its tokens stop working at once); 404 when the caller has no such session. */
export async function revokeSession(ctx: AppContext, input: { session_id: string }): Promise<void> {
  if (!(await deleteSession(actorAccount(ctx).id, input.session_id))) throw notFound(SESSION_NOT_FOUND);
}

/** What the sessions list shows of a session; `current` marks the caller's own. */
export const toSessionOut = (s: Session, currentId: string) => ({
  id: s.id,
  device: s.device,
  ip: s.ip,
  created_at: s.created_at,
  last_seen_at: s.last_seen_at,
  current: s.id === currentId,
});

/** The account's live sessions, most recently used first. */
async function sessionsOf(userId: string, ctx: AppContext): Promise<Session[]> {
  const sessions = await queryAll<Session>({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.account(userId).PK, ':sk': keys.sessionPrefix },
    ConsistentRead: true,
  });
  return sessions.filter((s) => !sessionExpired(s, ctx)).sort((a, b) => b.last_seen_at.localeCompare(a.last_seen_at));
}

/** The caller's signed-in sessions as the list shows them, the calling one marked current. */
export async function listSessions(ctx: AppContext) {
  const { account, session } = actorSession(ctx);
  return (await sessionsOf(account.id, ctx)).map((s) => toSessionOut(s, session.id));
}

/** Revokes (deletes) every session of the account except `keepSessionId`; answers how many were revoked. */
export async function revokeAccountSessions(userId: string, ctx: AppContext, keepSessionId?: string): Promise<number> {
  const doomed = (await sessionsOf(userId, ctx)).filter((s) => s.id !== keepSessionId);
  await transactInChunks(doomed.map((s) => deleteStep(keys.session(userId, s.id))));
  return doomed.length;
}

/** Revokes every session of the caller except the calling one; answers how many were revoked. */
export async function revokeOtherSessions(ctx: AppContext): Promise<number> {
  const { account, session } = actorSession(ctx);
  return revokeAccountSessions(account.id, ctx, session.id);
}
