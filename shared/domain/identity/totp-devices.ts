import { keys } from '#db/keys';
import { claimAbove } from '#db/claims';
import { counterStep, deleteStep, putNewStep } from '#db/steps';
import { transact } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { isUsableTotpSecret, matchingTimeStep, newTotpSecret, otpauthUrl, qrCodeDataUrl } from '#auth/totp';
import { open, seal } from '#auth/secret-box';
import { actorAccount, type AppContext } from '#shared/context';
import type { Account } from './accounts.ts';
import { queryPartition } from '#db/query';
import { securityLogStep } from './security-log.ts';

/** SPEC "Other constants": authenticators per account. */
export const MAX_AUTHENTICATORS = 3;

export const DEVICE_NAME_REQUIRED = 'Device name is required';
export const INVALID_TOTP_SECRET = 'Invalid TOTP secret';
export const INVALID_TOTP_CODE = 'Invalid TOTP code';
export const TOO_MANY_AUTHENTICATORS = `At most ${MAX_AUTHENTICATORS} authenticators can be registered per account`;
export const DEVICE_NOT_FOUND = 'Device not found';

/** A named authenticator. The secret is stored sealed; `last_used_step` is the last accepted time step (replay guard). */
export interface TotpDevice {
  id: string;
  user_id: string;
  name: string;
  secret_sealed: string;
  created_at: string;
  last_used_at: string | null;
  last_used_step: number;
}

/**
 * The account row carries how many authenticators it has, kept in the same transaction as the
 * devices: login and password reset learn "has a second factor" from the row they already read.
 */
export const authenticatorCount = (account: Account): number => account.totp_device_count ?? 0;

export const toDeviceOut = (d: TotpDevice) => ({
  id: d.id,
  name: d.name,
  created_at: d.created_at,
  last_used_at: d.last_used_at,
});

const sealContext = (userId: string, deviceId: string) => ({
  purpose: 'totp-device',
  user_id: userId,
  device_id: deviceId,
});
const normalizeSecret = (secret: string) => secret.replace(/[\s-]/g, '').toUpperCase();

/** A new secret for the caller with everything an app needs to add it. Nothing is stored until a code proves the app has it. */
export async function provisionAuthenticator(ctx: AppContext) {
  const account = actorAccount(ctx);
  const secret = newTotpSecret();
  const issuer = ctx.config.TOTP_ISSUER;
  const otpauth_url = otpauthUrl(secret, issuer, account.email);
  return {
    secret,
    otpauth_url,
    issuer,
    account_name: account.email,
    qrcode_data_url: await qrCodeDataUrl(otpauth_url),
  };
}

/**
 * Stores a named authenticator once a code computed from its secret is valid. The code's time step
 * is recorded as used, so the enrolment code cannot sign in afterwards. The per-account limit is a
 * condition on the account's counter, so concurrent enrolments cannot exceed it.
 */
export async function enrolAuthenticator(
  ctx: AppContext,
  input: { secret: string; code: string; name?: string | null },
): Promise<TotpDevice> {
  const account = actorAccount(ctx);
  const name = input.name?.trim();
  if (!name) throw invalid(DEVICE_NAME_REQUIRED);
  const secret = normalizeSecret(input.secret);
  if (!isUsableTotpSecret(secret)) throw invalid(INVALID_TOTP_SECRET);
  const now = ctx.clock.now();
  const step = await matchingTimeStep(secret, input.code.trim(), now);
  if (step === null) throw invalid(INVALID_TOTP_CODE);
  const id = ctx.ids.newId();
  const device: TotpDevice = {
    id,
    user_id: account.id,
    name,
    secret_sealed: await seal(secret, sealContext(account.id, id)),
    created_at: now.toISOString(),
    last_used_at: null,
    last_used_step: step,
  };
  await transact([
    counterStep(
      keys.account(account.id),
      { totp_device_count: 1 },
      { max: { totp_device_count: MAX_AUTHENTICATORS }, failWith: invalid(TOO_MANY_AUTHENTICATORS) },
    ),
    putNewStep({ ...keys.totpDevice(account.id, id), type: 'totp_device', ...device }),
    securityLogStep(account.id, { event: 'authenticator.added', details: { device_id: id, device_name: name } }, ctx),
  ]);
  return device;
}

async function devicesOf(userId: string): Promise<TotpDevice[]> {
  const items = await queryPartition<TotpDevice>(keys.account(userId).PK, keys.totpDevicePrefix);
  return items.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** The caller's authenticators, oldest first. */
export const listAuthenticators = (ctx: AppContext): Promise<TotpDevice[]> => devicesOf(actorAccount(ctx).id);

/** Removes one of the account's authenticators (logged in the same transaction); 404 when it has no such device. The caller has proven who it is (see `account-security.ts`). */
export async function deleteAuthenticator(userId: string, deviceId: string, ctx: AppContext): Promise<void> {
  await transact([
    deleteStep(keys.totpDevice(userId, deviceId), notFound(DEVICE_NOT_FOUND)),
    counterStep(keys.account(userId), { totp_device_count: -1 }),
    securityLogStep(userId, { event: 'authenticator.removed', details: { device_id: deviceId } }, ctx),
  ]);
}

/**
 * Accepts a six-digit code from any of the account's authenticators, at most once per device and
 * time step: the step is claimed with a conditional write, so a replayed code — even two requests
 * racing with the same code — is accepted only once.
 */
export async function acceptAuthenticatorCode(account: Account, code: string, ctx: AppContext): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const now = ctx.clock.now();
  for (const device of await devicesOf(account.id)) {
    const secret = await open(device.secret_sealed, sealContext(account.id, device.id));
    const step = await matchingTimeStep(secret, code, now);
    if (step === null || step <= device.last_used_step) continue;
    if (
      await claimAbove(keys.totpDevice(account.id, device.id), 'last_used_step', step, {
        last_used_at: now.toISOString(),
      })
    )
      return true;
  }
  return false;
}
