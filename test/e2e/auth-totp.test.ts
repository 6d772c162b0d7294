import { describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp } from '../helpers/http.ts';
import { enrolAuthenticator, frozenClock, login, totpCode } from '../helpers/sign-in.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';

const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);
const STEP = 30_000;
/** Recent proof of identity for a sensitive change: the password, and (with an authenticator's secret) a fresh code from it. */
async function proof(secret?: string) {
  if (!secret) return { current_password: PASSWORD };
  clock.advance(STEP);
  return { current_password: PASSWORD, totp_code: await totpCode(secret, clock.now()) };
}

describe('provisioning an authenticator', () => {
  it('returns a secret, its otpauth URL, issuer, account name and a PNG QR code, and stores nothing', async () => {
    const user = await signUp(api);
    const res = await api.post('/auth/totp/provision', undefined, { token: user.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'account_name',
      'issuer',
      'otpauth_url',
      'qrcode_data_url',
      'secret',
    ]);
    expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits, base32
    expect(res.body.account_name).toBe(user.email);
    expect(res.body.issuer).toBe('Infrastructure Catalog');
    const url = new URL(res.body.otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(res.body.secret);
    expect(url.searchParams.get('issuer')).toBe('Infrastructure Catalog');
    expect(res.body.qrcode_data_url).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(res.body.qrcode_data_url.split(',')[1], 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toEqual([]);
  });

  it('requires a signed-in caller', async () => {
    expect((await api.post('/auth/totp/provision')).body).toEqual({ detail: 'Not authenticated' });
  });
});

describe('enrolling an authenticator (POST /auth/totp/verify)', () => {
  it('stores a named device once a code computed from the secret is valid', async () => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const res = await api.post(
      '/auth/totp/verify',
      { secret: body.secret, code: await totpCode(body.secret, clock.now()), name: 'Work phone' },
      { token: user.token },
    );
    expect(res.status).toBe(204);
    const devices = await api.get('/auth/totp/devices', { token: user.token });
    expect(devices.body).toEqual([
      { id: expect.any(String), name: 'Work phone', created_at: clock.now().toISOString(), last_used_at: null },
    ]);
  });

  it('accepts the previous step but not the one before, nor the next', async () => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const at = (ms: number) => totpCode(body.secret, new Date(clock.now().getTime() + ms));
    const verify = async (code: string) =>
      (await api.post('/auth/totp/verify', { secret: body.secret, code, name: 'Phone' }, { token: user.token })).status;
    expect(await verify(await at(-2 * STEP))).toBe(400);
    expect(await verify(await at(STEP))).toBe(400);
    expect(await verify(await at(-STEP))).toBe(204);
  });

  it('answers 400 for a wrong code, a missing or blank name, and a malformed secret', async () => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const code = await totpCode(body.secret, clock.now());
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const cases: [object, string][] = [
      [{ secret: body.secret, code: wrong, name: 'Phone' }, 'Invalid TOTP code'],
      [{ secret: body.secret, code: '12345', name: 'Phone' }, 'Invalid TOTP code'],
      [{ secret: body.secret, code }, 'Device name is required'],
      [{ secret: body.secret, code, name: '   ' }, 'Device name is required'],
      [{ secret: 'not-base32!', code, name: 'Phone' }, 'Invalid TOTP secret'],
      [{ secret: 'JBSWY3DPEHPK3PXP', code, name: 'Phone' }, 'Invalid TOTP secret'], // 10 bytes: too short
    ];
    for (const [payload, detail] of cases) {
      const res = await api.post('/auth/totp/verify', payload, { token: user.token });
      expect([res.status, res.body]).toEqual([400, { detail }]);
    }
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toEqual([]);
  });

  it('answers 422 naming a missing secret or code', async () => {
    const user = await signUp(api);
    const res = await api.post('/auth/totp/verify', { name: 'Phone' }, { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.code', 'body.secret']);
  });

  it('refuses a fourth authenticator with 400, also when enrolments race', async () => {
    const user = await signUp(api);
    for (const name of ['One', 'Two', 'Three']) await enrolAuthenticator(api, user.token, clock.now(), name);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const fourth = await api.post(
      '/auth/totp/verify',
      { secret: body.secret, code: await totpCode(body.secret, clock.now()), name: 'Four' },
      { token: user.token },
    );
    expect(fourth.status).toBe(400);
    expect(fourth.body).toEqual({ detail: 'At most 3 authenticators can be registered per account' });

    const other = await signUp(api);
    const provisioned = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/auth/totp/provision', undefined, { token: other.token })),
    );
    const results = await Promise.all(
      provisioned.map(
        async (p, i) =>
          (
            await api.post(
              '/auth/totp/verify',
              { secret: p.body.secret, code: await totpCode(p.body.secret, clock.now()), name: `Device ${i}` },
              { token: other.token },
            )
          ).status,
      ),
    );
    expect(results.filter((s) => s === 204)).toHaveLength(3);
    expect(results.filter((s) => s === 400)).toHaveLength(3);
    expect((await api.get('/auth/totp/devices', { token: other.token })).body).toHaveLength(3);
  });

  it('stores the secret encrypted, never in clear', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    const out = await ddb().send(
      new QueryCommand({
        TableName: ref.stack.config.TABLE_NAME,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': `USER#${user.id}`, ':sk': 'TOTP#' },
      }),
    );
    expect(out.Items).toHaveLength(1);
    expect(JSON.stringify(out.Items)).not.toContain(secret);
    expect(out.Items![0].secret_sealed).toMatch(/^local:v1:/);
  });
});

