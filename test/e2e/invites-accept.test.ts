import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail, type Client } from '../helpers/http.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { enrolAuthenticator, frozenClock } from '../helpers/sign-in.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { appContext } from '#shared/context';
import { keys } from '#db/keys';
import { listSubscriptions } from '#domain/billing';
import { ensureStaff } from '#domain/identity';

const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test' }, { clock });
const api: Client = client(() => ref.stack.url);

const NEW_PASSWORD = 'a brand new passphrase';
const ACCOUNT_EXISTS =
  'An account already exists for this address. Sign in as that account and open the invitation link again, or reset your password if you cannot sign in.';
const TableName = () => config().TABLE_NAME;

let staffToken = '';
beforeAll(async () => {
  await ensureStaff(appContext(), { email: 'staff-invites@example.com', password: PASSWORD });
  staffToken = (await api.post('/auth/login', { email: 'staff-invites@example.com', password: PASSWORD })).body
    .access_token;
});
/** The internal account attributes, as staff see them. */
const adminView = async (userId: string) => (await api.get(`/admin/users/${userId}`, { token: staffToken })).body;

async function ownerWithProject() {
  const owner = await signUp(api);
  return { owner, ...(await projectWithEnv(api, owner.token)) };
}

/** Invites `email` and answers the invitation and the token read from the mailed link. */
async function invite(ownerToken: string, projectId: string, email: string, extra: object = {}) {
  const res = await api.post(
    '/invites',
    { project_id: projectId, invited_email: email, ...extra },
    { token: ownerToken },
  );
  expect(res.status, res.text).toBe(201);
  await ref.stack.queues.drain();
  // The latest invitation mail (the address may have had other mail: mail, like SQS, keeps no order among what was asked for at one instant).
  const mails = (await readOutbox(ref.stack.dataDir, { to: email })).filter((m) =>
    m.text.includes('/invitations/accept?'),
  );
  const token = linkFrom(mails[mails.length - 1], '/invitations/accept').searchParams.get('token')!;
  return { invite: res.body, token };
}

const byToken = (body: object, token?: string) => api.post('/invites/accept/by-token', body, token ? { token } : {});
const login = (email: string, password: string) => api.post('/auth/login', { email, password });
/** An account that registered and has never signed in. */
async function registeredOnly(email = uniqueEmail('dormant')) {
  const reg = await api.post('/auth/register', { email, password: PASSWORD });
  expect(reg.status).toBe(201);
  return { id: reg.body.id as string, email };
}
async function cancelSubscriptions(userId: string) {
  for (const s of await listSubscriptions(userId)) {
    await ddb().send(
      new UpdateCommand({
        TableName: TableName(),
        Key: keys.subscription(userId, s.id),
        UpdateExpression: 'SET #s = :c',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':c': 'cancelled' },
      }),
    );
  }
}
const invitesOf = async (ownerToken: string, projectId: string) =>
  (await api.get(`/invites?project_id=${projectId}`, { token: ownerToken })).body;
const projectIdsOf = async (token: string) =>
  (await api.get('/projects', { token })).body.map((p: { id: string }) => p.id);

