import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { createService, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { runningClock } from '../helpers/sign-in.ts';

/** The project audit log (entries written with each change; GET /projects/{id}/audit-log). */
/** Real time, moved on by hand where a test needs a moment strictly between two writes. */
const clock = runningClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const logPath = (projectId: string, query = '') => `/projects/${projectId}/audit-log${query ? `?${query}` : ''}`;

async function log(token: string, projectId: string, query = '') {
  const res = await api.get(logPath(projectId, query), { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>[];
}
const serviceEntries = async (token: string, projectId: string) => log(token, projectId, 'entity_type=service');

describe('the audit log of services', () => {
  it('records create, update and delete: three entries, newest first, with before/after, actor and origin', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const created = await createService(api, token, projectId, envId, { name: 'billing', port: 8080, tags: ['core'] });
    const patched = await api.patch(
      `/services/${created.id}`,
      { port: 9090, category: 'backend', name: 'billing' },
      { token, headers: { 'user-agent': 'audit-test/1.0' } },
    );
    expect(patched.status, patched.text).toBe(200);
    expect((await api.delete(`/services/${created.id}`, undefined, { token })).status).toBe(204);

    const entries = await serviceEntries(token, projectId);
    expect(entries.map((e) => e.action)).toEqual(['service.delete', 'service.update', 'service.create']);
    const [del, upd, crt] = entries;
    for (const e of entries) {
      expect(e).toMatchObject({
        entity_type: 'service',
        entity_id: created.id,
        project_id: projectId,
        environment_id: envId,
      });
      expect(e.actor).toEqual({ type: 'account', id: owner.id, email: owner.email, is_staff: false });
      expect(e.source_ip).toMatch(/127\.0\.0\.1/);
      expect(e.request_id).toEqual(expect.any(String));
    }
    expect(crt.before).toBeNull();
    expect(crt.after).toMatchObject({ name: 'billing', port: 8080, tags: ['core'], environment_id: envId });
    // Only the changed fields, before and after (the name was sent unchanged).
    expect(upd.before).toEqual({ port: 8080, category: null });
    expect(upd.after).toEqual({ port: 9090, category: 'backend' });
    expect(upd.user_agent).toBe('audit-test/1.0');
    expect(del.before).toMatchObject({ name: 'billing', port: 9090, category: 'backend' });
    expect(del.after).toBeNull();
    expect(Date.parse(del.at)).toBeGreaterThanOrEqual(Date.parse(upd.at));
    expect(Date.parse(upd.at)).toBeGreaterThanOrEqual(Date.parse(crt.at));
  });

  it('records nothing for an update that changes nothing', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId, { port: 1 });
    expect((await api.patch(`/services/${s.id}`, { port: 1 }, { token })).status).toBe(200);
    expect((await serviceEntries(token, projectId)).map((e) => e.action)).toEqual(['service.create']);
  });

  it('leaves no entry for a refused write: 403, 422, 400 and the plan limit', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const viewer = await signUp(api);
    await grantRole(api, token, envId, viewer.id, 'viewer');
    const s = await createService(api, token, projectId, envId);
    const before = await log(token, projectId);

    const refused = [
      await api.post('/services', { name: 'x', project_id: projectId, environment_id: envId }, { token: viewer.token }),
      await api.patch(`/services/${s.id}`, { port: 2 }, { token: viewer.token }),
      await api.delete(`/services/${s.id}`, undefined, { token: viewer.token }),
      await api.post('/services', { name: 'x', project_id: projectId, environment_id: envId, port: 70000 }, { token }),
      await api.patch(`/services/${s.id}`, { port: 'eighty' }, { token }),
      await api.post(
        '/services',
        { name: 'x', project_id: projectId, environment_id: envId, service_floor_id: randomUUID() },
        { token },
      ),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 422, 422, 400]);
    // Free: 5 services per project; the sixth is refused with the limit.
    for (let i = 0; i < 4; i++) await createService(api, token, projectId, envId);
    const limited = await api.post(
      '/services',
      { name: 'over', project_id: projectId, environment_id: envId },
      { token },
    );
    expect(limited.status, limited.text).toBe(403);

    const after = await log(token, projectId);
    expect(after.length).toBe(before.length + 4);
    expect(after.slice(0, 4).every((e) => e.action === 'service.create')).toBe(true);
    expect(after.slice(4)).toEqual(before);
  });

  it('leaves no entry for the write that loses a race (20 rounds of two deletes, and of two creates for the last slot)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    for (let round = 0; round < 20; round++) {
      const s = await createService(api, token, projectId, envId);
      const deletes = await Promise.all([0, 1].map(() => api.delete(`/services/${s.id}`, undefined, { token })));
      expect(deletes.map((d) => d.status).sort()).toEqual([204, 404]);
      const entries = await log(token, projectId, `entity_id=${s.id}`);
      expect(
        entries.map((e) => e.action),
        `round ${round}`,
      ).toEqual(['service.delete', 'service.create']);
    }
    // Four live services; two creates race for the fifth and last slot.
    for (let i = 0; i < 4; i++) await createService(api, token, projectId, envId);
    for (let round = 0; round < 20; round++) {
      const creates = await Promise.all(
        [0, 1].map((i) =>
          api.post(
            '/services',
            { name: `last-${round}-${i}`, project_id: projectId, environment_id: envId },
            { token },
          ),
        ),
      );
      expect(creates.map((c) => c.status).sort(), creates.map((c) => c.text).join()).toEqual([201, 403]);
      const winner = creates.find((c) => c.status === 201)!.body;
      const newest = await log(token, projectId, 'action=service.create&limit=2');
      expect(newest[0].entity_id, `round ${round}`).toBe(winner.id);
      // The loser's name appears nowhere in the log.
      const loser = creates.find((c) => c.status === 403)!;
      expect(loser.status).toBe(403);
      const all = await log(token, projectId, 'action=service.create&limit=500');
      expect(all.filter((e) => e.after?.name?.startsWith(`last-${round}-`))).toHaveLength(1);
      expect((await api.delete(`/services/${winner.id}`, undefined, { token })).status).toBe(204);
    }
  });

  it('keeps the creation entry and the latest entry without TTL; a replaced latest entry gets its retention (Team: 90 days)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId);
    for (const port of [1, 2]) expect((await api.patch(`/services/${s.id}`, { port }, { token })).status).toBe(200);
    const [second, first, creation] = await log(token, projectId, `entity_id=${s.id}`);
    const raw = async (e: Record<string, any>) => readItem(keys.auditEntry(projectId, e.at, e.id));
    const day = 24 * 3600;
    expect((await raw(creation))!.expires_at_epoch).toBeUndefined();
    expect((await raw(second))!.expires_at_epoch).toBeUndefined();
    expect((await raw(first))!.expires_at_epoch).toBe(Math.floor(Date.parse(first.at) / 1000) + 90 * day);
    expect((await readItem(keys.service(projectId, envId, s.id)))!.audit_head).toBe(
      keys.auditEntry(projectId, second.at, second.id).SK,
    );
    // The delete becomes the latest: the second update starts expiring.
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(204);
    expect((await raw(second))!.expires_at_epoch).toBe(Math.floor(Date.parse(second.at) / 1000) + 90 * day);
    expect((await raw(creation))!.expires_at_epoch).toBeUndefined();
  });
});