describe('removing an authenticator', () => {
  it('deletes it (204), after which sign-in no longer asks for a code; an unknown id is 404', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    const [device] = (await api.get('/auth/totp/devices', { token: user.token })).body;
    expect(
      (await api.delete(`/auth/totp/devices/${device.id}`, await proof(secret), { token: user.token })).status,
    ).toBe(204);
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toEqual([]);
    expect((await login(api, user.email, PASSWORD)).status).toBe(200);
    const again = await api.delete(`/auth/totp/devices/${device.id}`, await proof(), { token: user.token });
    expect([again.status, again.body]).toEqual([404, { detail: 'Device not found' }]);
  });

  it("cannot remove another account's device", async () => {
    const owner = await signUp(api);
    const intruder = await signUp(api);
    await enrolAuthenticator(api, owner.token, clock.now());
    const [device] = (await api.get('/auth/totp/devices', { token: owner.token })).body;
    expect((await api.delete(`/auth/totp/devices/${device.id}`, await proof(), { token: intruder.token })).status).toBe(
      404,
    );
    expect((await api.get('/auth/totp/devices', { token: owner.token })).body).toHaveLength(1);
  });

  it('answers 422 for a malformed device id', async () => {
    const user = await signUp(api);
    const res = await api.delete('/auth/totp/devices/not-a-uuid', undefined, { token: user.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'device_id']);
  });
});

