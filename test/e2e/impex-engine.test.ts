import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { useTestStack } from '../helpers/stack.ts';
import { client, type Client } from '../helpers/http.ts';
import { createFloor, createNetwork, createService, newEnv, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { keys } from '#db/keys';
import { appContext } from '#shared/context';
import {
  applyImport,
  buildExportDocument,
  documentJsonSchema,
  environmentDocument,
  exampleDocument,
  IMPEX_API_VERSION,
  parseDocument,
  planImport,
  toYaml,
  type EnvironmentDocument,
} from '#domain/impex';

const ref = useTestStack();
const api = client(() => ref.stack.url);

const limitMessage = (plan: string, max: number) =>
  `Service limit reached for your '${plan}' plan (max ${max} per project including add-ons). Please upgrade or archive services.`;

async function post(path: string, body: Record<string, unknown>, token: string) {
  const res = await api.post(path, body, { token });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const exportOf = (projectId: string, environmentId: string) =>
  buildExportDocument({ projectId, environmentId, recordId: 'rec-1', exportedAt: '2025-06-01T00:00:00.000Z' });

/** A parsed document, failing the test with its errors otherwise. */
async function parsed(text: string): Promise<EnvironmentDocument> {
  const result = await parseDocument(text);
  expect(result.errors).toEqual([]);
  return result.document!;
}

/** An environment with groups, subgroups, 50 services, floors, networks, links and attachments, built through the API. */
async function fillEnvironment(apiClient: Client, token: string, projectId: string, envId: string) {
  const scope = { project_id: projectId, environment_id: envId };
  const groups = [];
  for (const name of ['backend', 'frontend', 'data']) {
    const group = await post(
      '/groups',
      { ...scope, name, description: name === 'data' ? null : `${name} things` },
      token,
    );
    const subgroups = [];
    for (const sub of ['core', 'edge'])
      subgroups.push(
        await post(
          '/subgroups',
          { ...scope, group_id: group.id, name: sub, description: sub === 'core' ? 'the core' : undefined },
          token,
        ),
      );
    groups.push({ group, subgroups });
  }
  const floors = [];
  for (let i = 0; i < 5; i++) {
    floors.push(
      await createFloor(apiClient, token, projectId, envId, {
        hostname: `node-${i}.internal`,
        type: i % 2 ? 'container' : 'vm',
        provider: 'aws',
        provider_region: 'eu-west-1',
        cpu: 2 + i,
        memory_mb: 4096,
        ip_addresses: [`10.0.0.${10 + i}`],
        tags: i === 0 ? ['db', 'primary'] : [],
      }),
    );
  }
  const networks = [];
  for (let i = 0; i < 4; i++) {
    networks.push(
      await createNetwork(apiClient, token, projectId, envId, {
        name: `net-${i}`,
        cidr: `10.${i}.0.0/16`,
        gateway: i % 2 ? `10.${i}.0.1` : undefined,
        vlan_id: 100 + i,
        is_private: i !== 3,
        description: i === 0 ? 'main' : undefined,
      }),
    );
  }
  const services = [];
  for (let i = 0; i < 50; i++) {
    const g = groups[i % 3];
    services.push(
      await createService(apiClient, token, projectId, envId, {
        name: `svc-${String(i).padStart(2, '0')}`,
        group_id: i % 5 === 0 ? null : g.group.id,
        subgroup_id: i % 5 === 0 || i % 2 ? null : g.subgroups[i % 4 === 0 ? 0 : 1].id,
        service_floor_id: i % 7 === 0 ? null : floors[i % 5].id,
        category: i % 3 ? 'http' : null,
        replicas: i % 4,
        provider: i % 2 ? 'gcp' : 'aws',
        port: 8000 + i,
        ip_address: `10.1.${i}.1`,
        programming_language: ['go', 'typescript', 'python'][i % 3],
        repository_url: `https://git.example.com/svc-${i}`,
        version: `1.${i}.0`,
        links: i % 10 === 0 ? [`https://svc-${i}.example.com/health`] : [],
        tags: i % 6 === 0 ? ['critical', 'public'] : [],
        repository_deps:
          i % 8 === 0
            ? [{ name: 'lib', repository_url: 'https://git.example.com/lib', version: '2.0.0' }, { name: 'tools' }]
            : [],
      }),
    );
  }
  for (let i = 0; i < 20; i++)
    await post(
      '/service-links',
      { ...scope, from_service_id: services[i].id, to_service_id: services[(i * 7 + 3) % 50].id },
      token,
    );
  for (let i = 0; i < 10; i++) {
    const res = await api.patch(
      `/attachments/services/${services[i * 3].id}/networks`,
      { network_ids: [networks[i % 4].id, networks[(i + 1) % 4].id] },
      { token },
    );
    expect(res.status, res.text).toBe(200);
  }
  const res = await api.patch(
    `/attachments/service-floors/${floors[0].id}/networks`,
    { network_ids: [networks[0].id] },
    { token },
  );
  expect(res.status, res.text).toBe(200);
}

describe('export and import round trip', () => {
  it('re-imports an export into an empty environment of another project: the two specs are identical; a second import changes nothing', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Team');
    await fillEnvironment(api, token, projectId, envId);

    const doc = await exportOf(projectId, envId);
    expect(doc.spec.services).toHaveLength(50);
    expect(doc.spec.groups.map((g) => g.name)).toEqual(['backend', 'data', 'frontend']);
    expect(doc.spec.service_links).toHaveLength(20);
    expect(doc.spec.network_attachments).toHaveLength(11);
    expect(JSON.stringify(doc)).not.toContain(`${projectId.slice(0, 8)}x`); // references are names
    expect(doc.metadata).toEqual({
      project: { id: projectId, name: expect.any(String) },
      environment: { id: envId, name: 'production' },
      exported_at: '2025-06-01T00:00:00.000Z',
      source_record: 'rec-1',
    });
    const yaml = await toYaml(doc);
    expect(await toYaml(await exportOf(projectId, envId))).toBe(yaml);

    const target = await projectWithEnv(api, token);
    const ctx = appContext();
    const document = await parsed(yaml);
    const plan = await planImport({ projectId: target.projectId, environmentId: target.envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    expect(plan.report.summary).toEqual({ create: 3 + 6 + 5 + 4 + 50 + 20, update: 0, unchanged: 0, error: 0 });
    const progress: [number, number][] = [];
    const report = await applyImport(plan, ctx, (done, total) => {
      progress.push([done, total]);
    });
    expect(report.errors).toEqual([]);
    expect(report.summary).toEqual(plan.report.summary);
    expect(progress[0]).toEqual([0, 88]);
    expect(progress.at(-1)).toEqual([88, 88]);

    const again = await exportOf(target.projectId, target.envId);
    expect(again.spec).toEqual(doc.spec);
    expect(await toYaml({ ...again, metadata: doc.metadata })).toBe(yaml);
    // The counters moved with the creates.
    expect((await readItem(keys.project(target.projectId)))!.service_count).toBe(50);
    expect((await readItem(keys.environment(target.projectId, target.envId)))!.service_count).toBe(50);
    // Through the API, the imported environment reads like the original.
    const listed = await api.get(`/services?project_id=${target.projectId}&environment_id=${target.envId}`, { token });
    const original = await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token });
    const comparable = (s: Record<string, unknown>) => ({
      ...s,
      id: undefined,
      project_id: undefined,
      environment_id: undefined,
      service_floor_id: undefined,
      group_id: undefined,
      subgroup_id: undefined,
      updated_at: undefined,
    });
    expect(listed.body.map(comparable)).toEqual(original.body.map(comparable));

    // Importing the same document again: everything unchanged, nothing written.
    const replan = await planImport({ projectId: target.projectId, environmentId: target.envId, document }, ctx);
    expect(replan.report.summary).toEqual({ create: 0, update: 0, unchanged: 88, error: 0 });
    expect(replan.report.items.every((i) => i.action === 'unchanged')).toBe(true);
    const before = await readItem(keys.environment(target.projectId, target.envId));
    expect((await applyImport(replan, ctx)).summary.unchanged).toBe(88);
    expect(await readItem(keys.environment(target.projectId, target.envId))).toEqual(before);
  });

  it('matches by name: same name updated (only what changed), otherwise created; nothing is deleted', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Team');
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'db-1', cpu: 2 });
    await createService(api, token, projectId, envId, { name: 'api', port: 80, service_floor_id: floor.id });
    await createService(api, token, projectId, envId, { name: 'keep-me', port: 1 });
    const text = [
      `apiVersion: ${IMPEX_API_VERSION}`,
      'kind: Environment',
      'spec:',
      '  groups: [{ name: web }]',
      '  service_floors: [{ hostname: DB-1, type: vm, cpu: 2 }]',
      '  networks: [{ name: lan, cidr: 10.0.0.0/24 }]',
      '  services:',
      '    - { name: api, port: 8080, floor: db-1, group: web }',
      '    - { name: worker, floor: db-1 }',
      '  network_attachments: [{ service: worker, networks: [lan] }]',
    ].join('\n');
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document: await parsed(text) }, ctx);
    expect(plan.report.items).toEqual([
      { kind: 'group', name: 'web', action: 'create' },
      { kind: 'network', name: 'lan', action: 'create' },
      { kind: 'service_floor', name: 'DB-1', action: 'update', detail: 'changed: hostname' },
      { kind: 'service', name: 'api', action: 'update', detail: 'changed: group_id, port' },
      { kind: 'service', name: 'worker', action: 'create' },
    ]);
    const report = await applyImport(plan, ctx);
    expect(report.summary).toEqual({ create: 3, update: 2, unchanged: 0, error: 0 });
    const services = (await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body;
    expect(services.map((s: any) => [s.name, s.port, s.group_name, s.type])).toEqual([
      ['api', 8080, 'web', 'vm'],
      ['keep-me', 1, null, 'serverless'],
      ['worker', null, null, 'vm'],
    ]);
    const worker = services.find((s: any) => s.name === 'worker');
    const attached = await api.get(`/attachments/services/${worker.id}/networks`, { token });
    expect(attached.body.networks.map((n: any) => n.name)).toEqual(['lan']);
    // The service read by id has its group through the lookup hints the import kept current.
    const api1 = await api.get(`/services/${services[0].id}`, { token });
    expect(api1.body.group_name).toBe('web');
  });
});

