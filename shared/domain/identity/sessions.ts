import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { transact } from '#db/transact';
import { issueAccessToken, newSecret, refreshToken, sha256 } from '#auth/tokens';
import { ACCESS_COOKIE, REFRESH_COOKIE, setCookie } from '#http/cookies';
import { unauthorized } from '#http/errors';
import type { Reply } from '#http/route';
import type { AppContext } from '#shared/context';
import { USER_NOT_FOUND_OR_INACTIVE, type Account } from './accounts';
import { queryAll } from '#db/query';
import { batchGet, keyId } from '#domain/tenancy';

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

export interface ClientMeta {
  userAgent: string;
  sourceIp: string;
}

export const INVALID_REFRESH = 'Invalid refresh token';

function expiry(ctx: AppContext) {
  const at = new Date(ctx.now().getTime() + ctx.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000);
  return { expires_at: at.toISOString(), expires_at_epoch: Math.floor(at.getTime() / 1000) };
}

/** Starts a session and answers with the token pair (body and cookies), as login and invitation acceptance do. */
export async function startSession(account: Account, meta: ClientMeta, ctx: AppContext): Promise<Reply> {
  const secret = newSecret();
  const now = ctx.now().toISOString();
  const { expires_at, expires_at_epoch } = expiry(ctx);
  const session: Session = {
    id: ctx.newId(),
    user_id: account.id,
    refresh_hash: sha256(secret),
    device: meta.userAgent.slice(0, 256),
    ip: meta.sourceIp,
    created_at: now,
    last_seen_at: now,
    expires_at,
    token_version: account.token_version,
  };
  await ddb().send(
    new PutCommand({
      TableName: config().TABLE_NAME,
      Item: { ...keys.session(account.id, session.id), type: 'session', ...session, expires_at_epoch },
    }),
  );
  return tokenReply(account, session.id, secret, ctx);
}

async function tokenReply(account: Account, sessionId: string, secret: string, ctx: AppContext): Promise<Reply> {
  const access_token = await issueAccessToken({ sub: account.id, ver: account.token_version, sid: sessionId }, ctx);
  const refresh_token = refreshToken.compose(account.id, sessionId, secret);
  return {
    status: 200,
    body: { access_token, refresh_token, token_type: 'bearer' },
    cookies: [
      setCookie(ACCESS_COOKIE, access_token, ctx.config.ACCESS_TOKEN_TTL_SECONDS),
      setCookie(REFRESH_COOKIE, refresh_token, ctx.config.REFRESH_TOKEN_TTL_DAYS * 86_400),
    ],
  };
}

/** Reads an account and one of its sessions in a single round trip (strongly consistent). */
export async function getAccountAndSession(userId: string, sessionId: string): Promise<{ account?: Account; session?: Session }> {
  const accountKey = keys.account(userId);
  const sessionKey = keys.session(userId, sessionId);
  const items = await batchGet([accountKey, sessionKey]);
  return { account: items.get(keyId(accountKey)) as Account | undefined, session: items.get(keyId(sessionKey)) as Session | undefined };
}

export const sessionExpired = (s: Session, ctx: AppContext) => s.expires_at <= ctx.now().toISOString();

/**
 * Exchanges a refresh token for a new pair. The secret rotates on every use; presenting a secret
 * that is no longer the session's current one means it was copied, so the session is revoked.
 */
export async function refreshSession(token: string, meta: ClientMeta, ctx: AppContext): Promise<Reply> {
  const parsed = refreshToken.parse(token);
  if (!parsed) throw unauthorized(INVALID_REFRESH);
  const { account, session } = await getAccountAndSession(parsed.userId, parsed.sessionId);
  if (!session || sessionExpired(session, ctx)) throw unauthorized(INVALID_REFRESH);
  if (!account || !account.is_active) throw unauthorized(USER_NOT_FOUND_OR_INACTIVE);
  if ((session.token_version ?? 0) !== account.token_version) {
    // every session of the account was revoked at once (password reset, block); this one may not have been deleted yet
    await revokeSession(account.id, session.id);
    throw unauthorized(INVALID_REFRESH);
  }
  const presented = sha256(parsed.secret);
  if (presented !== session.refresh_hash) {
    await revokeSession(account.id, session.id);
    throw unauthorized(INVALID_REFRESH);
  }
  const secret = newSecret();
  const next = expiry(ctx);
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: keys.session(account.id, session.id),
        UpdateExpression: 'SET refresh_hash = :new, last_seen_at = :now, ip = :ip, expires_at = :exp, expires_at_epoch = :epoch',
        ConditionExpression: 'refresh_hash = :old',
        ExpressionAttributeValues: { ':new': sha256(secret), ':old': presented, ':now': ctx.now().toISOString(), ':ip': meta.sourceIp, ':exp': next.expires_at, ':epoch': next.expires_at_epoch },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    // Someone rotated this secret a moment ago: the same token was used twice.
    await revokeSession(account.id, session.id);
    throw unauthorized(INVALID_REFRESH);
  }
  return tokenReply(account, session.id, secret, ctx);
}

export async function revokeSession(userId: string, sessionId: string): Promise<boolean> {
  const out = await ddb().send(
    new DeleteCommand({ TableName: config().TABLE_NAME, Key: keys.session(userId, sessionId), ReturnValues: 'ALL_OLD' }),
  );
  return Boolean(out.Attributes);
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
export async function listSessions(userId: string, ctx: AppContext): Promise<Session[]> {
  const sessions = await queryAll<Session>({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.account(userId).PK, ':sk': keys.sessionPrefix },
    ConsistentRead: true,
  });
  return sessions.filter((s) => !sessionExpired(s, ctx)).sort((a, b) => b.last_seen_at.localeCompare(a.last_seen_at));
}

/** Revokes (deletes) every session of the account except `keepSessionId`; answers how many were revoked. */
export async function revokeSessions(userId: string, ctx: AppContext, keepSessionId?: string): Promise<number> {
  const doomed = (await listSessions(userId, ctx)).filter((s) => s.id !== keepSessionId);
  const TableName = config().TABLE_NAME;
  for (let i = 0; i < doomed.length; i += MAX_TRANSACTION_ITEMS) {
    await transact(doomed.slice(i, i + MAX_TRANSACTION_ITEMS).map((s) => ({ Delete: { TableName, Key: keys.session(userId, s.id) } })));
  }
  return doomed.length;
}

const MAX_TRANSACTION_ITEMS = 100;
