import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import committedOpenApi from '../../openapi.json' with { type: 'json' };

// No refresh grace window here: a replayed refresh token is a reuse at once (the window is tested in auth-session-friendliness).
// Passwords hashed at the cost the product runs at (test stacks hash lighter: test/helpers/stack.ts).
const ref = useTestStack({ REFRESH_REUSE_GRACE_SECONDS: '0', PASSWORD_HASH_COST: 'standard' });
const api = client(() => ref.stack.url);

const ACCOUNT_FIELDS = [
  'admin_role',
  'email',
  'id',
  'is_staff',
  'is_superuser',
  'job_title',
  'name',
  'navigation_mode',
  'phone',
  'preferred_language',
  'table_density',
  'timezone',
];

describe('registration', () => {
  it('creates a customer account with exactly the documented fields', async () => {
    const email = uniqueEmail('reg');
    const res = await api.post('/auth/register', { email, password: PASSWORD, name: 'Ann', phone: '+1 555 0100' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ACCOUNT_FIELDS);
    expect(res.body).toMatchObject({ email, name: 'Ann', phone: '+1 555 0100', is_staff: false, is_superuser: false });
  });

  it('stores the password as an argon2id hash with m=19456, t=2, p=1', async () => {
    const res = await api.post('/auth/register', { email: uniqueEmail('hash'), password: PASSWORD });
    const item = await ddb().send(
      new GetCommand({ TableName: ref.stack.config.TABLE_NAME, Key: keys.account(res.body.id) }),
    );
    expect(item.Item?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(item.Item?.password_hash).not.toContain(PASSWORD);
  });

  it('refuses a duplicate address compared case-insensitively (400)', async () => {
    const email = uniqueEmail('dup');
    expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
    const again = await api.post('/auth/register', { email: email.toUpperCase(), password: PASSWORD });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: 'Email already registered' });
  });

  it('creates exactly one account when the same address registers concurrently', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/auth/register', { email, password: PASSWORD })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
  });

  it('answers 422 with the field named for a short password or a malformed address', async () => {
    const res = await api.post('/auth/register', { email: 'not-an-address', password: 'short' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.email',
      'body.password',
    ]);
    for (const d of res.body.detail)
      expect(d).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
  });

  it('names missing fields as missing', async () => {
    const res = await api.post('/auth/register', {});
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual({ loc: ['body', 'email'], msg: 'Field required', type: 'missing' });
  });

  it('answers 422 for malformed JSON', async () => {
    const res = await api.post('/auth/register', undefined, { raw: '{"email":' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  });

  it('puts the new account on an active Free subscription', async () => {
    const user = await signUp(api);
    const res = await api.get('/me/subscription', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.plan).toMatchObject({
      name: 'Free',
      interval: 'none',
      price_cents: 0,
      max_projects: 1,
      max_services: 5,
    });
    expect(Object.keys(res.body.plan).sort()).toEqual([
      'currency',
      'features',
      'id',
      'interval',
      'max_projects',
      'max_services',
      'name',
      'price_cents',
    ]);
    expect(res.body.features).toEqual(res.body.plan.features);
    expect(res.body).not.toHaveProperty('status');
    const features = await api.get('/admin/features/my', { token: user.token });
    expect(features.body).toEqual({ features: res.body.features });
  });
});

describe('login', () => {
  it('returns the token pair and sets both cookies HttpOnly, SameSite=Lax, Path=/', async () => {
    const email = uniqueEmail('login');
    await api.post('/auth/register', { email, password: PASSWORD });
    const res = await api.post('/auth/login', { email: email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token', 'token_type']);
    expect(res.body.token_type).toBe('bearer');
    const [access, refresh] = ['access_token', 'refresh_token'].map(
      (n) => res.cookies.find((c) => c.startsWith(`${n}=`))!,
    );
    for (const c of [access, refresh]) {
      expect(c).toContain('HttpOnly');
      expect(c).toContain('SameSite=Lax');
      expect(c).toContain('Path=/');
      expect(c).not.toContain('Secure'); // plain-HTTP local serving
    }
    // refresh token: opaque, at least 256 bits of secret
    const secret = res.body.refresh_token.split('.').pop();
    expect(Buffer.from(secret, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('gives byte-identical 401 bodies for an unknown address and a wrong password', async () => {
    const user = await signUp(api);
    const unknown = await api.post('/auth/login', { email: uniqueEmail('ghost'), password: PASSWORD });
    const wrong = await api.post('/auth/login', { email: user.email, password: 'wrong password' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.text).toBe('{"detail":"Invalid credentials"}');
    expect(wrong.text).toBe(unknown.text);
  });

  it('answers 422 for missing fields', async () => {
    const res = await api.post('/auth/login', { email: 'a@example.com' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'password']);
  });

  it('answers 422, not 401, for a malformed address (SPEC: missing or malformed fields)', async () => {
    const res = await api.post('/auth/login', { email: 'not-an-address', password: PASSWORD });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'email']);
  });
});

describe('access tokens', () => {
  it('authenticates with the Bearer header or the access_token cookie', async () => {
    const user = await signUp(api);
    expect((await api.get('/auth/me', { token: user.token })).body.email).toBe(user.email);
    expect((await api.get('/auth/me', { cookie: `access_token=${user.token}` })).body.email).toBe(user.email);
  });

  it('checks the header before the cookie', async () => {
    const user = await signUp(api);
    const res = await api.get('/auth/me', { token: 'garbage', cookie: `access_token=${user.token}` });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it('refuses a missing token with 401', async () => {
    const res = await api.get('/auth/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('refuses a tampered token', async () => {
    const user = await signUp(api);
    const [h, p] = user.token.split('.');
    const res = await api.get('/auth/me', { token: `${h}.${p}.${'A'.repeat(43)}` });
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });
});

describe('refresh and logout', () => {
  it('rotates the refresh token; the rotated one no longer works and revokes the session', async () => {
    const user = await signUp(api);
    const first = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(user.refresh);
    expect(first.body.token_type).toBe('bearer');
    const replay = await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    expect(replay.status).toBe(401);
    // the replay revoked the session: the newest pair is dead too
    expect((await api.post('/auth/token/refresh', { refresh_token: first.body.refresh_token })).status).toBe(401);
    const me = await api.get('/auth/me', { token: first.body.access_token });
    expect(me.body).toEqual({ detail: 'Token revoked' });
  });

  it('accepts the refresh token from the cookie with an empty body', async () => {
    const user = await signUp(api);
    const res = await api.post('/auth/token/refresh', undefined, { cookie: `refresh_token=${user.refresh}` });
    expect(res.status).toBe(200);
    expect((await api.get('/auth/me', { token: res.body.access_token })).status).toBe(200);
  });

  it('does not update the last login on refresh', async () => {
    const user = await signUp(api);
    const before = await ddb().send(
      new GetCommand({ TableName: ref.stack.config.TABLE_NAME, Key: keys.account(user.id) }),
    );
    await api.post('/auth/token/refresh', { refresh_token: user.refresh });
    const after = await ddb().send(
      new GetCommand({ TableName: ref.stack.config.TABLE_NAME, Key: keys.account(user.id) }),
    );
    expect(after.Item?.last_login_at).toBe(before.Item?.last_login_at);
    expect(before.Item?.last_login_at).toEqual(expect.any(String));
  });

  it('logout revokes the refresh token, clears both cookies and ends the access token', async () => {
    const user = await signUp(api);
    const res = await api.post('/auth/logout', { refresh_token: user.refresh }, { token: user.token });
    expect(res.status).toBe(204);
    expect(res.cookies.some((c) => c.startsWith('access_token=;') && c.includes('Max-Age=0'))).toBe(true);
    expect(res.cookies.some((c) => c.startsWith('refresh_token=;') && c.includes('Max-Age=0'))).toBe(true);
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    expect((await api.get('/auth/me', { token: user.token })).body).toEqual({ detail: 'Token revoked' });
  });
});

describe('profile', () => {
  it('updates writable fields and keeps the documented shape', async () => {
    const user = await signUp(api);
    const res = await api.patch(
      '/auth/me',
      { name: 'Bea', timezone: 'Europe/Paris', table_density: 'compact' },
      { token: user.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Bea', timezone: 'Europe/Paris', table_density: 'compact' });
    expect(Object.keys(res.body).sort()).toEqual(ACCOUNT_FIELDS);
    expect((await api.get('/auth/me', { token: user.token })).body.name).toBe('Bea');
  });

  it('changes the e-mail (with the password, once the mailed link is opened), which then signs in, and refuses a taken one', async () => {
    const a = await signUp(api);
    const b = await signUp(api);
    const next = uniqueEmail('moved');
    expect(
      (await api.patch('/auth/me', { email: next, current_password: PASSWORD }, { token: a.token })).body.email,
    ).toBe(a.email);
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: next });
    const token = linkFrom(mail, '/confirm-email').searchParams.get('token');
    expect((await api.post('/auth/email/confirm', { token })).status).toBe(200);
    expect((await api.get('/auth/me', { token: a.token })).body.email).toBe(next);
    expect((await api.post('/auth/login', { email: next, password: PASSWORD })).status).toBe(200);
    expect((await api.post('/auth/login', { email: a.email, password: PASSWORD })).status).toBe(401);
    const taken = await api.patch('/auth/me', { email: b.email, current_password: PASSWORD }, { token: a.token });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ detail: 'Email already registered' });
  });
});

describe('routing and documents', () => {
  it('answers unknown routes with 404 Not Found', async () => {
    const res = await api.get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"detail":"Not Found"}');
  });

  it('serves the ten plans publicly with the table values', async () => {
    const res = await api.get('/plans');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(10);
    const rows = res.body.map((p: any) => [
      p.name,
      p.interval,
      p.price_cents,
      p.max_projects,
      p.max_envs_per_project,
      p.max_services,
      p.max_project_users,
      p.max_api_keys_per_user,
      p.support_level,
    ]);
    expect(rows).toEqual([
      ['Free', 'none', 0, 1, 1, 5, 1, 1, 'community'],
      ['Starter', 'monthly', 2900, 5, 3, 25, 10, 5, 'email_48h'],
      ['Starter', 'annual', 27800, 5, 3, 25, 10, 5, 'email_48h'],
      ['Team', 'monthly', 7900, 15, 5, 100, 25, 15, 'email_chat_24h'],
      ['Team', 'annual', 75800, 15, 5, 100, 25, 15, 'email_chat_24h'],
      ['Business', 'monthly', 19900, 50, 10, 500, 100, 50, 'email_chat_12h'],
      ['Business', 'annual', 191000, 50, 10, 500, 100, 50, 'email_chat_12h'],
      ['Enterprise', 'monthly', 49900, 200, 25, 2000, 500, 200, 'priority_4h'],
      ['Enterprise', 'annual', 479000, 200, 25, 2000, 500, 200, 'priority_4h'],
      ['Enterprise+', 'custom', 0, null, null, null, null, null, '24_7_dedicated_1h'],
    ]);
  });

  it('publishes an OpenAPI 3.1 document covering every route', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/auth/login'].post.requestBody.content['application/json'].schema.required).toEqual([
      'email',
      'password',
    ]);
    expect(res.body.paths['/plans'].get.security).toEqual([]);
    expect(res.body).toEqual(committedOpenApi); // the generated file, as committed
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });
});