describe('export of data the document cannot name', () => {
  it('writes what is there; the import then names each problem (a floor without hostname, two services of one name)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Team');
    const floor = await createFloor(api, token, projectId, envId, { cpu: 1 });
    await createService(api, token, projectId, envId, { name: 'twin', service_floor_id: floor.id });
    await createService(api, token, projectId, envId, { name: 'Twin' });
    const doc = await exportOf(projectId, envId);
    expect(doc.spec.service_floors).toEqual([{ type: 'vm', cpu: 1 }]);
    expect(doc.spec.services).toEqual([{ name: 'Twin' }, { name: 'twin' }]);
    expect((await parseDocument(await toYaml(doc))).errors.map((e) => [e.path, e.message])).toEqual([
      ['/spec/service_floors/0/hostname', 'A service floor needs a hostname: the document names floors by hostname'],
      ['/spec/services/1/name', "Duplicate service name 'twin': names must be unique (ignoring case)"],
    ]);
    // Importing into the environment that has the twins: the name is ambiguous there.
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: { services: [{ name: 'twin', port: 2 }] },
    });
    const plan = await planImport({ projectId, environmentId: envId, document }, appContext());
    expect(plan.report.items).toEqual([
      { kind: 'service', name: 'twin', action: 'error', detail: 'ambiguous name in the environment' },
    ]);
    expect(plan.report.errors).toEqual([
      {
        path: '/spec/services/0',
        line: null,
        message:
          "2 services named 'twin' exist in the environment: the import cannot tell which one is meant (rename one first)",
      },
    ]);
  });
});

