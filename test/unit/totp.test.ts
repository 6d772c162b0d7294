import { describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { isUsableTotpSecret, matchingTimeStep, newTotpSecret, otpauthUrl } from '#auth/totp';

const secret = newTotpSecret();
const at = new Date('2026-03-01T12:00:15Z');
const shifted = (seconds: number) => new Date(at.getTime() + seconds * 1000);
const codeAt = (d: Date) => generate({ secret, epoch: Math.floor(d.getTime() / 1000) });
const step = (d: Date) => Math.floor(d.getTime() / 30_000);

describe('TOTP codes (SHA-1, six digits, 30-second steps)', () => {
  it('makes 160-bit base32 secrets', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
  });

  it('accepts the current and the previous step, answering the matched step', async () => {
    expect(await matchingTimeStep(secret, await codeAt(at), at)).toBe(step(at));
    expect(await matchingTimeStep(secret, await codeAt(shifted(-30)), at)).toBe(step(at) - 1);
  });

  it('refuses two steps back and any future step', async () => {
    expect(await matchingTimeStep(secret, await codeAt(shifted(-60)), at)).toBeNull();
    expect(await matchingTimeStep(secret, await codeAt(shifted(30)), at)).toBeNull();
  });

  it('refuses anything but six digits, and unusable secrets, without throwing', async () => {
    const code = await codeAt(at);
    for (const bad of ['', '12345', '1234567', 'abcdef', ` ${code}`])
      expect(await matchingTimeStep(secret, bad, at)).toBeNull();
    expect(await matchingTimeStep('JBSWY3DPEHPK3PXP', code, at)).toBeNull(); // 10 bytes
    expect(await matchingTimeStep('AAAAAAAAAAAAAAAAAAAAAAAAAB', code, at)).toBeNull(); // bad base32 padding
  });

  it('recognizes usable secrets: base32, at least 16 bytes', () => {
    expect(isUsableTotpSecret(secret)).toBe(true);
    expect(isUsableTotpSecret('JBSWY3DPEHPK3PXP')).toBe(false);
    expect(isUsableTotpSecret('jbswy3dpehpk3pxpjbswy3dpehpk3pxp')).toBe(false);
    expect(isUsableTotpSecret('0'.repeat(32))).toBe(false);
  });

  it('writes an otpauth URL with the key URI defaults authenticator apps assume (SHA1, 6 digits, 30 s)', () => {
    const url = new URL(otpauthUrl(secret, 'Infrastructure Catalog', 'ann@example.com'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Infrastructure Catalog:ann@example.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ secret, issuer: 'Infrastructure Catalog' });
    // the key URI format's defaults are left out by the library; anything else would be spelled out
    expect(url.searchParams.get('algorithm') ?? 'SHA1').toBe('SHA1');
    expect(url.searchParams.get('digits') ?? '6').toBe('6');
    expect(url.searchParams.get('period') ?? '30').toBe('30');
  });
});
