import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';

const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const ACCEPT_FIRST = 'Please accept your invitation via the email link before logging in';
const login = (email: string, password = PASSWORD) => api.post('/auth/login', { email, password });

/** A project owner and an address that registered but never signed in, invited into the project. */
async function invitedDormantAccount() {
  const owner = await signUp(api);
  const { projectId } = await projectWithEnv(api, owner.token);
  const email = uniqueEmail('dormant');
  expect((await api.post('/auth/register', { email, password: PASSWORD })).status).toBe(201);
  const invite = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
  expect(invite.status).toBe(201);
  return { owner, projectId, email, inviteId: invite.body.id as string };
}

describe('login while an invitation is pending', () => {
  it(`refuses an account that never signed in with 401 '${ACCEPT_FIRST}' until the invitation is accepted by its link`, async () => {
    const { email } = await invitedDormantAccount();
    expect((await login(email, 'a wrong passphrase')).body).toEqual({ detail: 'Invalid credentials' });
    const refused = await login(email);
    expect([refused.status, refused.body]).toEqual([401, { detail: ACCEPT_FIRST }]);
    expect(refused.cookies).toEqual([]);

    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: email });
    const token = linkFrom(mail, '/invitations/accept').searchParams.get('token');
    expect((await api.post('/invites/accept/by-token', { token, password: 'my chosen passphrase' })).status).toBe(200);
    expect((await login(email, 'my chosen passphrase')).status).toBe(200);
  });

  it('never locks out an account that has signed in before', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const active = await signUp(api);
    expect(
      (await api.post('/invites', { project_id: projectId, invited_email: active.email }, { token: owner.token }))
        .status,
    ).toBe(201);
    expect((await login(active.email)).status).toBe(200);
  });

  it('lets the account sign in once the invitation is revoked, has expired, or its project was deleted', async () => {
    const revoked = await invitedDormantAccount();
    expect((await api.delete(`/invites/${revoked.inviteId}`, undefined, { token: revoked.owner.token })).status).toBe(
      204,
    );
    expect((await login(revoked.email)).status).toBe(200);

    const deleted = await invitedDormantAccount();
    expect((await api.delete(`/projects/${deleted.projectId}`, undefined, { token: deleted.owner.token })).status).toBe(
      204,
    );
    expect((await login(deleted.email)).status).toBe(200);

    const expired = await invitedDormantAccount();
    expect((await login(expired.email)).body).toEqual({ detail: ACCEPT_FIRST });
    clock.advance(24 * 3_600_000);
    expect((await login(expired.email)).status).toBe(200);
  });
});