describe('apply', () => {
  it('commits chunk by chunk; after a crash, planning again and applying converges', async () => {
    const { projectId, envId } = await ownerWithEnv(api, 'Business');
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: {
        service_floors: [{ hostname: 'h', type: 'vm' }],
        services: Array.from({ length: 120 }, (_, i) => ({ name: `s-${i}`, floor: 'h', port: 1000 + i })),
        service_links: Array.from({ length: 30 }, (_, i) => ({ from: `s-${i}`, to: `s-${i + 1}` })),
      },
    });
    const ctx = appContext();
    const crash = new Error('worker died');
    const progress: number[] = [];
    await expect(
      applyImport(
        await planImport({ projectId, environmentId: envId, document }, ctx),
        ctx,
        (done) => {
          progress.push(done);
          if (done > 1) throw crash;
        },
        undefined,
        168,
      ),
    ).rejects.toBe(crash);
    // The floor; then a chunk of 24 services (7 new items each: service, id lookup, name listing, the listing by its
    // server, and three search entries of a name `s-<n>`: the name and its two tokens).
    expect(progress).toEqual([0, 1, 25]);
    const replan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(replan.report.summary).toEqual({ create: 120 - 24 + 30, update: 0, unchanged: 25, error: 0 });
    const report = await applyImport(replan, ctx);
    expect(report.errors).toEqual([]);
    const exported = await exportOf(projectId, envId);
    expect(exported.spec.services).toHaveLength(120);
    expect(exported.spec.service_links).toHaveLength(30);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(120);
    expect((await planImport({ projectId, environmentId: envId, document }, ctx)).report.summary).toEqual({
      create: 0,
      update: 0,
      unchanged: 151,
      error: 0,
    });
  });
});