describe('the audit entries of updates that race', () => {
  /** Every entry of an entity but its creation and its latest (the one its item names as `audit_head`) has its TTL. */
  async function expectOnlyHeadKept(token: string, projectId: string, entityId: string, head: string, label: string) {
    const entries = await log(token, projectId, `entity_id=${entityId}&limit=500`);
    for (const e of entries) {
      const raw = (await readItem(keys.auditEntry(projectId, e.at, e.id)))!;
      const kept = e.action.endsWith('.create') || raw.SK === head;
      if (kept) expect(raw.expires_at_epoch, `${label}: ${e.action} kept`).toBeUndefined();
      else
        expect(raw.expires_at_epoch, `${label}: ${e.action} ${e.after ? JSON.stringify(e.after) : ''} expires`).toBe(
          Math.floor(Date.parse(e.at) / 1000) + 90 * 24 * 3600,
        );
    }
    return entries.length;
  }

  it('a service and a project user patched by 8 requests at once, 5 rounds: every answer 200, every replaced entry expires', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId);
    const person = (await api.post('/project-users', { project_id: projectId, name: 'Ada' }, { token })).body;
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => [
          api.patch(`/services/${s.id}`, { port: 1000 + round * 10 + i }, { token }),
          api.patch(`/project-users/${person.id}`, { job_title: `title ${round}.${i}` }, { token }),
        ]),
      );
      expect(
        answers.map((a) => a.status),
        answers.map((a) => a.text).join(),
      ).toEqual(answers.map(() => 200));
    }
    const serviceHead = (await readItem(keys.service(projectId, envId, s.id)))!.audit_head as string;
    expect(await expectOnlyHeadKept(token, projectId, s.id, serviceHead, 'service')).toBe(41);
    const personHead = (await readItem(keys.projectUser(projectId, person.id)))!.audit_head as string;
    expect(await expectOnlyHeadKept(token, projectId, person.id, personHead, 'project user')).toBe(41);
  });
});

