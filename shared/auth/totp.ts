import { generateSecret, generateURI, verify } from 'otplib';

/** RFC 6238 as authenticator apps expect it: SHA-1, six digits, 30-second steps (otplib's defaults, stated once here). */
export const TOTP = { algorithm: 'sha1', digits: 6, periodSeconds: 30 } as const;

/** A fresh base32 secret of 20 random bytes (160 bits, RFC 4226's recommendation). */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

/** A base32 secret of at least 16 bytes, the smallest otplib accepts. */
export const isUsableTotpSecret = (secret: string): boolean => /^[A-Z2-7]{26,}=*$/.test(secret);

export function otpauthUrl(secret: string, issuer: string, accountName: string): string {
  return generateURI({
    issuer,
    label: accountName,
    secret,
    algorithm: TOTP.algorithm,
    digits: TOTP.digits,
    period: TOTP.periodSeconds,
  });
}

/** The QR code of the otpauth URL as a PNG data URL, for apps that scan. */
/** The QR code image; the encoder is loaded when an authenticator is enrolled, not at every cold start. */
export const qrCodeDataUrl = async (otpauth: string): Promise<string> =>
  (await import('qrcode')).toDataURL(otpauth, { type: 'image/png', errorCorrectionLevel: 'M' });

/**
 * The time step a code belongs to, when it is valid at `at` for the current or the previous step
 * (one step of tolerance for clock drift and typing time, never a future step); otherwise null.
 * The caller compares the step with the last one it accepted to refuse replays.
 */
export async function matchingTimeStep(secret: string, code: string, at: Date): Promise<number | null> {
  if (!/^\d{6}$/.test(code) || !isUsableTotpSecret(secret)) return null;
  const result = await verifyCode(secret, code, at);
  return result?.valid && 'timeStep' in result ? result.timeStep : null;
}

async function verifyCode(secret: string, code: string, at: Date) {
  return verify({
    secret,
    token: code,
    algorithm: TOTP.algorithm,
    digits: TOTP.digits,
    period: TOTP.periodSeconds,
    epoch: Math.floor(at.getTime() / 1000),
    epochTolerance: [TOTP.periodSeconds, 0],
  }).catch(() => undefined); // a malformed secret (e.g. bad base32 padding) matches nothing
}
