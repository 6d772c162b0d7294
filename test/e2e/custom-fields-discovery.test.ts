import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { CloudStub, droplet } from '../../infra/local/cloud-stub.ts';
import { ddb } from '#shared/clients';
import { newScope, runInScope } from '#shared/invocation';

/** Discovery's new floors start with the project's custom field defaults. */
const stub = new CloudStub();
const env: Record<string, string> = {};
beforeAll(async () => {
  await stub.start();
  env.DIGITALOCEAN_API_BASE_URL = `${stub.url}/do/v2`;
});
afterAll(() => stub.stop());
const ref = useTestStack(env);
const api = client(() => ref.stack.url);

type Owner = Awaited<ReturnType<typeof ownerWithEnv>>;

async function defineTeam(o: Owner) {
  const defined = await api.post(
    `/projects/${o.projectId}/custom-fields`,
    { key: 'owner_team', label: 'Team', type: 'text', default: 'platform', applies_to: ['service_floor'] },
    { token: o.token },
  );
  expect(defined.status, defined.text).toBe(201);
}

/** Connects a DigitalOcean account of the stub, runs a discovery and waits for it: the run as GET answers it. */
async function discover(o: Owner) {
  const created = await api.post(
    '/integrations/cloud-accounts',
    { project_id: o.projectId, environment_id: o.envId, provider: 'digitalocean', name: 'do', api_token: stub.token },
    { token: o.token },
  );
  expect(created.status, created.text).toBe(201);
  await api.post('/integrations/cloud/digitalocean/connect', { account_id: created.body.id }, { token: o.token });
  const started = await api.post(`/integrations/cloud-accounts/${created.body.id}/discover`, undefined, {
    token: o.token,
  });
  expect(started.status, started.text).toBe(202);
  await ref.stack.queues.drain();
  return (await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token: o.token })).body;
}

const floorValues = async (o: Owner) =>
  (
    (await api.get(`/service-floors?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })).body as {
      custom_fields: unknown;
    }[]
  ).map((f) => f.custom_fields);

type Transaction = { TransactItems?: { Put?: { Item?: { PK?: string; SK?: string } } }[] };

describe('custom fields and discovery', () => {
  it("gives discovered floors the definitions' defaults", async () => {
    stub.droplets = [droplet(1, 'a'), droplet(2, 'b')];
    const o = await ownerWithEnv(api, 'Enterprise');
    await defineTeam(o);
    const run = await discover(o);
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(await floorValues(o)).toEqual([{ owner_team: 'platform' }, { owner_team: 'platform' }]);
  });

  it('a definition changed between the run reading it and writing a floor: the floor is written again from a new read, the run goes on', async () => {
    stub.droplets = [droplet(3, 'c'), droplet(4, 'd')];
    const o = await ownerWithEnv(api, 'Enterprise');
    await defineTeam(o);
    // Each new floor's first write is beaten by a change of the definitions (its default becomes 'infra').
    const beaten = new Set<string>();
    // The jobs worker's client (a worker's calls go through a client of their own).
    const hook = runInScope(newScope(undefined, { worker: 'jobs' }), () => ddb()).middlewareStack;
    hook.add(
      (next) => async (args) => {
        const floor = ((args.input as Transaction).TransactItems ?? [])
          .map((t) => t.Put?.Item)
          .find((i) => i?.PK === `PROJECT#${o.projectId}` && i.SK?.startsWith(`FLOOR#${o.envId}#`));
        if (floor?.SK && !beaten.has(floor.SK)) {
          beaten.add(floor.SK);
          const changed = await api.patch(
            `/projects/${o.projectId}/custom-fields/owner_team`,
            { default: 'infra' },
            { token: o.token },
          );
          expect(changed.status, changed.text).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'changeDefinitionsBeforeFloor' },
    );
    let run: { status: string; counts: { created: number } };
    try {
      run = await discover(o);
    } finally {
      hook.remove('changeDefinitionsBeforeFloor');
    }
    expect(beaten.size).toBe(2);
    // Both floors made by this run, each with the default as it was when it was written.
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(await floorValues(o)).toEqual([{ owner_team: 'infra' }, { owner_team: 'infra' }]);
  });
});
