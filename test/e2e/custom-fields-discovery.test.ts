import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack';
import { client } from '../helpers/http';
import { ownerWithEnv } from '../helpers/catalog';
import { CloudStub, droplet } from '../../infra/local/cloud-stub';

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

describe('custom fields and discovery', () => {
  it("gives discovered floors the definitions' defaults", async () => {
    stub.droplets = [droplet(1, 'a'), droplet(2, 'b')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const defined = await api.post(
      `/projects/${o.projectId}/custom-fields`,
      { key: 'owner_team', label: 'Team', type: 'text', default: 'platform', applies_to: ['service_floor'] },
      { token: o.token },
    );
    expect(defined.status, defined.text).toBe(201);
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
    const run = await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token: o.token });
    expect(run.body).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    const floors = (
      await api.get(`/service-floors?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })
    ).body as { custom_fields: unknown }[];
    expect(floors.map((f) => f.custom_fields)).toEqual([{ owner_team: 'platform' }, { owner_team: 'platform' }]);
  });
});
