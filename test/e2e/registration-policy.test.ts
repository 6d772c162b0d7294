import { describe, expect, it } from 'vitest';
import { useTestStack, startTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';

describe('registration restricted to an e-mail domain allowlist, with a stricter password policy', () => {
  const ref = useTestStack({
    REGISTRATION_EMAIL_DOMAINS: 'example.com, corp.test',
    PASSWORD_MIN_LENGTH: '12',
    PASSWORD_REQUIRE_MIXED: 'true',
  });
  const api = client(() => ref.stack.url);

  it('refuses other domains with 403', async () => {
    const res = await api.post('/auth/register', { email: 'eve@elsewhere.org', password: 'Long enough 123' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Registration is not allowed for this email domain' });
  });

  it('accepts allowlisted domains whatever their case', async () => {
    expect((await api.post('/auth/register', { email: 'Dan@CORP.test', password: 'Long enough 123' })).status).toBe(
      201,
    );
  });

  it('refuses a password failing the policy with 400 (422 stays for under 8 characters)', async () => {
    const weak = await api.post('/auth/register', { email: uniqueEmail(), password: 'longbutweak1' });
    expect(weak.status).toBe(400);
    expect(weak.body.detail).toMatch(/^Password must/);
    expect((await api.post('/auth/register', { email: uniqueEmail(), password: 'Short1' })).status).toBe(422);
  });
});

describe('registration modes', () => {
  it.each([
    ['disabled', 'Registration is disabled'],
    ['invite-only', 'Registration is by invitation only'],
  ])('%s mode refuses self-service sign-up with 403', async (mode, detail) => {
    const stack = await startTestStack({ REGISTRATION_MODE: mode });
    try {
      const res = await client(() => stack.url).post('/auth/register', { email: uniqueEmail(), password: PASSWORD });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail });
    } finally {
      await stack.stop();
    }
  });
});
