import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, newEnv, ownerWithEnv } from '../helpers/catalog.ts';

/**
 * Plan counters never drift under concurrent deletes and creates. Each race runs
 * 20 times; after every round, what the API lists must agree with what the limit still lets in:
 * exactly `max - live services` more services can be created.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);

/** Starter: 3 environments, 25 services per project. */
const PLAN = 'Starter';
const MAX_SERVICES = 25;
/** Services kept in the base environment, so each round needs only a few creates to reach the limit. */
const BASELINE = 21;
const ROUNDS = 20;

/** Live services of the project, counted through the API (every live environment's list). */
async function liveServices(token: string, projectId: string): Promise<number> {
  const envs = await api.get(`/environments?project_id=${projectId}`, { token });
  expect(envs.status, envs.text).toBe(200);
  let count = 0;
  for (const env of envs.body as { id: string }[]) {
    const list = await api.get(`/services?project_id=${projectId}&environment_id=${env.id}`, { token });
    expect(list.status, list.text).toBe(200);
    count += list.body.length;
  }
  return count;
}

/** Creates services in `envId` until the limit refuses; asserts exactly `max - live` fit, then removes them again. */
async function expectLimitAgrees(token: string, projectId: string, envId: string, round: number) {
  const live = await liveServices(token, projectId);
  const room = MAX_SERVICES - live;
  const created: string[] = [];
  for (let i = 0; i <= room + 2; i++) {
    const res = await api.post(
      '/services',
      { name: `fill-${round}-${i}`, project_id: projectId, environment_id: envId },
      { token },
    );
    if (res.status !== 201) {
      expect(res.status, res.text).toBe(403);
      break;
    }
    created.push(res.body.id);
  }
  expect(
    created.length,
    `round ${round}: ${live} live services, ${created.length} more created under a limit of ${MAX_SERVICES}`,
  ).toBe(room);
  for (const id of created) expect((await api.delete(`/services/${id}`, undefined, { token })).status).toBe(204);
}

const later = <T>(ms: number, fn: () => Promise<T>) =>
  new Promise<T>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), ms));

async function starterProject() {
  const { token, projectId, envId } = await ownerWithEnv(api, PLAN);
  for (let i = 0; i < BASELINE; i++) await createService(api, token, projectId, envId, { name: `base-${i}` });
  return { token, projectId, envId };
}

describe('plan counters under concurrent deletes and creates', () => {
  it('DELETE /environments/{id} racing DELETE /services/{id} in it leaves the service limit exact (20 rounds)', async () => {
    const { token, projectId, envId } = await starterProject();
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = await newEnv(api, token, projectId);
      const services = [
        await createService(api, token, projectId, doomed),
        await createService(api, token, projectId, doomed),
      ];
      // The environment's delete starts a little later in some rounds, so it lands at different points of the services' deletes.
      const [envDelete, ...serviceDeletes] = await Promise.all([
        later(round % 4, () => api.delete(`/environments/${doomed}`, undefined, { token })),
        ...services.map((s) => api.delete(`/services/${s.id}`, undefined, { token })),
      ]);
      expect(envDelete.status, envDelete.text).toBe(204);
      for (const d of serviceDeletes) expect([204, 404], d.text).toContain(d.status);
      await expectLimitAgrees(token, projectId, envId, round);
    }
  });

  it('POST /services into an environment being deleted leaves no invisible service holding a slot (20 rounds)', async () => {
    const { token, projectId, envId } = await starterProject();
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = await newEnv(api, token, projectId);
      await createService(api, token, projectId, doomed);
      const [envDelete, ...creates] = await Promise.all([
        api.delete(`/environments/${doomed}`, undefined, { token }),
        ...[0, 1].map((i) =>
          api.post(
            '/services',
            { name: `late-${round}-${i}`, project_id: projectId, environment_id: doomed },
            { token },
          ),
        ),
      ]);
      expect(envDelete.status, envDelete.text).toBe(204);
      for (const c of creates) expect([201, 400], c.text).toContain(c.status);
      await expectLimitAgrees(token, projectId, envId, round);
    }
  });
});