describe('document errors', () => {
  const bad = [
    `apiVersion: ${IMPEX_API_VERSION}`, // 1
    'kind: Environment', // 2
    'spec:', // 3
    '  service_floors:', // 4
    '    - hostname: db-1', // 5
    '      type: vm', // 6
    '  services:', // 7
    '    - name: api', // 8
    '      port: eighty', // 9
    '    - name: worker', // 10
    '      floor: db-9', // 11
    '    - name: API', // 12
    '', // 13
  ].join('\n');

  it('reports every error at once, with JSON pointer and line, and writes nothing', async () => {
    const result = await parseDocument(bad);
    expect(result.document).toBeNull();
    expect(result.errors).toEqual([
      { path: '/spec/services/0/port', line: 9, message: 'Invalid input: expected number, received string' },
      {
        path: '/spec/services/1/floor',
        line: 11,
        message: "Unknown service floor 'db-9': no floor with that hostname in the document",
      },
      {
        path: '/spec/services/2/name',
        line: 12,
        message: "Duplicate service name 'API': names must be unique (ignoring case)",
      },
    ]);
    // The same document as JSON: the same errors, on its lines.
    const json = JSON.stringify(
      {
        apiVersion: IMPEX_API_VERSION,
        kind: 'Environment',
        spec: {
          service_floors: [{ hostname: 'db-1', type: 'vm' }],
          services: [{ name: 'api', port: 'eighty' }, { name: 'worker', floor: 'db-9' }, { name: 'API' }],
        },
      },
      null,
      2,
    );
    const fromJson = await parseDocument(json);
    expect(fromJson.errors.map((e) => e.path)).toEqual([
      '/spec/services/0/port',
      '/spec/services/1/floor',
      '/spec/services/2/name',
    ]);
    expect(fromJson.errors.map((e) => json.split('\n')[e.line! - 1].trim())).toEqual([
      '"port": "eighty"',
      '"floor": "db-9"',
      '"name": "API"',
    ]);

    // planImport checks the rules too (a document built in code): errors, no units, and apply writes nothing.
    const { token, projectId, envId } = await ownerWithEnv(api, 'Team');
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: { services: [{ name: 'a', floor: 'nowhere' }, { name: 'A' }] },
    });
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([
      {
        path: '/spec/services/0/floor',
        line: null,
        message: "Unknown service floor 'nowhere': no floor with that hostname in the document",
      },
      {
        path: '/spec/services/1/name',
        line: null,
        message: "Duplicate service name 'A': names must be unique (ignoring case)",
      },
    ]);
    expect(plan.report.summary.error).toBe(2);
    await applyImport(plan, ctx);
    expect((await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body).toEqual([]);
  });

  it('reports unknown fields, references across sections and YAML syntax errors', async () => {
    const text = [
      `apiVersion: ${IMPEX_API_VERSION}`,
      'kind: Environment',
      'spec:',
      '  groups: [{ name: web, subgroups: [{ name: a }, { name: A }] }]',
      '  networks: [{ name: lan, cidr: 10.0.0.0/24, gateway: 10.0.1.1 }]',
      '  services: [{ name: s, group: web, subgroup: b, hostnmae: x }]',
      '  service_links: [{ from: s, to: s }, { from: s, to: t }]',
      '  network_attachments: [{ service: s, networks: [lan, wan] }, { networks: [lan] }]',
    ].join('\n');
    expect((await parseDocument(text)).errors).toEqual([
      {
        path: '/spec/groups/0/subgroups/1/name',
        line: 4,
        message: "Duplicate subgroup name in group 'web' 'A': names must be unique (ignoring case)",
      },
      { path: '/spec/networks/0/gateway', line: 5, message: 'Gateway 10.0.1.1 is not inside the network 10.0.0.0/24' },
      { path: '/spec/services/0/hostnmae', line: 6, message: "Unknown field 'hostnmae'" },
      {
        path: '/spec/services/0/subgroup',
        line: 6,
        message: "Unknown subgroup 'b': group 'web' has no subgroup of that name in the document",
      },
      { path: '/spec/service_links/0/to', line: 7, message: 'A service may not be linked to itself' },
      {
        path: '/spec/service_links/1/to',
        line: 7,
        message: "Unknown service 't': no service of that name in the document",
      },
      {
        path: '/spec/network_attachments/0/networks/1',
        line: 8,
        message: "Unknown network 'wan': no network of that name in the document",
      },
      {
        path: '/spec/network_attachments/1',
        line: 8,
        message: 'An attachment names exactly one of service or service_floor',
      },
    ]);
    const syntax = await parseDocument('apiVersion: infracatalog/v1\nspec: [\n');
    expect(syntax.document).toBeNull();
    expect(syntax.errors.length).toBeGreaterThan(0);
    expect(syntax.errors[0].message).toMatch(/^Not valid YAML or JSON/);
  });

  it('an unknown apiVersion is one clear error', async () => {
    const result = await parseDocument(
      'apiVersion: infracatalog/v9\nkind: Environment\nspec:\n  services: [{ port: x }]\n',
    );
    expect(result).toEqual({
      document: null,
      errors: [
        {
          path: '/apiVersion',
          line: 1,
          message: "Unknown apiVersion 'infracatalog/v9': this service reads documents of apiVersion 'infracatalog/v1'",
        },
      ],
    });
    expect((await parseDocument('kind: Environment\n')).errors).toEqual([
      {
        path: '/apiVersion',
        line: 1,
        message: "apiVersion is missing: this service reads documents of apiVersion 'infracatalog/v1'",
      },
    ]);
  });
});

