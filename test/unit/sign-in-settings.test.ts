import { afterAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '#shared/config';
import { hashPassword, verifyPassword } from '#auth/passwords';
import { LOCKOUT, RESET_LINK_VALID_MINUTES, MAX_AUTHENTICATORS, RECOVERY_CODES_PER_SET } from '#domain/identity';

describe('sign-in security settings (SPEC "Rate limits", "Other constants"; docs/decisions/0011-sign-in-and-reset-rate-limits.md)', () => {
  it('limits per source address by default: login 10 and password reset 5 requests a minute', () => {
    const defaults = reloadConfig();
    expect(defaults.LOGIN_RATE_LIMIT_PER_MINUTE).toBe(10);
    expect(defaults.PASSWORD_RESET_RATE_LIMIT_PER_MINUTE).toBe(5);
    expect(defaults.PASSWORD_RESET_MIN_DURATION_MS).toBe(400);
  });

  it('locks after 10 failures within 15 minutes, for 15 minutes', () => {
    expect(LOCKOUT).toEqual({ maxFailures: 10, windowSeconds: 900, lockSeconds: 900 });
  });

  it('keeps SPEC constants: 3 authenticators, 10 recovery codes, 60-minute reset links', () => {
    expect([MAX_AUTHENTICATORS, RECOVERY_CODES_PER_SET, RESET_LINK_VALID_MINUTES]).toEqual([3, 10, 60]);
  });
});

describe('the password hashing cost (PASSWORD_HASH_COST; docs/decisions/1018)', () => {
  afterAll(() => reloadConfig());

  it("hashes at OWASP's argon2id baseline by default, and test stacks' light cost verifies as well", async () => {
    expect(reloadConfig().PASSWORD_HASH_COST).toBe('standard');
    const standard = await hashPassword('correct horse');
    expect(standard).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    reloadConfig({ PASSWORD_HASH_COST: 'light' });
    const light = await hashPassword('correct horse');
    expect(light).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    // Checked at the cost each hash names, whatever the cost now configured.
    expect([await verifyPassword(standard, 'correct horse'), await verifyPassword(light, 'wrong horse')]).toEqual([
      true,
      false,
    ]);
  });

  it('refuses the light cost in the cloud', () => {
    expect(() => reloadConfig({ STAGE: 'cloud', PASSWORD_HASH_COST: 'light' })).toThrow(/PASSWORD_HASH_COST/);
    expect(reloadConfig({ STAGE: 'cloud' }).PASSWORD_HASH_COST).toBe('standard');
  });
});
