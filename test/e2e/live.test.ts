import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { client, signUp } from '../helpers/http.ts';
import { createService, ownerWithEnv } from '../helpers/catalog.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { refusedUpgrade } from '../helpers/progress.ts';
import { follow, followUrl, liveTicket } from '../helpers/live.ts';

const ref = useTestStack({ LOCAL_STREAM_POLL_MS: '100' }, { withS3: true });
const api = client(() => ref.stack.url);

/** A kept change gone, as the 24-hour TTL removes it. */
const forgetChange = (envId: string, seq: number) =>
  ddb().send(new DeleteCommand({ TableName: config().TABLE_NAME, Key: keys.liveChange(envId, seq) }));

describe('live changes of an environment (POST /live/ticket, the WebSocket)', () => {
  it('sends a service created, renamed and deleted through the API, in seq order, each item as its GET answers it', async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const svc = await createService(api, o.token, o.projectId, o.envId, { name: 'checkout' });
    const created = await live.next((m) => m.id === svc.id && m.op === 'created');
    expect(created).toMatchObject({ kind: 'service', item: svc });
    const renamed = await api.patch(`/services/${svc.id}`, { name: 'checkout-v2' }, { token: o.token });
    expect(renamed.status, renamed.text).toBe(200);
    const updated = await live.next((m) => m.id === svc.id && m.op === 'updated');
    const got = await api.get(`/services/${svc.id}`, { token: o.token });
    expect(updated.item).toEqual(got.body);
    expect((await api.delete(`/services/${svc.id}`, undefined, { token: o.token })).status).toBe(204);
    const deleted = await live.next((m) => m.id === svc.id && m.op === 'deleted');
    expect(deleted.item).toBeUndefined();
    expect([created.seq + 1, created.seq + 2]).toEqual([updated.seq, deleted.seq]);
    live.close();
  });
});

describe('who follows an environment', () => {
  it('refuses a ticket exactly as GET /services refuses, and a follower of another project gets nothing of this one', async () => {
    const o = await ownerWithEnv(api);
    const other = await ownerWithEnv(api);
    const query = `/services?project_id=${o.projectId}&environment_id=${o.envId}`;
    const scope = { project_id: o.projectId, environment_id: o.envId };
    for (const token of [other.token, (await signUp(api)).token]) {
      const [list, ticket] = await Promise.all([api.get(query, { token }), api.post('/live/ticket', scope, { token })]);
      expect(list.status).toBe(404);
      expect([ticket.status, ticket.body.detail]).toEqual([list.status, list.body.detail]);
    }
    // Following the environment it may read, it hears nothing of this one.
    const live = await follow(api, other.token, { project_id: other.projectId, environment_id: other.envId });
    const here = await createService(api, o.token, o.projectId, o.envId);
    const there = await createService(api, other.token, other.projectId, other.envId);
    await live.next((m) => m.id === there.id);
    expect(live.messages.filter((m) => m.id === here.id)).toEqual([]);
    live.close();
  });

  // How soon it closes (5 s at most) is measured by npm run bench's live part, not asserted here.
  it("closes a member's connection on the member's removal from the project, and sends it nothing made after the removal was answered", async () => {
    const o = await ownerWithEnv(api);
    const viewer = await signUp(api);
    await grantRole(api, o.token, o.envId, viewer.id, 'viewer');
    const live = await follow(api, viewer.token, { project_id: o.projectId, environment_id: o.envId });
    const before = await createService(api, o.token, o.projectId, o.envId);
    await live.next((m) => m.id === before.id);
    const removed = await api.delete(`/projects/${o.projectId}/members/${viewer.id}`, undefined, { token: o.token });
    expect(removed.status, removed.text).toBe(204);
    const after = await createService(api, o.token, o.projectId, o.envId);
    const code = await live.closed;
    expect(code).toBe(1000);
    expect(live.messages.filter((m) => m.id === after.id)).toEqual([]);
  });

  it('closes the connection when its session is revoked', async () => {
    const o = await ownerWithEnv(api);
    const live = await follow(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const sessions = await api.get('/auth/sessions', { token: o.token });
    const current = (sessions.body as { id: string; current?: boolean }[]).find((s) => s.current) ?? sessions.body[0];
    expect((await api.delete(`/auth/sessions/${current.id}`, undefined, { token: o.token })).status).toBe(204);
    expect(await live.closed).toBe(1000);
  });
});

describe('tickets and resuming', () => {
  it('spends a ticket once: a second connection with it is refused', async () => {
    const o = await ownerWithEnv(api);
    const { url } = await liveTicket(api, o.token, { project_id: o.projectId, environment_id: o.envId });
    const live = await followUrl(url);
    expect(await refusedUpgrade(url)).toBe(401);
    live.close();
  });

  it('follows from when its ticket was issued: a change numbered before the socket opens is sent first', async () => {
    const o = await ownerWithEnv(api);
    const scope = { project_id: o.projectId, environment_id: o.envId };
    const probe = await follow(api, o.token, scope);
    const before = await createService(api, o.token, o.projectId, o.envId);
    const { seq } = await probe.next((m) => m.id === before.id);
    const ticket = await liveTicket(api, o.token, scope);
    expect(ticket.since).toBe(seq);
    // A since no change has reached yet is where the environment stands.
    expect((await liveTicket(api, o.token, { ...scope, since: seq + 1000 })).since).toBe(seq);
    // Made (and numbered: the probe heard it) after the ticket, before its socket opens.
    const meanwhile = await createService(api, o.token, o.projectId, o.envId);
    await probe.next((m) => m.id === meanwhile.id);
    probe.close();
    const live = await followUrl(ticket.url);
    const changes = live.messages.filter((m) => m.kind);
    expect(changes.map((m) => [m.id, m.seq])).toEqual([[meanwhile.id, seq + 1]]);
    expect(live.messages.find((m) => m.live)?.seq).toBe(seq + 1);
    live.close();
  });

  it('resumes with since across a forced disconnect: the changes made meanwhile come first, in order, then live ones', async () => {
    const o = await ownerWithEnv(api);
    const scope = { project_id: o.projectId, environment_id: o.envId };
    const first = await follow(api, o.token, scope);
    const a = await createService(api, o.token, o.projectId, o.envId);
    const seen = await first.next((m) => m.id === a.id);
    first.close();
    await first.closed;
    const missed = [];
    for (let i = 0; i < 3; i++) missed.push((await createService(api, o.token, o.projectId, o.envId)).id);
    const again = await follow(api, o.token, { ...scope, since: seen.seq });
    const later = await createService(api, o.token, o.projectId, o.envId);
    await again.next((m) => m.id === later.id);
    const changes = again.messages.filter((m) => m.kind);
    expect(changes.map((m) => m.id)).toEqual([...missed, later.id]);
    expect(changes.map((m) => m.seq)).toEqual([1, 2, 3, 4].map((n) => seen.seq + n));
    again.close();
  });

  it('tells a client whose since is no longer kept to reload', async () => {
    const o = await ownerWithEnv(api);
    const scope = { project_id: o.projectId, environment_id: o.envId };
    const probe = await follow(api, o.token, scope);
    await createService(api, o.token, o.projectId, o.envId);
    const second = await createService(api, o.token, o.projectId, o.envId);
    const { seq } = await probe.next((m) => m.id === second.id); // both numbered: 1 and 2
    probe.close();
    await forgetChange(o.envId, 1);
    const live = await follow(api, o.token, { ...scope, since: 0 });
    expect(live.messages[0]).toMatchObject({ reload: true, seq });
    live.close();
  });
});
