import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { login } from '../helpers/sign-in.ts';

/** Staff who are not superusers cannot act on a superuser, nor hand out staff standing. */
const ROOT_EMAIL = 'root@catalog.example.com';
const ROOT_PASSWORD = 'staff passphrase 1';
const ref = useTestStack({ BOOTSTRAP_ADMIN_EMAIL: ROOT_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: ROOT_PASSWORD });
const api = client(() => ref.stack.url);

const SUPERUSER_ONLY = { detail: 'Only a superuser can change a superuser account' };
const STAFF_GRANT_ONLY = { detail: 'Only a superuser can grant or remove staff privileges' };

let root: { id: string; token: string };
let support: { id: string; token: string };
beforeAll(async () => {
  const res = await login(api, ROOT_EMAIL, ROOT_PASSWORD);
  root = { id: (await api.get('/auth/me', { token: res.body.access_token })).body.id, token: res.body.access_token };
  const email = uniqueEmail('support');
  const made = await api.post(
    '/users',
    { email, password: PASSWORD, account_type: 'staff', is_staff: true, admin_role: 'support' },
    { token: root.token },
  );
  expect(made.status).toBe(201);
  support = { id: made.body.id, token: (await login(api, email, PASSWORD)).body.access_token };
});

describe('staff who are not superusers', () => {
  it('cannot change a superuser account in any way (403), and the account stays as it was', async () => {
    const attempts = [
      { is_active: false },
      { is_staff: false },
      { account_type: 'customer' },
      { admin_role: 'nobody' },
      {},
    ];
    for (const body of attempts) {
      const res = await api.patch(`/admin/users/${root.id}`, body, { token: support.token });
      expect([res.status, res.body]).toEqual([403, SUPERUSER_ONLY]);
    }
    const after = await api.get(`/admin/users/${root.id}`, { token: support.token });
    expect(after.body).toMatchObject({
      is_active: true,
      is_staff: true,
      is_superuser: true,
      account_type: 'staff',
      admin_role: 'superuser',
    });
    expect((await api.get('/auth/me', { token: root.token })).status).toBe(200);
  });

  it('cannot create staff accounts nor grant or remove staff standing (403)', async () => {
    const creations = [{ is_staff: true }, { account_type: 'staff' }, { admin_role: 'support' }];
    for (const extra of creations) {
      const res = await api.post(
        '/users',
        { email: uniqueEmail('escalate'), password: PASSWORD, ...extra },
        { token: support.token },
      );
      expect([res.status, res.body]).toEqual([403, STAFF_GRANT_ONLY]);
    }
    const user = await signUp(api);
    for (const body of [{ is_staff: true }, { account_type: 'staff' }, { admin_role: 'support' }]) {
      const res = await api.patch(`/admin/users/${user.id}`, body, { token: support.token });
      expect([res.status, res.body]).toEqual([403, STAFF_GRANT_ONLY]);
    }
    const peer = await api.post(
      '/users',
      { email: uniqueEmail('peer'), password: PASSWORD, account_type: 'staff', is_staff: true },
      { token: root.token },
    );
    const demote = await api.patch(`/admin/users/${peer.body.id}`, { is_staff: false }, { token: support.token });
    expect([demote.status, demote.body]).toEqual([403, STAFF_GRANT_ONLY]);
    expect((await api.get(`/admin/users/${user.id}`, { token: support.token })).body).toMatchObject({
      is_staff: false,
      account_type: 'customer',
      admin_role: null,
    });
  });

  it('still block, unblock and reclassify ordinary accounts and create customer accounts', async () => {
    const user = await signUp(api);
    expect(
      (await api.patch(`/admin/users/${user.id}`, { is_active: false }, { token: support.token })).body.is_active,
    ).toBe(false);
    expect(
      (
        await api.patch(
          `/admin/users/${user.id}`,
          { is_active: true, account_type: 'project_user' },
          { token: support.token },
        )
      ).body,
    ).toMatchObject({ is_active: true, account_type: 'project_user' });
    const made = await api.post(
      '/users',
      { email: uniqueEmail('plain'), password: PASSWORD, is_staff: false },
      { token: support.token },
    );
    expect(made.status).toBe(201);
    expect((await api.get(`/admin/users/${root.id}`, { token: support.token })).status).toBe(200);
  });

  it('a superuser may do all of it', async () => {
    const user = await signUp(api);
    expect(
      (await api.patch(`/admin/users/${user.id}`, { is_staff: true, admin_role: 'support' }, { token: root.token }))
        .status,
    ).toBe(200);
    expect(
      (await api.patch(`/admin/users/${root.id}`, { admin_role: 'superuser' }, { token: root.token })).status,
    ).toBe(200);
  });
});
