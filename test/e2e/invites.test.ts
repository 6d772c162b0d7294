import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { scanAll } from '../helpers/dynamo.ts';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, uniqueEmail } from '../helpers/http.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { sha256 } from '#auth/tokens';
import { useLocalQueueTransport } from '#shared/queue';

const clock = frozenClock();
const ref = useTestStack({ APP_BASE_URL: 'https://catalog.example.test/' }, { clock });
const api = client(() => ref.stack.url);

/** Messages put on the events queue (the local runtime has no events worker yet; they are recorded, then passed on). */
const events: { project_id: string; event: { type: string; data: Record<string, unknown> } }[] = [];
let failMail = false;
beforeAll(() => {
  const previous = useLocalQueueTransport(async (queue, body) => {
    if (queue === 'events') events.push(JSON.parse(body));
    if (queue === 'mail' && failMail) throw new Error('queue unavailable');
    await previous?.(queue, body);
  });
});

const INVITE_FIELDS = [
  'accepted',
  'accepted_at',
  'created_at',
  'environment_id',
  'expires_at',
  'group_id',
  'id',
  'invited_by_user_id',
  'invited_email',
  'invited_first_name',
  'invited_last_name',
  'project_id',
  'role',
  'subgroup_id',
].sort();
const HOUR = 3_600_000;

async function ownerWithProject() {
  const owner = await signUp(api);
  return { owner, ...(await projectWithEnv(api, owner.token)) };
}

/** The token of the latest invitation mailed to `email`, read from the link in the mail. */
async function mailedToken(email: string): Promise<string> {
  await ref.stack.queues.drain();
  const mails = await readOutbox(ref.stack.dataDir, { to: email });
  expect(mails.length).toBeGreaterThan(0);
  return linkFrom(mails[mails.length - 1], '/invitations/accept').searchParams.get('token')!;
}

const TableName = () => config().TABLE_NAME;
async function putGroup(projectId: string, envId: string, extra: Record<string, unknown> = {}) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName: TableName(),
      Item: {
        ...keys.group(projectId, envId, id),
        type: 'group',
        id,
        project_id: projectId,
        environment_id: envId,
        name: `g-${id}`,
        created_at: now,
        updated_at: now,
        deleted_at: null,
        ...extra,
      },
    }),
  );
  return id;
}
async function putSubgroup(projectId: string, envId: string, groupId: string) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName: TableName(),
      Item: {
        ...keys.subgroup(projectId, envId, id),
        type: 'subgroup',
        id,
        project_id: projectId,
        environment_id: envId,
        group_id: groupId,
        name: `s-${id}`,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
    }),
  );
  return id;
}
/** The actions of an entity's audit entries, newest first. */
async function auditActions(token: string, projectId: string, entityId: string): Promise<string[]> {
  const res = await api.get(`/projects/${projectId}/audit-log?entity_id=${entityId}`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body as { action: string }[]).map((e) => e.action);
}
const userPartition = async (userId: string) =>
  (
    await ddb().send(
      new QueryCommand({
        TableName: TableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `USER#${userId}` },
        ConsistentRead: true,
      }),
    )
  ).Items;