describe('signing in with a second factor', () => {
  it("answers 401 'TOTP code required' for the right password without a code", async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, clock.now());
    for (const code of [undefined, '', null]) {
      const res = await api.post('/auth/login', { email: user.email, password: PASSWORD, totp_code: code });
      expect([res.status, res.text]).toEqual([401, '{"detail":"TOTP code required"}']);
    }
  });

  it("answers 401 'TOTP code required or invalid' for a wrong code", async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, clock.now());
    for (const code of ['000000', '12345', 'not-a-code']) {
      const res = await login(api, user.email, PASSWORD, code);
      expect([res.status, res.body]).toEqual([401, { detail: 'TOTP code required or invalid' }]);
    }
  });

  it('keeps the wrong-password answer ahead of any second-factor answer', async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, clock.now());
    const res = await login(api, user.email, 'wrong password');
    expect(res.text).toBe('{"detail":"Invalid credentials"}');
  });

  it('signs in with a current code and refuses the same code a second time (replay)', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(STEP);
    const code = await totpCode(secret, clock.now());
    const first = await login(api, user.email, PASSWORD, code);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['access_token', 'refresh_token', 'token_type']);
    const replay = await login(api, user.email, PASSWORD, code);
    expect([replay.status, replay.body]).toEqual([401, { detail: 'TOTP code required or invalid' }]);
    clock.advance(STEP);
    expect((await login(api, user.email, PASSWORD, await totpCode(secret, clock.now()))).status).toBe(200);
  });

  it('refuses the code used to enrol the device', async () => {
    const user = await signUp(api);
    const { body } = await api.post('/auth/totp/provision', undefined, { token: user.token });
    const code = await totpCode(body.secret, clock.now());
    expect(
      (await api.post('/auth/totp/verify', { secret: body.secret, code, name: 'Phone' }, { token: user.token })).status,
    ).toBe(204);
    expect((await login(api, user.email, PASSWORD, code)).status).toBe(401);
  });

  it('accepts the same code only once when two sign-ins race with it', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    clock.advance(STEP);
    const code = await totpCode(secret, clock.now());
    const results = await Promise.all([1, 2, 3].map(() => login(api, user.email, PASSWORD, code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('accepts a code from the previous step and from any of several authenticators', async () => {
    const user = await signUp(api);
    const first = await enrolAuthenticator(api, user.token, clock.now(), 'Phone');
    const second = await enrolAuthenticator(api, user.token, clock.now(), 'Tablet');
    clock.advance(2 * STEP);
    const previousStep = new Date(clock.now().getTime() - STEP);
    expect((await login(api, user.email, PASSWORD, await totpCode(second, previousStep))).status).toBe(200);
    expect((await login(api, user.email, PASSWORD, await totpCode(first, clock.now()))).status).toBe(200);
    const devices = (await api.get('/auth/totp/devices', { token: user.token })).body;
    expect(devices.map((d: { last_used_at: string | null }) => d.last_used_at)).toEqual([
      clock.now().toISOString(),
      clock.now().toISOString(),
    ]);
  });
});

describe('recovery codes', () => {
  it('regenerates 10 distinct codes shown once, stored only as hashes, and counts them', async () => {
    const user = await signUp(api);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body).toEqual({ total: 0, unused: 0 });
    const res = await api.post('/auth/totp/recovery/regenerate', await proof(), { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.codes).toHaveLength(10);
    expect(new Set(res.body.codes).size).toBe(10);
    for (const code of res.body.codes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body).toEqual({ total: 10, unused: 10 });
    const stored = await ddb().send(
      new GetCommand({ TableName: ref.stack.config.TABLE_NAME, Key: keys.recoveryCodes(user.id) }),
    );
    const raw = JSON.stringify(stored.Item);
    for (const code of res.body.codes) expect(raw).not.toContain(code.replace(/-/g, '').toUpperCase());
  });

  it('signs in once with a recovery code, which is then used up', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    const { codes } = (await api.post('/auth/totp/recovery/regenerate', await proof(secret), { token: user.token }))
      .body;
    const ok = await login(api, user.email, PASSWORD, codes[0].toUpperCase()); // case and dashes do not matter
    expect(ok.status).toBe(200);
    const again = await login(api, user.email, PASSWORD, codes[0]);
    expect([again.status, again.body]).toEqual([401, { detail: 'TOTP code required or invalid' }]);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body).toEqual({ total: 10, unused: 9 });
  });

  it('lets exactly one of two concurrent sign-ins use the same recovery code', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    const { codes } = (await api.post('/auth/totp/recovery/regenerate', await proof(secret), { token: user.token }))
      .body;
    const results = await Promise.all([1, 2].map(() => login(api, user.email, PASSWORD, codes[3])));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body.unused).toBe(9);
  });

  it('replaces the previous set: old codes stop working', async () => {
    const user = await signUp(api);
    const secret = await enrolAuthenticator(api, user.token, clock.now());
    const old = (await api.post('/auth/totp/recovery/regenerate', await proof(secret), { token: user.token })).body
      .codes;
    await login(api, user.email, PASSWORD, old[0]);
    const fresh = (await api.post('/auth/totp/recovery/regenerate', await proof(secret), { token: user.token })).body
      .codes;
    expect(fresh.some((c: string) => old.includes(c))).toBe(false);
    expect((await api.get('/auth/totp/recovery', { token: user.token })).body).toEqual({ total: 10, unused: 10 });
    expect((await login(api, user.email, PASSWORD, old[1])).status).toBe(401);
    expect((await login(api, user.email, PASSWORD, fresh[1])).status).toBe(200);
  });
});

describe('POST /auth/totp/delete (legacy single-secret TOTP)', () => {
  it('answers 204 for the right password and leaves named authenticators alone', async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, clock.now());
    const res = await api.post('/auth/totp/delete', { password: PASSWORD }, { token: user.token });
    expect(res.status).toBe(204);
    expect((await api.get('/auth/totp/devices', { token: user.token })).body).toHaveLength(1);
  });

  it('answers 401 for a wrong password and 422 without one', async () => {
    const user = await signUp(api);
    const wrong = await api.post('/auth/totp/delete', { password: 'not my password' }, { token: user.token });
    expect([wrong.status, wrong.body]).toEqual([401, { detail: 'Invalid password' }]);
    expect((await api.post('/auth/totp/delete', {}, { token: user.token })).status).toBe(422);
  });
});
