import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, uniqueEmail } from '../helpers/http.ts';
import { login } from '../helpers/sign-in.ts';

const ref = useTestStack({ MFA_REQUIRED: 'true' });
const api = client(() => ref.stack.url);

describe('when configuration requires MFA (MFA_REQUIRED=true)', () => {
  it("refuses sign-in of an account without an authenticator with 401 'TOTP required. Please configure an authenticator app...'", async () => {
    const email = uniqueEmail('mfa');
    expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
    const res = await login(api, email, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      detail: 'TOTP required. Please configure an authenticator app to sign in to this account.',
    });
    expect(res.cookies).toEqual([]);
  });

  it('still answers a wrong password or an unknown address with Invalid credentials only', async () => {
    const email = uniqueEmail('mfa');
    await api.post('/auth/register', { email, password: PASSWORD });
    expect((await login(api, email, 'wrong password')).text).toBe('{"detail":"Invalid credentials"}');
    expect((await login(api, uniqueEmail('ghost'), PASSWORD)).text).toBe('{"detail":"Invalid credentials"}');
  });
});