describe('POST /invites/accept/by-token', () => {
  it('case 1: creates a project_user account for an address without one, links it to the project and signs it in', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const email = uniqueEmail('newcomer');
    const { invite: created, token } = await invite(owner.token, projectId, email, {
      role: 'manager',
      environment_id: envId,
      first_name: 'Nia',
    });
    const res = await byToken({ token, password: NEW_PASSWORD, name: 'Nia Newcomer' });
    expect(res.status, res.text).toBe(200);
    const b = res.body;
    for (const field of [
      'access_token',
      'environment_id',
      'group_id',
      'subgroup_id',
      'accepted',
      'created_at',
      'accepted_at',
      'token',
      'expires_at',
    ]) {
      expect(b).toHaveProperty(field);
    }
    expect(b).toMatchObject({
      ...created,
      accepted: true,
      accepted_at: clock.now().toISOString(),
      environment_id: envId,
      group_id: null,
      subgroup_id: null,
      token_type: 'bearer',
    });
    expect(b.token).toBe(b.access_token);
    expect(res.text).not.toContain(token);
    expect(res.cookies.some((c) => c.startsWith('access_token='))).toBe(true);

    const me = await api.get('/auth/me', { token: b.access_token });
    expect(me.body).toMatchObject({ email, name: 'Nia Newcomer' });
    // Its security log: created and signed in by the acceptance (in its transaction), by the link's holder, from where it was accepted.
    const seclog = await api.get('/auth/me/security-log', { token: b.access_token });
    expect(seclog.status, seclog.text).toBe(200);
    expect(seclog.body.map((e: { event: string }) => e.event)).toEqual(['sign_in.succeeded', 'account.created']);
    expect(seclog.body[0]).toMatchObject({
      actor: 'self',
      actor_id: me.body.id,
      details: { via: 'invitation', second_factor: null },
      source_ip: expect.any(String),
      request_id: expect.any(String),
    });
    expect(seclog.body[1]).toMatchObject({
      actor: 'self',
      details: { via: 'invitation', account_type: 'project_user' },
    });
    expect(seclog.text).not.toContain(token);
    expect(seclog.text).not.toContain(NEW_PASSWORD);
    expect(await projectIdsOf(b.access_token)).toEqual([projectId]);
    const roles = await api.get(`/environments/${envId}/roles`, { token: owner.token });
    expect(roles.body).toContainEqual({
      id: expect.any(String),
      environment_id: envId,
      user_id: me.body.id,
      role: 'manager',
    });
    expect(await adminView(me.body.id)).toMatchObject({
      account_type: 'project_user',
      can_create_projects: false,
      last_login_at: clock.now().toISOString(),
    });
    expect((await api.get('/me/subscription', { token: b.access_token })).status).toBe(404);
    expect((await api.post('/projects', { name: 'mine' }, { token: b.access_token })).body).toEqual({
      detail: 'You are not allowed to create projects',
    });
    expect((await login(email, NEW_PASSWORD)).status).toBe(200);
    expect((await invitesOf(owner.token, projectId))[0]).toMatchObject({ id: created.id, accepted: true });
  });

  it("case 4: 400 'A password is required to create an account for this invitation' and nothing is created", async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('nopassword');
    const { token } = await invite(owner.token, projectId, email);
    for (const body of [{ token }, { token, password: '' }, { token, password: null }]) {
      const res = await byToken(body);
      expect([res.status, res.body]).toEqual([
        400,
        { detail: 'A password is required to create an account for this invitation' },
      ]);
    }
    expect((await login(email, PASSWORD)).body).toEqual({ detail: 'Invalid credentials' });
    expect((await invitesOf(owner.token, projectId))[0].accepted).toBe(false);
    const weak = await byToken({ token, password: 'short' });
    expect([weak.status, weak.body]).toEqual([400, { detail: 'Password must be at least 8 characters long' }]);
    expect((await byToken({ token, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('case 2: an account that has signed in before cannot be claimed without signing in (409, password untouched, no session)', async () => {
    const { owner, projectId } = await ownerWithProject();
    const victim = await signUp(api);
    const other = await signUp(api);
    const { token } = await invite(owner.token, projectId, victim.email);
    const sessionsBefore = (await api.get('/auth/sessions', { token: victim.token })).body.length;
    for (const [body, as] of [
      [{ token, password: NEW_PASSWORD }],
      [{ token }],
      [{ token, password: NEW_PASSWORD }, other.token],
      [{ token, password: NEW_PASSWORD }, 'not-a-jwt'],
    ] as const) {
      const res = await byToken(body, as);
      expect([res.status, res.body]).toEqual([409, { detail: ACCOUNT_EXISTS }]);
      expect(res.cookies).toEqual([]);
    }
    expect((await login(victim.email, NEW_PASSWORD)).body).toEqual({ detail: 'Invalid credentials' });
    const stillMine = await login(victim.email, PASSWORD);
    expect(stillMine.status).toBe(200);
    expect((await api.get('/auth/sessions', { token: stillMine.body.access_token })).body).toHaveLength(
      sessionsBefore + 1,
    ); // only the login above
    expect((await invitesOf(owner.token, projectId))[0].accepted).toBe(false);
    expect(await projectIdsOf(victim.token)).toEqual([]);
  });

  it('case 2: accepted for the account when the caller is signed in as exactly the invited address; no new session', async () => {
    const { owner, projectId } = await ownerWithProject();
    const invitee = await signUp(api);
    const { invite: created, token } = await invite(owner.token, projectId, invitee.email.toUpperCase());
    const res = await byToken({ token, password: 'ignored entirely' }, invitee.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...created, accepted: true, accepted_at: clock.now().toISOString() });
    expect(res.cookies).toEqual([]);
    expect(await projectIdsOf(invitee.token)).toEqual([projectId]);
    expect((await api.get('/auth/sessions', { token: invitee.token })).body).toHaveLength(1);
    expect((await login(invitee.email, PASSWORD)).status).toBe(200);
  });

  it('case 3: an account that never signed in and has no authenticator sets its password, is signed in, and the exception closes', async () => {
    const { owner, projectId } = await ownerWithProject();
    const dormant = await registeredOnly();
    clock.advance(1000);
    const { token } = await invite(owner.token, projectId, dormant.email);
    const missing = await byToken({ token });
    expect([missing.status, missing.body]).toEqual([
      400,
      { detail: 'A password is required to claim this invitation' },
    ]);
    const res = await byToken({ token, password: NEW_PASSWORD });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ accepted: true, token: res.body.access_token });
    // The claim is a sign-in in the security log (the refused attempt without a password wrote nothing).
    const seclog = (await api.get('/auth/me/security-log', { token: res.body.access_token })).body as {
      event: string;
      actor: string;
      details: object;
    }[];
    expect(seclog.map((e) => e.event)).toEqual(['sign_in.succeeded', 'account.created']);
    expect(seclog[0]).toMatchObject({
      actor: 'self',
      details: { via: 'invitation', password_set: true, second_factor: null },
    });
    expect((await api.get('/auth/me', { token: res.body.access_token })).body.id).toBe(dormant.id);
    expect((await adminView(dormant.id)).last_login_at).toBe(clock.now().toISOString());
    expect((await login(dormant.email, PASSWORD)).status).toBe(401);
    expect((await login(dormant.email, NEW_PASSWORD)).status).toBe(200);
    // It has signed in now: a second invitation cannot set its password any more.
    const second = await ownerWithProject();
    const again = await invite(second.owner.token, second.projectId, dormant.email);
    const refused = await byToken({ token: again.token, password: 'yet another passphrase' });
    expect([refused.status, refused.body]).toEqual([409, { detail: ACCOUNT_EXISTS }]);
  });

  it('case 3 excludes accounts with an authenticator and blocked accounts', async () => {
    const { owner, projectId } = await ownerWithProject();
    const guarded = await signUp(api);
    await enrolAuthenticator(api, guarded.token, clock.now());
    // Its last login unknown (as for an account that predates login tracking): the authenticator alone must exclude it.
    await ddb().send(
      new UpdateCommand({
        TableName: TableName(),
        Key: keys.account(guarded.id),
        UpdateExpression: 'SET last_login_at = :null',
        ExpressionAttributeValues: { ':null': null },
      }),
    );
    const blocked = await registeredOnly();
    expect((await api.patch(`/admin/users/${blocked.id}`, { is_active: false }, { token: staffToken })).status).toBe(
      200,
    );
    for (const email of [guarded.email, blocked.email]) {
      const { token } = await invite(owner.token, projectId, email);
      const res = await byToken({ token, password: NEW_PASSWORD });
      expect([res.status, res.body]).toEqual([409, { detail: ACCOUNT_EXISTS }]);
    }
    expect((await adminView(guarded.id)).last_login_at).toBeNull();
  });

  it("case 5: an unknown token is 404 'Invitation not found'; a missing token is 422", async () => {
    const known = await signUp(api);
    for (const token of ['x'.repeat(43), 'unknown', known.token]) {
      const res = await byToken({ token, password: NEW_PASSWORD });
      expect([res.status, res.body]).toEqual([404, { detail: 'Invitation not found' }]);
    }
    expect((await byToken({ password: NEW_PASSWORD })).status).toBe(422);
  });

  it("a used link answers 400 'Invitation already accepted'; an expired one 400 'Invitation expired'", async () => {
    const { owner, projectId } = await ownerWithProject();
    const used = await invite(owner.token, projectId, uniqueEmail('used'));
    expect((await byToken({ token: used.token, password: NEW_PASSWORD })).status).toBe(200);
    const again = await byToken({ token: used.token, password: NEW_PASSWORD });
    expect([again.status, again.body]).toEqual([400, { detail: 'Invitation already accepted' }]);

    const late = await invite(owner.token, projectId, uniqueEmail('late'));
    clock.advance(24 * 3_600_000);
    const expired = await byToken({ token: late.token, password: NEW_PASSWORD });
    expect([expired.status, expired.body]).toEqual([400, { detail: 'Invitation expired' }]);
  });

  it('accepts one of two concurrent uses of the same link (5 rounds), the loser leaving no security-log entry', async () => {
    const { owner, projectId } = await ownerWithProject();
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('racer');
      const { token } = await invite(owner.token, projectId, email);
      const results = await Promise.all([
        byToken({ token, password: NEW_PASSWORD }),
        byToken({ token, password: 'another passphrase' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body).toEqual({ detail: 'Invitation already accepted' });
      const winner = results.find((r) => r.status === 200)!;
      expect((await api.get('/auth/me', { token: winner.body.access_token })).body.email).toBe(email);
      // The losing use left no entry: one creation, one sign-in.
      expect(
        (await api.get('/auth/me/security-log', { token: winner.body.access_token })).body.map(
          (e: { event: string }) => e.event,
        ),
      ).toEqual(['sign_in.succeeded', 'account.created']);
      expect((await projectMembers(owner.token, projectId)).filter((m) => m.email === email)).toHaveLength(1);
    }
  });
});

const projectMembers = async (token: string, projectId: string) =>
  (await api.get(`/projects/members/${projectId}`, { token })).body as { user_id: string; email: string }[];

describe('POST /invites/{id}/accept', () => {
  it('makes the signed-in invitee a member with the role (viewer by default) and the group scope recorded on it', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const groupId = randomUUID();
    const now = clock.now().toISOString();
    await ddb().send(
      new PutCommand({
        TableName: TableName(),
        Item: {
          ...keys.group(projectId, envId, groupId),
          id: groupId,
          environment_id: envId,
          name: 'edge',
          created_at: now,
          updated_at: now,
          deleted_at: null,
        },
      }),
    );
    const invitee = await signUp(api);
    const { invite: created } = await invite(owner.token, projectId, invitee.email, {
      environment_id: envId,
      group_id: groupId,
    });
    const res = await api.post(`/invites/${created.id}/accept`, undefined, { token: invitee.token });
    expect(res.status, res.text).toBe(204);
    expect(await projectIdsOf(invitee.token)).toEqual([projectId]);
    const roles = (await api.get(`/environments/${envId}/roles`, { token: owner.token })).body;
    expect(roles).toContainEqual({
      id: expect.any(String),
      environment_id: envId,
      user_id: invitee.id,
      role: 'viewer',
    });
    const stored = (
      await ddb().send(new GetCommand({ TableName: TableName(), Key: keys.envRole(projectId, envId, invitee.id) }))
    ).Item;
    expect(stored).toMatchObject({ group_id: groupId, subgroup_id: null, invitation_id: created.id });
    expect((await invitesOf(owner.token, projectId))[0]).toMatchObject({
      accepted: true,
      accepted_at: clock.now().toISOString(),
    });
  });

  it('checks identity first: another address gets the same 404 as an unknown id, even for a used or expired invitation', async () => {
    const { owner, projectId } = await ownerWithProject();
    const invitee = await signUp(api);
    const intruder = await signUp(api);
    const { invite: created } = await invite(owner.token, projectId, invitee.email);
    const unknown = await api.post(`/invites/${randomUUID()}/accept`, undefined, { token: intruder.token });
    expect([unknown.status, unknown.text]).toEqual([404, JSON.stringify({ detail: 'Invitation not found' })]);
    expect((await api.post(`/invites/${created.id}/accept`, undefined, { token: intruder.token })).text).toBe(
      unknown.text,
    );
    expect((await api.post(`/invites/${created.id}/accept`, undefined, { token: invitee.token })).status).toBe(204);
    expect((await api.post(`/invites/${created.id}/accept`, undefined, { token: intruder.token })).text).toBe(
      unknown.text,
    );
    expect(await projectIdsOf(intruder.token)).toEqual([]);
    expect((await api.post(`/invites/${created.id}/accept`)).status).toBe(401);
  });

  it("then answers 400 'Invitation already accepted', or 'Invitation expired' for an expired or revoked one", async () => {
    const { owner, projectId } = await ownerWithProject();
    const invitee = await signUp(api);
    const accepted = (await invite(owner.token, projectId, invitee.email)).invite;
    expect((await api.post(`/invites/${accepted.id}/accept`, undefined, { token: invitee.token })).status).toBe(204);
    const twice = await api.post(`/invites/${accepted.id}/accept`, undefined, { token: invitee.token });
    expect([twice.status, twice.body]).toEqual([400, { detail: 'Invitation already accepted' }]);

    const revoked = (await invite(owner.token, projectId, invitee.email)).invite;
    await api.delete(`/invites/${revoked.id}`, undefined, { token: owner.token });
    const afterRevoke = await api.post(`/invites/${revoked.id}/accept`, undefined, { token: invitee.token });
    expect([afterRevoke.status, afterRevoke.body]).toEqual([400, { detail: 'Invitation expired' }]);

    const late = (await invite(owner.token, projectId, invitee.email)).invite;
    clock.advance(24 * 3_600_000 + 1000);
    const fresh = await login(invitee.email, PASSWORD); // access tokens from a day ago have expired too
    const expired = await api.post(`/invites/${late.id}/accept`, undefined, { token: fresh.body.access_token });
    expect([expired.status, expired.body]).toEqual([400, { detail: 'Invitation expired' }]);
  });

  it('applies the invited role to someone already a member, and gives an owner no role', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const member = await signUp(api);
    const granted = await grantRole(api, owner.token, envId, member.id, 'administrator');
    const forMember = (await invite(owner.token, projectId, member.email, { environment_id: envId, role: 'manager' }))
      .invite;
    expect((await api.post(`/invites/${forMember.id}/accept`, undefined, { token: member.token })).status).toBe(204);
    const forOwner = (await invite(owner.token, projectId, owner.email, { environment_id: envId })).invite;
    expect((await api.post(`/invites/${forOwner.id}/accept`, undefined, { token: owner.token })).status).toBe(204);
    const roles = (await api.get(`/environments/${envId}/roles`, { token: owner.token })).body;
    expect(roles).toEqual([{ id: granted.id, environment_id: envId, user_id: member.id, role: 'manager' }]);
    expect((await api.get('/projects', { token: owner.token })).body).toMatchObject([
      { id: projectId, is_owner: true },
    ]);
  });
});

describe('account class on acceptance (SPEC "Account class")', () => {
  /** Accepts an invitation into a fresh project for the signed-in account; answers its class afterwards. */
  async function classAfterAccepting(account: { id: string; email: string; token: string }, route: 'id' | 'token') {
    const { owner, projectId } = await ownerWithProject();
    const { invite: created, token } = await invite(owner.token, projectId, account.email);
    const res =
      route === 'id'
        ? await api.post(`/invites/${created.id}/accept`, undefined, { token: account.token })
        : await byToken({ token }, account.token);
    expect(res.status, res.text).toBeLessThan(300);
    return (await adminView(account.id)).account_type;
  }

  it('a customer with an active subscription stays customer', async () => {
    expect(await classAfterAccepting(await signUp(api), 'id')).toBe('customer');
  });

  it('a customer owning no project and with no active subscription becomes project_user (either route)', async () => {
    for (const route of ['id', 'token'] as const) {
      const customer = await signUp(api);
      await cancelSubscriptions(customer.id);
      expect(await classAfterAccepting(customer, route)).toBe('project_user');
    }
  });

  it('a customer owning a project stays customer, whatever its subscriptions; a deleted project does not count', async () => {
    const owning = await signUp(api);
    await projectWithEnv(api, owning.token);
    await cancelSubscriptions(owning.id);
    expect(await classAfterAccepting(owning, 'token')).toBe('customer');

    const deleted = await signUp(api);
    const { projectId } = await projectWithEnv(api, deleted.token);
    expect((await api.delete(`/projects/${projectId}`, undefined, { token: deleted.token })).status).toBe(204);
    await cancelSubscriptions(deleted.id);
    expect(await classAfterAccepting(deleted, 'id')).toBe('project_user');
  });

  it('staff never moves, and a project_user stays project_user', async () => {
    const email = `staff-${randomUUID()}@example.com`;
    const { account } = await ensureStaff(appContext(), { email, password: PASSWORD });
    const staff = { id: account.id, email, token: (await login(email, PASSWORD)).body.access_token };
    expect(await listSubscriptions(staff.id)).toEqual([]);
    expect(await classAfterAccepting(staff, 'id')).toBe('staff');

    const { owner, projectId } = await ownerWithProject();
    const email2 = uniqueEmail('pu');
    const first = await invite(owner.token, projectId, email2);
    const created = await byToken({ token: first.token, password: NEW_PASSWORD });
    const me = await api.get('/auth/me', { token: created.body.access_token });
    expect(
      await classAfterAccepting({ id: me.body.id, email: email2, token: created.body.access_token }, 'token'),
    ).toBe('project_user');
  });
});