describe('GET /projects/{project_id}/audit-log', () => {
  it('filters by entity, actor, type, action and time, and pages with the X-Next-Cursor header', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const manager = await signUp(api);
    await grantRole(api, token, envId, manager.id, 'manager');
    const a = await createService(api, token, projectId, envId, { name: 'a' });
    const b = await createService(api, manager.token, projectId, envId, { name: 'b' });
    expect((await api.patch(`/services/${a.id}`, { port: 5 }, { token: manager.token })).status).toBe(200);
    // A moment strictly after the writes above and before the ones below, without waiting for the wall clock.
    clock.advance(1);
    const mid = clock.now().toISOString();
    clock.advance(1);
    expect((await api.patch(`/services/${b.id}`, { port: 6 }, { token })).status).toBe(200);

    expect((await log(token, projectId, `entity_id=${a.id}`)).map((e) => e.action)).toEqual([
      'service.update',
      'service.create',
    ]);
    expect((await log(token, projectId, `actor_id=${manager.id}`)).map((e) => e.entity_id)).toEqual([a.id, b.id]);
    expect(
      (await log(token, projectId, `actor_id=${owner.id}&entity_type=service`)).map((e) => [e.action, e.entity_id]),
    ).toEqual([
      ['service.update', b.id],
      ['service.create', a.id],
    ]);
    expect((await log(token, projectId, `entity_id=${a.id}&actor_id=${manager.id}`)).map((e) => e.action)).toEqual([
      'service.update',
    ]);
    expect((await log(token, projectId, 'action=service.update')).map((e) => e.entity_id)).toEqual([b.id, a.id]);
    expect((await log(token, projectId, `since=${mid}&entity_type=service`)).map((e) => e.entity_id)).toEqual([b.id]);
    expect((await log(token, projectId, `until=${mid}&entity_type=service`)).map((e) => e.entity_id)).toEqual([
      a.id,
      b.id,
      a.id,
    ]);

    // Paging: two at a time through the four service entries, the cursor in a header.
    const all = await log(token, projectId, 'entity_type=service');
    const seen: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const res: { status: number; text: string; body: any; headers: Headers } = await api.get(
        logPath(projectId, `entity_type=service&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
        { token },
      );
      expect(res.status, res.text).toBe(200);
      expect(res.body.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.map((e: { id: string }) => e.id));
      cursor = res.headers.get('x-next-cursor');
      pages++;
    }
    expect(seen).toEqual(all.map((e) => e.id));
    expect(pages).toBeGreaterThanOrEqual(2);
    const last = await api.get(logPath(projectId, 'entity_type=service&limit=500'), { token });
    expect(last.headers.get('x-next-cursor')).toBeNull();
  });

  it('refuses a tampered cursor, a cursor of another query and bad parameters with 422', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (let i = 0; i < 3; i++) await createService(api, token, projectId, envId);
    const first = await api.get(logPath(projectId, 'limit=1'), { token });
    const cursor = first.headers.get('x-next-cursor')!;
    expect(cursor).toBeTruthy();
    expect((await api.get(logPath(projectId, `limit=1&cursor=${encodeURIComponent(cursor)}`), { token })).status).toBe(
      200,
    );
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const bad of [flipped, `${cursor}x`, 'not-a-cursor', cursor.split('.')[0]]) {
      const res = await api.get(logPath(projectId, `cursor=${encodeURIComponent(bad)}`), { token });
      expect(res.status, bad).toBe(422);
    }
    // A cursor of the project's partition does not page an entity's index.
    expect(
      (await api.get(logPath(projectId, `entity_id=${randomUUID()}&cursor=${encodeURIComponent(cursor)}`), { token }))
        .status,
    ).toBe(422);
    for (const q of ['limit=0', 'limit=501', 'limit=x', 'since=yesterday', 'entity_id=No-pe', 'actor_id=1']) {
      expect((await api.get(logPath(projectId, q), { token })).status, q).toBe(422);
    }
    // The project's and the environment's creation entries, then the three services'.
    expect((await log(token, projectId)).map((e) => e.action)).toEqual([
      'service.create',
      'service.create',
      'service.create',
      'environment.create',
      'project.create',
    ]);
    expect((await log(token, projectId, 'limit=2')).length).toBe(2);
  });

  it('is for the owner and holders of audit.read: a custom role with it reads, members and a role without it get 403', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await createService(api, token, projectId, envId);
    const roleWith = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'auditor', permissions: ['audit.read'] },
      { token },
    );
    const roleWithout = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'ops', permissions: ['services.manage'] },
      { token },
    );
    expect([roleWith.status, roleWithout.status]).toEqual([201, 201]);
    const auditor = await signUp(api);
    const ops = await signUp(api);
    const member = await signUp(api);
    for (const [role, user] of [
      [roleWith.body.id, auditor.id],
      [roleWithout.body.id, ops.id],
    ]) {
      const res = await api.post(
        `/projects/${projectId}/custom-roles/${role}/assignments`,
        { user_id: user },
        { token },
      );
      expect(res.status, res.text).toBe(201);
    }
    await grantRole(api, token, envId, member.id, 'administrator');

    const read = await api.get(logPath(projectId), { token: auditor.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.map((e: { action: string }) => e.action)).toContain('service.create');
    for (const who of [ops, member]) {
      const res = await api.get(logPath(projectId), { token: who.token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions to read the audit log of this project' });
    }
  });

  it('an environment-scoped audit.read shows only that environment’s entries', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const other = await api.post('/environments', { name: 'staging', project_id: projectId }, { token });
    const inEnv = await createService(api, token, projectId, envId);
    const inOther = await createService(api, token, projectId, other.body.id);
    const role = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'env-auditor', permissions: ['audit.read'] },
      { token },
    );
    const auditor = await signUp(api);
    expect(
      (
        await api.post(
          `/projects/${projectId}/custom-roles/${role.body.id}/assignments`,
          { user_id: auditor.id, environment_id: envId },
          { token },
        )
      ).status,
    ).toBe(201);
    const ids = (await log(auditor.token, projectId)).map((e) => e.entity_id);
    expect(ids).toContain(inEnv.id);
    expect(ids).not.toContain(inOther.id);
    expect((await log(token, projectId)).map((e) => e.entity_id)).toEqual(
      expect.arrayContaining([inEnv.id, inOther.id]),
    );
  });

  it("gives another project's log and an unknown project the byte-identical 404", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await createService(api, token, projectId, envId);
    const stranger = await signUp(api);
    const foreign = await api.get(logPath(projectId), { token: stranger.token });
    const random = await api.get(logPath(randomUUID()), { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe('{"detail":"Project not found"}');
    expect(random.text).toBe(foreign.text);
    // Index filters stay inside the caller's project: another project's entity id finds nothing here.
    const mine = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId);
    expect(await log(mine.token, mine.projectId, `entity_id=${s.id}`)).toEqual([]);
    expect((await api.get('/projects/x/audit-log', { token })).status).toBe(422);
  });
});
