import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { enrolAuthenticator, login } from '../helpers/sign-in.ts';

const STAFF_EMAIL = 'root@catalog.example.com';
const STAFF_PASSWORD = 'staff passphrase 1';
const ref = useTestStack({ BOOTSTRAP_ADMIN_EMAIL: STAFF_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: STAFF_PASSWORD });
const api = client(() => ref.stack.url);

const ADMIN_USER_FIELDS = [
  'account_type',
  'admin_role',
  'can_create_projects',
  'created_at',
  'email',
  'id',
  'is_active',
  'is_staff',
  'is_superuser',
  'job_title',
  'last_login_at',
  'mfa_enabled',
  'name',
  'navigation_mode',
  'phone',
  'preferred_language',
  'table_density',
  'timezone',
];

let staff: { id: string; token: string };
beforeAll(async () => {
  const res = await login(api, STAFF_EMAIL, STAFF_PASSWORD);
  const me = await api.get('/auth/me', { token: res.body.access_token });
  staff = { id: me.body.id, token: res.body.access_token };
});

const asStaff = () => ({ token: staff.token });

describe('staff-only surface', () => {
  it("refuses non-staff with 403 'Staff privileges required' and anonymous callers with 401", async () => {
    const user = await signUp(api);
    const calls = [
      api.get('/admin/users', { token: user.token }),
      api.get(`/admin/users/${user.id}`, { token: user.token }),
      api.patch(`/admin/users/${user.id}`, { is_staff: true }, { token: user.token }),
      api.post('/users', { email: uniqueEmail(), password: PASSWORD }, { token: user.token }),
    ];
    for (const res of await Promise.all(calls))
      expect([res.status, res.body]).toEqual([403, { detail: 'Staff privileges required' }]);
    expect((await api.get('/admin/users')).status).toBe(401);
  });
});

describe('GET /admin/users', () => {
  it('lists every account ordered by e-mail with the staff view of each', async () => {
    const a = await signUp(api, uniqueEmail('aaa'));
    const res = await api.get('/admin/users', asStaff());
    expect(res.status).toBe(200);
    const emails = res.body.map((u: { email: string }) => u.email);
    expect(emails).toEqual([...emails].sort());
    expect(emails).toEqual(expect.arrayContaining([STAFF_EMAIL, a.email]));
    const row = res.body.find((u: { id: string }) => u.id === a.id);
    expect(Object.keys(row).sort()).toEqual(ADMIN_USER_FIELDS);
    expect(row).toMatchObject({
      is_active: true,
      account_type: 'customer',
      can_create_projects: true,
      mfa_enabled: false,
      is_staff: false,
    });
    expect(row.last_login_at).toEqual(expect.any(String));
    expect(JSON.stringify(res.body)).not.toContain('argon2');
  });
});

describe('GET /admin/users/{user_id}', () => {
  it('shows one account; an unknown id is 404 and a malformed one 422', async () => {
    const user = await signUp(api);
    await enrolAuthenticator(api, user.token, new Date());
    const res = await api.get(`/admin/users/${user.id}`, asStaff());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email, mfa_enabled: true });
    const unknown = await api.get('/admin/users/00000000-0000-4000-8000-000000000000', asStaff());
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'User not found' }]);
    expect((await api.get('/admin/users/nope', asStaff())).status).toBe(422);
  });

  it('shows last_login_at null until the first sign-in', async () => {
    const created = await api.post('/users', { email: uniqueEmail('fresh'), password: PASSWORD }, asStaff());
    expect(created.body.last_login_at).toBeNull();
    await login(api, created.body.email, PASSWORD);
    expect((await api.get(`/admin/users/${created.body.id}`, asStaff())).body.last_login_at).toEqual(
      expect.any(String),
    );
  });
});