describe('the service limit', () => {
  it("an import over the limit fails before writing anything, with the plan's limit message", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    await createService(api, token, projectId, envId, { name: 'existing-1' });
    await createService(api, token, projectId, envId, { name: 'existing-2' });
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: {
        groups: [{ name: 'g' }],
        services: [{ name: 'existing-1', port: 1 }, ...['a', 'b', 'c', 'd'].map((name) => ({ name, group: 'g' }))],
      },
    });
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([{ path: '/spec/services', line: null, message: limitMessage('Free', 5) }]);
    const report = await applyImport(plan, ctx);
    expect(report.errors).toEqual(plan.report.errors);
    const services = (await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body;
    expect(services.map((s: any) => [s.name, s.port])).toEqual([
      ['existing-1', null],
      ['existing-2', null],
    ]);
    expect((await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token })).body).toEqual([]);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(2);
  });

  it('a limit reached meanwhile (concurrent creates) stops the import with the limit message', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Free');
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: { services: ['a', 'b', 'c'].map((name) => ({ name })) },
    });
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    for (const name of ['x', 'y', 'z']) await createService(api, token, projectId, envId, { name });
    const report = await applyImport(plan, ctx);
    expect(report.errors).toEqual([{ path: '', line: null, message: limitMessage('Free', 5) }]);
    expect(report.items.map((i) => i.action)).toEqual(['error', 'error', 'error']);
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(3);
  });

  it('counts the environment too: a project within the limit with a full environment is refused', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Starter');
    const second = await newEnv(api, token, projectId);
    for (let i = 0; i < 3; i++) await createService(api, token, projectId, second, { name: `s-${i}` });
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: { services: Array.from({ length: 23 }, (_, i) => ({ name: `n-${i}` })) },
    });
    const plan = await planImport({ projectId, environmentId: envId, document }, appContext());
    expect(plan.report.errors).toEqual([{ path: '/spec/services', line: null, message: limitMessage('Starter', 25) }]);
  });
});

