import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { addFloor, addService, connect, ownerWithEnv } from '../helpers/topology.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const DUPLICATE = { detail: 'A connection between these two entities in this direction already exists' };
const svc = (a: string, b: string, extra: Record<string, unknown> = {}) => ({
  a_type: 'service',
  a_id: a,
  b_type: 'service',
  b_id: b,
  ...extra,
});

async function catalog() {
  const base = await ownerWithEnv(api);
  const { owner, projectId, envId } = base;
  const lb = await addService(api, owner.token, projectId, envId, 'lb');
  const app = await addService(api, owner.token, projectId, envId, 'api');
  const vm = await addFloor(api, owner.token, projectId, envId, 'vm-1');
  const scope = { project_id: projectId, environment_id: envId };
  const count = async () =>
    (
      (await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, { token: owner.token }))
        .body as unknown[]
    ).length;
  return { ...base, lb, app, vm, scope, count };
}

describe('duplicate connections (same two ends, same direction) are refused', () => {
  it('on a single create, whichever end is named first; another direction or a deleted one is no duplicate', async () => {
    const { owner, lb, app, scope, count } = await catalog();
    const first = (await connect(api, owner.token, { ...scope, ...svc(lb, app, { direction: 'a_to_b' }) })).id;
    const again = await api.post(
      '/service-connections',
      { ...scope, ...svc(lb, app, { direction: 'a_to_b', name: 'other name' }) },
      { token: owner.token },
    );
    expect(again.status).toBe(400);
    expect(again.body).toEqual(DUPLICATE);
    // app ← lb is the same edge as lb → app
    expect(
      (
        await api.post(
          '/service-connections',
          { ...scope, ...svc(app, lb, { direction: 'b_to_a' }) },
          { token: owner.token },
        )
      ).body,
    ).toEqual(DUPLICATE);
    expect(
      (
        await api.post(
          '/service-connections',
          { ...scope, ...svc(app, lb, { direction: 'a_to_b' }) },
          { token: owner.token },
        )
      ).status,
    ).toBe(201);
    await connect(api, owner.token, { ...scope, ...svc(lb, app, { direction: 'both' }) });
    expect(
      (
        await api.post(
          '/service-connections',
          { ...scope, ...svc(app, lb, { direction: 'both' }) },
          { token: owner.token },
        )
      ).body,
    ).toEqual(DUPLICATE);
    expect(await count()).toBe(3);
    expect((await api.delete(`/service-connections/${first}`, undefined, { token: owner.token })).status).toBe(204);
    expect(
      (
        await api.post(
          '/service-connections',
          { ...scope, ...svc(lb, app, { direction: 'a_to_b' }) },
          { token: owner.token },
        )
      ).status,
    ).toBe(201);
  });

  it('in a batch, against existing connections and within the batch itself; nothing is created', async () => {
    const { owner, lb, app, vm, scope, count } = await catalog();
    await connect(api, owner.token, { ...scope, ...svc(lb, app) });
    const clash = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'chain',
        items: [{ a_type: 'service', a_id: app, b_type: 'floor', b_id: vm }, svc(app, lb)],
      },
      { token: owner.token },
    );
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual(DUPLICATE);
    const twice = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'hub',
        items: [svc(app, lb, { direction: 'both' }), svc(lb, app, { direction: 'both' })],
      },
      { token: owner.token },
    );
    expect(twice.body).toEqual(DUPLICATE);
    expect(await count()).toBe(1);
  });

  it('on a direction change of a connection or of a whole chain', async () => {
    const { owner, lb, app, vm, scope } = await catalog();
    await connect(api, owner.token, { ...scope, ...svc(lb, app, { direction: 'both' }) });
    const other = (await connect(api, owner.token, { ...scope, ...svc(lb, app, { direction: 'none' }) })).id;
    const patched = await api.patch(`/service-connections/${other}`, { direction: 'both' }, { token: owner.token });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual(DUPLICATE);
    expect(
      (
        await api.patch(
          `/service-connections/${other}`,
          { direction: 'none', name: 'same direction, new name' },
          { token: owner.token },
        )
      ).status,
    ).toBe(200);
    const chain = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'chain',
        items: [svc(app, lb, { direction: 'a_to_b' }), { a_type: 'service', a_id: app, b_type: 'floor', b_id: vm }],
      },
      { token: owner.token },
    );
    expect(chain.status, chain.text).toBe(201);
    const chainPatch = await api.patch(
      `/service-connections/chains/${chain.body[0].chain_id}`,
      { direction: 'both' },
      { token: owner.token },
    );
    expect(chainPatch.body).toEqual(DUPLICATE);
  });

  it('when two identical creates race: exactly one is made (20 rounds)', async () => {
    const { owner, lb, app, scope, count } = await catalog();
    for (let round = 0; round < 20; round++) {
      const direction = (['none', 'a_to_b', 'b_to_a', 'both'] as const)[round % 4];
      const body = { ...scope, ...svc(lb, app, { direction }) };
      const answers = await Promise.all(
        [0, 1].map(() => api.post('/service-connections', body, { token: owner.token })),
      );
      expect(answers.map((a) => a.status).sort(), `round ${round}`).toEqual([201, 400]);
      expect(await count()).toBe(1);
      const made = answers.find((a) => a.status === 201)!;
      expect((await api.delete(`/service-connections/${made.body.id}`, undefined, { token: owner.token })).status).toBe(
        204,
      );
    }
  });
});