describe('POST /invites', () => {
  it('answers 201 with exactly the InviteOut fields, valid for 24 hours, role viewer by default', async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('Invitee').replace('invitee', 'InViTeE');
    const res = await api.post(
      '/invites',
      { project_id: projectId, invited_email: email, first_name: 'Ada', last_name: 'Lovelace' },
      { token: owner.token },
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(INVITE_FIELDS);
    expect(res.body).toEqual({
      id: expect.any(String),
      project_id: projectId,
      invited_email: email.toLowerCase(),
      invited_first_name: 'Ada',
      invited_last_name: 'Lovelace',
      role: 'viewer',
      invited_by_user_id: owner.id,
      environment_id: null,
      group_id: null,
      subgroup_id: null,
      accepted: false,
      created_at: clock.now().toISOString(),
      accepted_at: null,
      expires_at: new Date(clock.now().getTime() + 24 * HOUR).toISOString(),
    });
  });

  it('mails a link <APP_BASE_URL>/invitations/accept?token=… (plain text and HTML) that no response carries; only its hash is stored', async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('mailed');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    await ref.stack.queues.drain();
    const [mail, ...others] = await readOutbox(ref.stack.dataDir, { to: email });
    expect(others).toEqual([]);
    const link = linkFrom(mail, '/invitations/accept');
    expect(link.origin).toBe('https://catalog.example.test');
    const token = link.searchParams.get('token')!;
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16); // ≥ 128 bits
    expect(mail.html).toContain(`href="${link.href}"`);
    expect(mail.text).not.toContain('<');
    const listed = await api.get(`/invites?project_id=${projectId}`, { token: owner.token });
    for (const text of [created.text, listed.text]) expect(text).not.toContain(token);
    const table = JSON.stringify(await scanAll(TableName()));
    expect(table).not.toContain(token);
    expect(table).toContain(sha256(token));
  });

  it('escapes user-provided names in the HTML part', async () => {
    const owner = await signUp(api);
    await api.patch('/auth/me', { name: 'Eve <script>alert(1)</script>' }, { token: owner.token });
    const project = await api.post('/projects', { name: 'R&D <b>core</b>' }, { token: owner.token });
    const email = uniqueEmail('escaped');
    await api.post(
      '/invites',
      { project_id: project.body.id, invited_email: email, first_name: '<img src=x>' },
      { token: owner.token },
    );
    await ref.stack.queues.drain();
    const [mail] = await readOutbox(ref.stack.dataDir, { to: email });
    expect(mail.html).not.toMatch(/<script|<b>|<img/);
    expect(mail.html).toContain('Eve &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('R&amp;D &lt;b&gt;core&lt;/b&gt;');
    expect(mail.text).toContain('Eve <script>alert(1)</script> invited you to join the project "R&D <b>core</b>"');
    expect(mail.subject).toBe('Eve <script>alert(1)</script> invited you to R&D <b>core</b> on Infrastructure Catalog');
  });

  it('writes nothing to the invited account', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const invitee = await signUp(api);
    const before = await userPartition(invitee.id);
    const res = await api.post(
      '/invites',
      { project_id: projectId, invited_email: invitee.email, role: 'manager', environment_id: envId },
      { token: owner.token },
    );
    expect(res.status).toBe(201);
    expect(await userPartition(invitee.id)).toEqual(before);
    expect((await api.get('/projects', { token: invitee.token })).body).toEqual([]);
  });

  it('writes user.invited with the invitation; it reaches the events queue', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const email = uniqueEmail('evented');
    const res = await api.post(
      '/invites',
      { project_id: projectId, invited_email: email, role: 'manager', environment_id: envId },
      { token: owner.token },
    );
    await ref.stack.queues.drain(); // the outbox is read into the events queue
    const published = events.filter((e) => e.event.type === 'user.invited' && e.event.data.invite_id === res.body.id);
    expect(published).toHaveLength(1);
    expect(published[0].project_id).toBe(projectId);
    expect(published[0].event).toMatchObject({
      id: expect.any(String),
      type: 'user.invited',
      timestamp: clock.now().toISOString(),
      data: {
        invite_id: res.body.id,
        project_id: projectId,
        invited_email: email,
        role: 'manager',
        environment_id: envId,
        invited_by_user_id: owner.id,
      },
    });
  });

  it('still creates the invitation when the mail cannot be queued', async () => {
    const { owner, projectId } = await ownerWithProject();
    failMail = true;
    try {
      const res = await api.post(
        '/invites',
        { project_id: projectId, invited_email: uniqueEmail('unmailed') },
        { token: owner.token },
      );
      expect(res.status).toBe(201);
      const listed = await api.get(`/invites?project_id=${projectId}`, { token: owner.token });
      expect(listed.body.map((i: { id: string }) => i.id)).toEqual([res.body.id]);
    } finally {
      failMail = false;
    }
  });

  it('records the environment, group and subgroup, and infers the group of a subgroup', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const groupId = await putGroup(projectId, envId);
    const subgroupId = await putSubgroup(projectId, envId, groupId);
    const both = await api.post(
      '/invites',
      {
        project_id: projectId,
        invited_email: uniqueEmail(),
        role: 'administrator',
        environment_id: envId,
        group_id: groupId,
        subgroup_id: subgroupId,
      },
      { token: owner.token },
    );
    expect(both.status).toBe(201);
    expect(both.body).toMatchObject({
      role: 'administrator',
      environment_id: envId,
      group_id: groupId,
      subgroup_id: subgroupId,
    });
    const subOnly = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail(), environment_id: envId, subgroup_id: subgroupId },
      { token: owner.token },
    );
    expect(subOnly.body).toMatchObject({ environment_id: envId, group_id: groupId, subgroup_id: subgroupId });
  });

  it('answers 400 for an environment, group or subgroup that is not a live one of the project', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const other = await ownerWithProject();
    const groupId = await putGroup(projectId, envId);
    const deletedGroup = await putGroup(projectId, envId, { deleted_at: new Date().toISOString() });
    const otherGroup = await putGroup(projectId, envId);
    const subgroupOfOther = await putSubgroup(projectId, envId, otherGroup);
    const invite = (extra: object) =>
      api.post('/invites', { project_id: projectId, invited_email: uniqueEmail(), ...extra }, { token: owner.token });
    const cases: [object, string][] = [
      [{ environment_id: other.envId }, 'Environment not found or does not belong to project'],
      [{ environment_id: randomUUID() }, 'Environment not found or does not belong to project'],
      [{ environment_id: envId, group_id: randomUUID() }, 'Group not found or does not belong to environment'],
      [{ environment_id: envId, group_id: deletedGroup }, 'Group not found or does not belong to environment'],
      [
        { environment_id: envId, group_id: groupId, subgroup_id: subgroupOfOther },
        'Subgroup not found or does not belong to group',
      ],
      [{ environment_id: envId, subgroup_id: randomUUID() }, 'Subgroup not found or does not belong to group'],
    ];
    for (const [extra, detail] of cases) {
      const res = await invite(extra);
      expect([res.status, res.body]).toEqual([400, { detail }]);
    }
    expect((await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body).toEqual([]);
  });

  it('validates the body (422) before looking anything up', async () => {
    const owner = await signUp(api);
    const foreign = randomUUID();
    const cases: [object, (string | number)[]][] = [
      [{ project_id: foreign }, ['body', 'invited_email']],
      [{ invited_email: uniqueEmail() }, ['body', 'project_id']],
      [{ project_id: foreign, invited_email: 'not-an-address' }, ['body', 'invited_email']],
      [{ project_id: foreign, invited_email: uniqueEmail(), role: 'owner' }, ['body', 'role']],
      [{ project_id: foreign, invited_email: uniqueEmail(), group_id: randomUUID() }, ['body', 'group_id']],
      [{ project_id: 'nope', invited_email: uniqueEmail() }, ['body', 'project_id']],
    ];
    for (const [body, loc] of cases) {
      const res = await api.post('/invites', body, { token: owner.token });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
  });

  it("answers 404 'Project not found' (byte-identical for unknown and foreign projects), 403 to a member who is not owner", async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const stranger = await signUp(api);
    const member = await signUp(api);
    await grantRole(api, owner.token, envId, member.id, 'administrator');
    const foreign = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail() },
      { token: stranger.token },
    );
    const unknown = await api.post(
      '/invites',
      { project_id: randomUUID(), invited_email: uniqueEmail() },
      { token: stranger.token },
    );
    expect([foreign.status, foreign.text]).toEqual([404, JSON.stringify({ detail: 'Project not found' })]);
    expect(unknown.text).toBe(foreign.text);
    const notOwner = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail() },
      { token: member.token },
    );
    expect([notOwner.status, notOwner.body]).toEqual([403, { detail: 'Project owner required' }]);
    expect((await api.post('/invites', { project_id: projectId, invited_email: uniqueEmail() })).status).toBe(401);
  });
});

