import type { Key } from '#db/batch-get';
import { getItem } from '#db/items';
import { spendOnceStep } from '#db/claims';
import { putNewStep } from '#db/steps';
import type { TransactStep } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { newSecret, sha256 } from '#auth/tokens';
import type { AppContext } from '#shared/context';

/**
 * A single-use token mailed as a link (password reset, e-mail change): 256 random bits, of which
 * only the SHA-256 is stored; valid for a number of minutes; spent by a conditional write in the
 * transaction that acts on it, so of two concurrent uses exactly one succeeds. A used or expired
 * token is kept a week, so its link answers "used" or "expired" rather than "not found".
 */
const KEEP_AFTER_EXPIRY_DAYS = 7;

export interface LinkTokenRecord {
  created_at: string;
  expires_at: string;
  used_at?: string;
}

/** The refusals of one kind of link, in its own words. */
export interface LinkTokenRefusals {
  required: string;
  notFound: string;
  used: string;
  expired: string;
}

/**
 * A new token and the write of its record under `keyOf(hash)`, a step of the transaction that also
 * writes the mail carrying it (the outbox), so the link exists exactly when its mail is on its way.
 */
export function newLinkToken<T extends object>(
  ctx: AppContext,
  input: { keyOf: (hash: string) => Key; type: string; validMinutes: number; record: T },
): { token: string; step: TransactStep } {
  const token = newSecret(32);
  const now = ctx.clock.now();
  const expires = new Date(now.getTime() + input.validMinutes * 60_000);
  const step = putNewStep({
    ...input.keyOf(sha256(token)),
    type: input.type,
    ...input.record,
    created_at: now.toISOString(),
    expires_at: expires.toISOString(),
    expires_at_epoch: Math.floor(expires.getTime() / 1000) + KEEP_AFTER_EXPIRY_DAYS * 86_400,
  });
  return { token, step };
}

/** The record of a presented token, refused when missing, unknown, used or expired; with the step that spends it. */
export async function readLinkToken<T extends LinkTokenRecord>(
  ctx: AppContext,
  input: { token: string; keyOf: (hash: string) => Key; refusals: LinkTokenRefusals },
): Promise<{ record: T; now: string; spendStep: TransactStep }> {
  const { refusals } = input;
  const token = input.token.trim();
  if (!token) throw invalid(refusals.required);
  const key = input.keyOf(sha256(token));
  const record = await getItem<T>(key);
  const now = ctx.clock.now().toISOString();
  if (!record) throw notFound(refusals.notFound);
  if (record.used_at) throw invalid(refusals.used);
  if (record.expires_at <= now) throw invalid(refusals.expired);
  const spendStep = spendOnceStep(key, { used: 'used_at', expires: 'expires_at' }, now, invalid(refusals.used));
  return { record, now, spendStep };
}

/** A link into the app (the page that posts the token back). */
export const appLink = (ctx: AppContext, path: string, token: string) =>
  `${ctx.config.APP_BASE_URL.replace(/\/+$/, '')}/${path}?token=${encodeURIComponent(token)}`;