describe('the schema and the example', () => {
  it('the example validates against the generated JSON Schema and imports as it is', async () => {
    const example = exampleDocument();
    const fromJsonSchema = z.fromJSONSchema(documentJsonSchema() as Parameters<typeof z.fromJSONSchema>[0]);
    expect(fromJsonSchema.safeParse(JSON.parse(JSON.stringify(example))).error).toBeUndefined();
    expect(
      fromJsonSchema.safeParse({ ...example, spec: { ...example.spec, services: [{ name: 'x', port: 'eighty' }] } })
        .success,
    ).toBe(false);
    expect(
      fromJsonSchema.safeParse({ ...example, spec: { ...example.spec, services: [{ name: 'x', unknown: 1 }] } })
        .success,
    ).toBe(false);
    expect(await parseDocument(await toYaml(example))).toEqual({
      document: environmentDocument.parse(example),
      errors: [],
    });

    const { token, projectId, envId } = await ownerWithEnv(api, 'Team');
    const ctx = appContext();
    const report = await applyImport(
      await planImport({ projectId, environmentId: envId, document: example }, ctx),
      ctx,
    );
    expect(report.errors).toEqual([]);
    // Groups, subgroup, floors, networks, services, links; a connection, a chain and its two members.
    expect(report.summary.create).toBe(2 + 1 + 2 + 2 + 4 + 3 + 1 + 1 + 2);
    const reexport = await exportOf(projectId, envId);
    expect(reexport.spec.services.map((s) => s.name)).toEqual(['api', 'checkout', 'postgres', 'web']);
    expect(reexport.spec.network_attachments).toEqual(example.spec.network_attachments);
    expect(reexport.spec.connections).toEqual(example.spec.connections);
    expect(reexport.spec.connection_groups).toEqual(example.spec.connection_groups);
    void token;
  });
});
