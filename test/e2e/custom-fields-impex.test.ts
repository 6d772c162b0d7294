import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { impexJobs } from '../helpers/impex.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, newEnv, ownerWithEnv } from '../helpers/catalog.ts';
import { seedServices } from '../helpers/seed.ts';
import { ddb } from '#shared/clients';
import { newScope, runInScope } from '#shared/invocation';

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

/** The request of a BatchWriteItem that puts an item named `name` (a staged chunk's new items). */
const putsNamed = (args: { input: unknown }, name: string) =>
  Object.values(
    (args.input as { RequestItems?: Record<string, { PutRequest?: { Item?: { name?: string } } }[]> }).RequestItems ??
      {},
  ).some((rs) => Array.isArray(rs) && rs.some((r) => r.PutRequest?.Item?.name === name));

describe('custom field definitions changed during an import', () => {
  /**
   * A document with service 'api' valued `tier: gold`, imported into a new environment while `change` is
   * made to the definition just before the service is written (a middleware on the jobs worker's client).
   */
  async function importWhileChanging(change: Record<string, unknown>) {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const defined = await api.post(
      `/projects/${projectId}/custom-fields`,
      { key: 'tier', label: 'Tier', type: 'select', choices: ['gold', 'silver'], applies_to: ['service'] },
      { token },
    );
    expect(defined.status, defined.text).toBe(201);
    await createService(api, token, projectId, envId, { name: 'api' });
    const doc = await exported(token, projectId, envId);
    doc.spec.services[0].custom_fields = { tier: 'gold' };
    const other = await newEnv(api, token, projectId);
    let changed = false;
    const hook = runInScope(newScope(undefined, { worker: 'jobs' }), () => ddb()).middlewareStack;
    hook.add(
      (next) => async (args) => {
        if (!changed && putsNamed(args, 'api')) {
          changed = true;
          const res = await api.patch(`/projects/${projectId}/custom-fields/tier`, change, { token });
          expect(res.status, res.text).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'changeDefinitionDuringImport' },
    );
    try {
      const record = await importDoc(token, projectId, other, doc);
      expect(changed).toBe(true);
      const services = (await api.get(`/services?project_id=${projectId}&environment_id=${other}`, { token })).body;
      return { record, services: services as { name: string; custom_fields: unknown }[] };
    } finally {
      hook.remove('changeDefinitionDuringImport');
    }
  }

  it('a value the change made invalid is not written: the import plans again and reports it', async () => {
    const { record, services } = await importWhileChanging({ choices: ['silver', 'bronze'] });
    expect(record.status).toBe('failed');
    expect(record.error).toContain('custom field definitions changed during the import');
    expect(record.report.errors).toContainEqual(
      expect.objectContaining({ path: '/spec/services/0/custom_fields/tier' }),
    );
    expect(services).toEqual([]);
  });

  it('a change the values still pass: the import plans again and writes them', async () => {
    const { record, services } = await importWhileChanging({ label: 'Service tier' });
    expect(record.status).toBe('succeeded');
    expect(services.map((s) => [s.name, s.custom_fields])).toEqual([['api', { tier: 'gold' }]]);
  });

  it('an import planned again goes on from the progress it showed, never back to 0 %', async () => {
    const { owner, token, projectId, envId } = await ownerWithEnv(api);
    const defined = await api.post(
      `/projects/${projectId}/custom-fields`,
      { key: 'tier', label: 'Tier', type: 'select', choices: ['gold', 'silver'], applies_to: ['service'] },
      { token },
    );
    expect(defined.status, defined.text).toBe(201);
    // Enough updates for several transactions: the last one's is refused, after the first ones showed progress.
    const names = Array.from({ length: 60 }, (_, i) => `svc-${String(i).padStart(2, '0')}`);
    await seedServices(
      owner,
      projectId,
      envId,
      names.map((name) => ({ name })),
    );
    const doc = await exported(token, projectId, envId);
    for (const service of doc.spec.services) service.custom_fields = { tier: 'gold' };
    const shown: number[] = [];
    let shownBeforeChange: number[] | undefined;
    const hook = runInScope(newScope(undefined, { worker: 'jobs' }), () => ddb()).middlewareStack;
    hook.add(
      (next) => async (args) => {
        const input = JSON.stringify(args.input);
        for (const [, pct] of input.matchAll(/"pct":(\d+)/g)) shown.push(Number(pct));
        if (!shownBeforeChange && input.includes('"TransactItems"') && input.includes(`"${names.at(-1)}"`)) {
          shownBeforeChange = [...shown];
          const res = await api.patch(
            `/projects/${projectId}/custom-fields/tier`,
            { label: 'Service tier' },
            { token },
          );
          expect(res.status, res.text).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'changeDefinitionsLate' },
    );
    try {
      const record = await importDoc(token, projectId, envId, doc);
      expect(record.status, JSON.stringify(record)).toBe('succeeded');
    } finally {
      hook.remove('changeDefinitionsLate');
    }
    expect(Math.max(...(shownBeforeChange ?? [])), `shown before the change: ${shownBeforeChange}`).toBeGreaterThan(0);
    expect(shown, `every percentage shown, in order: ${shown}`).toEqual([...shown].sort((a, b) => a - b));
    expect(shown.at(-1)).toBe(100);
    const services = (await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=100`, { token }))
      .body as { custom_fields: unknown }[];
    expect(services.map((s) => s.custom_fields)).toEqual(names.map(() => ({ tier: 'gold' })));
  });
});