describe('blocking an account (PATCH is_active false)', () => {
  it('refuses its existing access token on the very next request, its refresh token and its sign-in', async () => {
    const user = await signUp(api);
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(200);
    const res = await api.patch(`/admin/users/${user.id}`, { is_active: false }, asStaff());
    expect(res.status).toBe(200);
    expect(res.body.is_active).toBe(false);
    const me = await api.get('/auth/me', { token: user.token });
    expect([me.status, me.body]).toEqual([401, { detail: 'User not found or inactive' }]);
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    const signIn = await login(api, user.email, PASSWORD);
    const unknown = await login(api, uniqueEmail('ghost'), PASSWORD);
    expect([signIn.status, signIn.text]).toEqual([401, '{"detail":"Invalid credentials"}']);
    expect(signIn.text).toBe(unknown.text);
    expect(signIn.cookies).toEqual([]);
  });

  it('unblocking lets the account sign in again, without reviving old sessions', async () => {
    const user = await signUp(api);
    await api.patch(`/admin/users/${user.id}`, { is_active: false }, asStaff());
    expect((await api.patch(`/admin/users/${user.id}`, { is_active: true }, asStaff())).body.is_active).toBe(true);
    expect((await api.get('/auth/me', { token: user.token })).status).toBe(401);
    expect((await api.post('/auth/token/refresh', { refresh_token: user.refresh })).status).toBe(401);
    const again = await login(api, user.email, PASSWORD);
    expect(again.status).toBe(200);
    expect((await api.get('/auth/me', { token: again.body.access_token })).status).toBe(200);
  });

  it('refuses to let staff block themselves', async () => {
    const res = await api.patch(`/admin/users/${staff.id}`, { is_active: false }, asStaff());
    expect([res.status, res.body]).toEqual([400, { detail: 'You cannot deactivate your own account' }]);
    const unstaff = await api.patch(`/admin/users/${staff.id}`, { is_staff: false }, asStaff());
    expect([unstaff.status, unstaff.body]).toEqual([400, { detail: 'You cannot remove your own staff privileges' }]);
    expect((await api.get('/admin/users', asStaff())).status).toBe(200);
  });
});

describe('changing class and staff standing (PATCH)', () => {
  it('derives can_create_projects from account_type on every read', async () => {
    const user = await signUp(api);
    const moved = await api.patch(`/admin/users/${user.id}`, { account_type: 'project_user' }, asStaff());
    expect(moved.body).toMatchObject({ account_type: 'project_user', can_create_projects: false });
    const back = await api.patch(`/admin/users/${user.id}`, { account_type: 'customer' }, asStaff());
    expect(back.body).toMatchObject({ account_type: 'customer', can_create_projects: true });
    expect((await api.get(`/admin/users/${user.id}`, asStaff())).body.can_create_projects).toBe(true);
  });

  it('grants and withdraws staff privileges, effective on the next request', async () => {
    const user = await signUp(api);
    const granted = await api.patch(`/admin/users/${user.id}`, { is_staff: true, admin_role: 'support' }, asStaff());
    expect(granted.body).toMatchObject({ is_staff: true, admin_role: 'support', account_type: 'customer' });
    expect((await api.get('/admin/users', { token: user.token })).status).toBe(200);
    expect((await api.get('/auth/me', { token: user.token })).body).toMatchObject({
      is_staff: true,
      admin_role: 'support',
    });
    await api.patch(`/admin/users/${user.id}`, { is_staff: false, admin_role: null }, asStaff());
    expect((await api.get('/admin/users', { token: user.token })).status).toBe(403);
  });

  it('answers 422 naming a bad field, 404 for an unknown account', async () => {
    const user = await signUp(api);
    const bad = await api.patch(`/admin/users/${user.id}`, { account_type: 'owner', is_active: 'no' }, asStaff());
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.account_type',
      'body.is_active',
    ]);
    const unknown = await api.patch(
      '/admin/users/00000000-0000-4000-8000-000000000000',
      { is_active: false },
      asStaff(),
    );
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'User not found' }]);
  });
});

describe('POST /users', () => {
  it('creates an account that can sign in (201, staff view)', async () => {
    const email = uniqueEmail('made');
    const res = await api.post('/users', { email, password: PASSWORD, name: 'Made By Staff' }, asStaff());
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ADMIN_USER_FIELDS);
    expect(res.body).toMatchObject({
      email,
      name: 'Made By Staff',
      account_type: 'customer',
      can_create_projects: true,
      is_active: true,
      last_login_at: null,
    });
    const signIn = await login(api, email, PASSWORD);
    expect(signIn.status).toBe(200);
    expect((await api.get('/me/subscription', { token: signIn.body.access_token })).body.plan.name).toBe('Free');
  });

  it('creates a project user or a staff account when asked', async () => {
    const pu = await api.post(
      '/users',
      { email: uniqueEmail('pu'), password: PASSWORD, account_type: 'project_user' },
      asStaff(),
    );
    expect(pu.body).toMatchObject({ account_type: 'project_user', can_create_projects: false });
    const st = await api.post(
      '/users',
      { email: uniqueEmail('st'), password: PASSWORD, account_type: 'staff', is_staff: true },
      asStaff(),
    );
    expect(st.body).toMatchObject({ account_type: 'staff', is_staff: true });
  });

  it('refuses a taken address (400) and answers 422 for a short password or malformed address', async () => {
    const user = await signUp(api);
    const dup = await api.post('/users', { email: user.email, password: PASSWORD }, asStaff());
    expect([dup.status, dup.body]).toEqual([400, { detail: 'Email already registered' }]);
    const bad = await api.post('/users', { email: 'nope', password: 'short' }, asStaff());
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.email',
      'body.password',
    ]);
  });
});
