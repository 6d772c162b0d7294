import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { faults, persist } from '../helpers/faults.ts';
import { ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { faultCounts } from '#shared/faults';
import { keys } from '#db/keys';

const ref = useTestStack();
const api = client(() => ref.stack.url);

afterEach(() => faults(''));

describe('injected DynamoDB faults', () => {
  it('lose nothing acknowledged and double nothing: creates, renames and deletes with keys, counters exact', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    faults('ddb.throttle:0.1,ddb.error:0.04,ddb.unavailable:0.04,ddb.timeout-after-write:0.05,ddb.conflict:0.05', 7);
    const post = (body: object) => {
      const key = randomUUID();
      return persist(() => api.post('/services', body, { token, headers: { 'idempotency-key': key } }));
    };
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post({ name: `svc-${i}`, project_id: projectId, environment_id: envId })),
    );
    for (const c of created) expect(c.status, c.text).toBe(201);
    const ids = created.map((c) => c.body.id as string);
    const renamed = await Promise.all(
      ids
        .slice(0, 6)
        .map((id) => persist(() => api.patch(`/services/${id}`, { name: `renamed-${id.slice(0, 8)}` }, { token }))),
    );
    for (const r of renamed) expect(r.status, r.text).toBe(200);
    const deleted = await Promise.all(
      ids.slice(10).map((id) => persist(() => api.delete(`/services/${id}`, undefined, { token }))),
    );
    // A delete retried after it took effect finds nothing left to delete: gone either way.
    for (const d of deleted) expect([204, 404]).toContain(d.status);
    const counts = faultCounts();
    faults('', 1);

    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
    const listed = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token });
    const expected = ids
      .slice(0, 10)
      .map((id, i) => (i < 6 ? `renamed-${id.slice(0, 8)}` : `svc-${i}`))
      .sort();
    expect((listed.body as { name: string }[]).map((s) => s.name).sort()).toEqual(expected);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(10);
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(10);
  });

  it('answers a dependency that keeps failing with a clean 503 and Retry-After, and the retry with the key succeeds once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const body = { name: 'after-outage', project_id: projectId, environment_id: envId };
    const key = randomUUID();
    faults('ddb.unavailable:1', 3);
    const refused = await api.post('/services', body, { token, headers: { 'idempotency-key': key } });
    faults('', 1);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ detail: 'The service is briefly unavailable. Please retry.' });
    const retried = await api.post('/services', body, { token, headers: { 'idempotency-key': key } });
    expect(retried.status).toBe(201);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(1);
  });

  it('replays a seed: the same FAULTS and seed strike the same calls', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const run = async () => {
      faults('ddb.throttle:0.3', 42);
      for (let i = 0; i < 5; i++)
        expect(
          (await persist(() => api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token }))).status,
        ).toBe(200);
      const counts = faultCounts();
      faults('', 1);
      return counts;
    };
    const first = await run();
    expect(first['ddb.throttle']).toBeGreaterThan(0);
    expect(await run()).toEqual(first);
  });
});