describe('GET /invites', () => {
  it("lists a project's invitations newest first, to its owner only", async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await api.post('/invites', { project_id: projectId, invited_email: uniqueEmail() }, { token: owner.token }))
          .body.id,
      );
      clock.advance(1000);
    }
    const other = await ownerWithProject();
    await api.post(
      '/invites',
      { project_id: other.projectId, invited_email: uniqueEmail() },
      { token: other.owner.token },
    );
    const listed = await api.get(`/invites?project_id=${projectId}`, { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((i: { id: string }) => i.id)).toEqual([...ids].reverse());
    expect(Object.keys(listed.body[0]).sort()).toEqual(INVITE_FIELDS);

    const member = await signUp(api);
    await grantRole(api, owner.token, envId, member.id, 'viewer');
    expect((await api.get(`/invites?project_id=${projectId}`, { token: member.token })).body).toEqual({
      detail: 'Project owner required',
    });
    const stranger = await signUp(api);
    const foreign = await api.get(`/invites?project_id=${projectId}`, { token: stranger.token });
    expect([foreign.status, foreign.body]).toEqual([404, { detail: 'Project not found' }]);
    expect((await api.get('/invites', { token: owner.token })).status).toBe(422);
  });
});

describe('POST /invites/{id}/resend', () => {
  it('mails a new link valid 24 hours from now; the previous link stops working at once', async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('resent');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    const first = await mailedToken(email);
    clock.advance(10 * 60_000);
    const resent = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token });
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({
      ...created.body,
      expires_at: new Date(clock.now().getTime() + 24 * HOUR).toISOString(),
    });
    const second = await mailedToken(email);
    expect(second).not.toBe(first);
    expect(await readOutbox(ref.stack.dataDir, { to: email })).toHaveLength(2);
    const old = await api.post('/invites/accept/by-token', { token: first, password: 'a fresh passphrase' });
    expect([old.status, old.body]).toEqual([400, { detail: 'Invitation expired' }]);
    const fresh = await api.post('/invites/accept/by-token', { token: second, password: 'a fresh passphrase' });
    expect(fresh.status).toBe(200);
  });

  it("revives a revoked or expired invitation; an accepted one is refused 400 'Invitation already accepted'", async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('revived');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    // Mail keeps no order between two asked for before one delivery (the outbox, as SQS): the first is read before the second is asked for.
    const first = await mailedToken(email);
    expect((await api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token })).status).toBe(204);
    clock.advance(60_000); // past the invitation's one-mail-a-minute cooldown
    const revived = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token });
    expect(revived.body.expires_at).toBe(new Date(clock.now().getTime() + 24 * HOUR).toISOString());
    const second = await mailedToken(email);
    expect(second).not.toBe(first);
    const accepted = await api.post('/invites/accept/by-token', { token: second, password: 'a fresh passphrase' });
    expect(accepted.body.accepted).toBe(true);
    const refused = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token });
    expect([refused.status, refused.body]).toEqual([400, { detail: 'Invitation already accepted' }]);
    expect((await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body[0]).toMatchObject({
      accepted: true,
      accepted_at: accepted.body.accepted_at,
    });
  });

  it('refuses in SPEC order: 404 for an unknown id or a non-member (identical), then 403 for a non-owner member', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const created = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail() },
      { token: owner.token },
    );
    const stranger = await signUp(api);
    const member = await signUp(api);
    await grantRole(api, owner.token, envId, member.id, 'administrator');
    const unknown = await api.post(`/invites/${randomUUID()}/resend`, undefined, { token: owner.token });
    const foreign = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: stranger.token });
    expect([unknown.status, unknown.text]).toEqual([404, JSON.stringify({ detail: 'Invitation not found' })]);
    expect(foreign.text).toBe(unknown.text);
    const notOwner = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: member.token });
    expect([notOwner.status, notOwner.body]).toEqual([403, { detail: 'Project owner required' }]);
    expect((await api.post('/invites/not-a-uuid/resend', undefined, { token: owner.token })).status).toBe(422);
  });
});

