import { generateSecret } from 'otplib';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { takeMapEntry } from '#db/claims';
import { putStep } from '#db/steps';
import { transact } from '#db/transact';
import { securityLogStep } from './security-log.ts';
import { sha256 } from '#auth/tokens';
import { actorAccount, type AppContext } from '#shared/context';

/** SPEC "Other constants": recovery codes per set. */
export const RECOVERY_CODES_PER_SET = 10;

/**
 * The account's one set of recovery codes: a map from each code's hash to 0 (unused) or the time
 * it was used (epoch ms). One item, so regenerating replaces the whole set in one write and the
 * status is one read.
 */
interface RecoveryCodeSet {
  user_id: string;
  created_at: string;
  codes: Record<string, number>;
}

const UNUSED = 0;

/** 80 random bits as 16 base32 characters, shown as `abcd-efgh-ijkl-mnop`; never six digits, so never taken for a TOTP code. */
const newCode = () => generateSecret({ length: 10 }).toLowerCase().match(/.{4}/g)!.join('-');
/** What the user typed → what was hashed: case, dashes and spaces do not matter. */
const normalize = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();
/** Salted with the account id, so equal codes of two accounts hash differently. */
const codeHash = (userId: string, code: string) => sha256(`${userId}:${normalize(code)}`);

/**
 * Ten fresh codes for the account, replacing any previous set; the codes themselves are returned once
 * and only their hashes kept. The caller has proven who it is (see `account-security.ts`).
 */
export async function replaceRecoveryCodes(userId: string, ctx: AppContext): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES_PER_SET }, newCode);
  const set: RecoveryCodeSet = {
    user_id: userId,
    created_at: ctx.clock.now().toISOString(),
    codes: Object.fromEntries(codes.map((c) => [codeHash(userId, c), UNUSED])),
  };
  await transact([
    putStep({ ...keys.recoveryCodes(userId), type: 'recovery_codes', ...set }),
    securityLogStep(userId, { event: 'recovery_codes.regenerated', details: { count: codes.length } }, ctx),
  ]);
  return codes;
}

/** How many recovery codes the caller's set has, and how many are unused. */
export async function recoveryCodeStatus(ctx: AppContext): Promise<{ total: number; unused: number }> {
  const codes = Object.values((await getItem<RecoveryCodeSet>(keys.recoveryCodes(actorAccount(ctx).id)))?.codes ?? {});
  return { total: codes.length, unused: codes.filter((used) => used === UNUSED).length };
}

/** Uses a code up. The condition makes it single-use even when two requests present it at once. */
export async function consumeRecoveryCode(userId: string, code: string, ctx: AppContext): Promise<boolean> {
  if (!normalize(code)) return false;
  return takeMapEntry(keys.recoveryCodes(userId), 'codes', codeHash(userId, code), UNUSED, ctx.clock.now().getTime());
}
