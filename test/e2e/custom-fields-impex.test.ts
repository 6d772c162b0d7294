import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack';
import { impexJobs } from '../helpers/impex';
import { client } from '../helpers/http';
import { createFloor, createNetwork, createService, newEnv, ownerWithEnv } from '../helpers/catalog';

const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

const { form, finished } = impexJobs(ref, api);
async function exported(token: string, projectId: string, envId: string) {
  const started = await form('/impex/export', token, { project_id: projectId, environment_id: envId });
  const record = await finished(token, started.body.job_id);
  const url = new URL(record.download_url);
  const link = await api.get(`${url.pathname}${url.search}`);
  const download = await fetch(new URL(link.headers.get('location')!));
  return parse(await download.text());
}
const importDoc = async (token: string, projectId: string, envId: string, doc: unknown, dry = false) =>
  finished(
    token,
    (
      await form(
        '/impex/import',
        token,
        { project_id: projectId, environment_id: envId, ...(dry ? { dry_run: 'true' } : {}) },
        { name: 'doc.json', text: JSON.stringify(doc) },
      )
    ).body.job_id,
  );

describe('custom fields in export and import', () => {
  it('round trip their values; the plan names a changed field; an invalid value is a problem', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const define = (body: Record<string, unknown>) => api.post(`/projects/${projectId}/custom-fields`, body, { token });
    expect(
      (
        await define({
          key: 'tier',
          label: 'Tier',
          type: 'select',
          choices: ['gold', 'silver'],
          applies_to: ['service', 'service_floor', 'network'],
        })
      ).status,
    ).toBe(201);
    expect(
      (await define({ key: 'size', label: 'Size', type: 'number', max: 10, applies_to: ['service'] })).status,
    ).toBe(201);
    await createService(api, token, projectId, envId, { name: 'api', custom_fields: { tier: 'gold', size: 3 } });
    await createFloor(api, token, projectId, envId, { hostname: 'h1', custom_fields: { tier: 'silver' } });
    await createNetwork(api, token, projectId, envId, { name: 'n1', custom_fields: { tier: 'gold' } });
    const doc = await exported(token, projectId, envId);
    expect(doc.spec.services[0].custom_fields).toEqual({ size: 3, tier: 'gold' });
    expect(doc.spec.service_floors[0].custom_fields).toEqual({ tier: 'silver' });
    expect(doc.spec.networks[0].custom_fields).toEqual({ tier: 'gold' });

    const other = await newEnv(api, token, projectId);
    expect((await importDoc(token, projectId, other, doc)).status).toBe('succeeded');
    const services = (await api.get(`/services?project_id=${projectId}&environment_id=${other}`, { token })).body;
    expect(services[0].custom_fields).toEqual({ tier: 'gold', size: 3 });
    expect((await exported(token, projectId, other)).spec).toEqual(doc.spec);

    const changed = structuredClone(doc);
    changed.spec.services[0].custom_fields = { tier: 'silver', size: 3 };
    const plan = await importDoc(token, projectId, other, changed, true);
    expect(plan.status).toBe('succeeded');
    expect(plan.report.items).toContainEqual(
      expect.objectContaining({
        kind: expect.any(String),
        name: 'api',
        action: 'update',
        detail: 'changed: custom_fields.tier',
      }),
    );

    const invalid = structuredClone(doc);
    invalid.spec.services[0].custom_fields = { tier: 'bronze', size: 3 };
    const refused = await importDoc(token, projectId, other, invalid);
    expect(refused.status).toBe('failed');
    expect(refused.report.errors).toContainEqual(
      expect.objectContaining({
        path: '/spec/services/0/custom_fields/tier',
        message: expect.stringContaining('custom_fields.tier'),
      }),
    );
  });
});