describe('DELETE /invites/{id}', () => {
  it('sets expires_at to now and keeps the record; the link stops working at once', async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('revoked');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    const token = await mailedToken(email);
    clock.advance(60_000);
    const res = await api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token });
    expect(res.status).toBe(204);
    const listed = await api.get(`/invites?project_id=${projectId}`, { token: owner.token });
    expect(listed.body).toEqual([{ ...created.body, expires_at: clock.now().toISOString() }]);
    const accept = await api.post('/invites/accept/by-token', { token, password: 'a fresh passphrase' });
    expect([accept.status, accept.body]).toEqual([400, { detail: 'Invitation expired' }]);
  });

  it("a second DELETE of a revoked invitation answers 400 'Invitation expired' and changes nothing", async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('revoked-twice');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    clock.advance(60_000);
    expect((await api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token })).status).toBe(204);
    const revoked = (await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body;
    expect(revoked).toEqual([{ ...created.body, expires_at: clock.now().toISOString() }]);

    clock.advance(60_000);
    const again = await api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token });
    expect([again.status, again.body]).toEqual([400, { detail: 'Invitation expired' }]);
    expect((await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body).toEqual(revoked);
    expect(await auditActions(owner.token, projectId, created.body.id)).toEqual([
      'invitation.revoke',
      'invitation.create',
    ]);
    await ref.stack.queues.drain();
    expect(events.filter((e) => e.event.data.invite_id === created.body.id).map((e) => e.event.type)).toEqual([
      'user.invited',
    ]);

    // Still an expired record SPEC lets the owner resend: pending again, with a fresh link.
    const resent = await api.post(`/invites/${created.body.id}/resend`, undefined, { token: owner.token });
    expect([resent.status, resent.body]).toEqual([
      200,
      { ...created.body, expires_at: new Date(clock.now().getTime() + 24 * HOUR).toISOString() },
    ]);
    const accepted = await api.post('/invites/accept/by-token', {
      token: await mailedToken(email),
      password: 'a fresh passphrase',
    });
    expect(accepted.status, accepted.text).toBe(200);
  });

  it("answers 400 'Invitation expired' for an invitation expired by time and leaves its expiry as it was", async () => {
    const { owner, projectId } = await ownerWithProject();
    const created = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail('lapsed') },
      { token: owner.token },
    );
    clock.advance(25 * HOUR);
    const signedIn = await api.post('/auth/login', { email: owner.email, password: owner.password }); // the earlier access token has expired too
    const token = signedIn.body.access_token as string;
    const res = await api.delete(`/invites/${created.body.id}`, undefined, { token });
    expect([res.status, res.body]).toEqual([400, { detail: 'Invitation expired' }]);
    expect((await api.get(`/invites?project_id=${projectId}`, { token })).body).toEqual([created.body]);
    expect(await auditActions(token, projectId, created.body.id)).toEqual(['invitation.create']);
  });

  it('of two concurrent DELETEs of one pending invitation, exactly one answers 204 and the other 400, over 20 rounds', async () => {
    const { owner, projectId } = await ownerWithProject();
    for (let round = 0; round < 20; round++) {
      const created = await api.post(
        '/invites',
        { project_id: projectId, invited_email: uniqueEmail(`race-${round}`) },
        { token: owner.token },
      );
      expect(created.status, created.text).toBe(201);
      clock.advance(1000);
      const answers = await Promise.all(
        [0, 1].map(() => api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token })),
      );
      const seen = answers.map((a) => `${a.status} ${a.text}`).sort();
      expect(seen, `round ${round}`).toEqual(['204 ', `400 ${JSON.stringify({ detail: 'Invitation expired' })}`]);
      expect(await auditActions(owner.token, projectId, created.body.id), `round ${round}`).toEqual([
        'invitation.revoke',
        'invitation.create',
      ]);
      const listed = (await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body.find(
        (i: { id: string }) => i.id === created.body.id,
      );
      expect(listed.expires_at, `round ${round}`).toBe(clock.now().toISOString());
    }
  }, 60_000);

  it("answers 400 'Invitation already accepted' for an accepted invitation", async () => {
    const { owner, projectId } = await ownerWithProject();
    const email = uniqueEmail('kept');
    const created = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    expect(
      (await api.post('/invites/accept/by-token', { token: await mailedToken(email), password: 'a fresh passphrase' }))
        .status,
    ).toBe(200);
    const res = await api.delete(`/invites/${created.body.id}`, undefined, { token: owner.token });
    expect([res.status, res.body]).toEqual([400, { detail: 'Invitation already accepted' }]);
  });

  it('refuses in SPEC order: 404 for an unknown id or a non-member (identical), then 403 for a non-owner member', async () => {
    const { owner, projectId, envId } = await ownerWithProject();
    const created = await api.post(
      '/invites',
      { project_id: projectId, invited_email: uniqueEmail() },
      { token: owner.token },
    );
    const stranger = await signUp(api);
    const member = await signUp(api);
    await grantRole(api, owner.token, envId, member.id, 'manager');
    const unknown = await api.delete(`/invites/${randomUUID()}`, undefined, { token: member.token });
    const foreign = await api.delete(`/invites/${created.body.id}`, undefined, { token: stranger.token });
    expect([unknown.status, unknown.text]).toEqual([404, JSON.stringify({ detail: 'Invitation not found' })]);
    expect(foreign.text).toBe(unknown.text);
    const notOwner = await api.delete(`/invites/${created.body.id}`, undefined, { token: member.token });
    expect([notOwner.status, notOwner.body]).toEqual([403, { detail: 'Project owner required' }]);
    expect((await api.get(`/invites?project_id=${projectId}`, { token: owner.token })).body[0].expires_at).toBe(
      created.body.expires_at,
    );
  });
});
