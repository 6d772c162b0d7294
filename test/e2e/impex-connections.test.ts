import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { addFloor, addService, connect, link, ownerWithEnv } from '../helpers/topology.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { appContext } from '#shared/context';
import { accountActor } from '#shared/audit';
import { getAccount } from '#domain/identity';
import {
  applyImport,
  buildExportDocument,
  parseDocument,
  planImport,
  toYaml,
  IMPEX_API_VERSION,
  type EnvironmentDocument,
} from '#domain/impex';

const ref = useTestStack();
const api = client(() => ref.stack.url);

type End = { type: 'service' | 'floor'; id: string };
const S = (id: string): End => ({ type: 'service', id });
const F = (id: string): End => ({ type: 'floor', id });

const exportOf = (projectId: string, environmentId: string) =>
  buildExportDocument({ projectId, environmentId, recordId: 'rec-1', exportedAt: '2026-01-01T00:00:00.000Z' });

/** Plans and applies a document as the import job does (entries by the account), returning the report. */
async function importInto(projectId: string, environmentId: string, document: EnvironmentDocument, accountId: string) {
  const ctx = appContext();
  const plan = await planImport({ projectId, environmentId, document }, ctx);
  const report = await applyImport(plan, ctx, undefined, {
    importId: 'imp-1',
    actor: accountActor((await getAccount(accountId))!),
    days: null,
  });
  return { plan, report };
}

/** An environment built through the API with every kind of connection the API makes, plus links and hosting. */
async function topology(token: string, projectId: string, envId: string) {
  const scope = { project_id: projectId, environment_id: envId };
  const svc: Record<string, string> = {};
  const host: Record<string, string> = {};
  for (const h of ['db-1.internal', 'db-2.internal', 'lb.internal'])
    host[h] = await addFloor(api, token, projectId, envId, h);
  for (const name of ['edge', 'web', 'api', 'auth', 'db', 'cache', 'queue', 'worker', 'mail', 'gateway']) {
    svc[name] = await addService(
      api,
      token,
      projectId,
      envId,
      name,
      name === 'db' ? { service_floor_id: host['db-1.internal'] } : {},
    );
  }
  for (let i = 0; i < 30; i++)
    svc[`h-${i}`] = await addService(api, token, projectId, envId, `h-${String(i).padStart(2, '0')}`);
  const one = (a: End, b: End, direction: string, name?: string) =>
    connect(api, token, {
      ...scope,
      a_type: a.type,
      a_id: a.id,
      b_type: b.type,
      b_id: b.id,
      direction,
      ...(name ? { name } : {}),
    });
  const batch = async (group_kind: string, items: [End, End, string, string?][]) => {
    const res = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind,
        items: items.map(([a, b, direction, name]) => ({
          a_type: a.type,
          a_id: a.id,
          b_type: b.type,
          b_id: b.id,
          direction,
          ...(name ? { name } : {}),
        })),
      },
      { token },
    );
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; chain_id: string }[];
  };
  // On their own: each direction, service to floor, floor to floor, two of one pair in different directions, named or not.
  await one(S(svc.edge), S(svc.web), 'a_to_b', 'https');
  await one(S(svc.web), S(svc.auth), 'b_to_a');
  await one(S(svc.api), S(svc.cache), 'both', 'resp');
  await one(S(svc.queue), S(svc.mail), 'none');
  await one(S(svc.worker), S(svc.queue), 'a_to_b');
  await one(S(svc.queue), S(svc.worker), 'a_to_b');
  await one(S(svc.cache), F(host['db-2.internal']), 'a_to_b', 'volume');
  await one(F(host['lb.internal']), F(host['db-2.internal']), 'both');
  // A chain, a hub centred on a floor, a chain joined later by a single create, one with a member deleted.
  await batch('chain', [
    [S(svc.web), S(svc.api), 'a_to_b', 'rest'],
    [S(svc.api), S(svc.auth), 'a_to_b'],
    [S(svc.auth), S(svc.db), 'b_to_a'],
  ]);
  await batch('hub', [
    [F(host['lb.internal']), S(svc.web), 'a_to_b'],
    [F(host['lb.internal']), S(svc.api), 'none'],
    [F(host['lb.internal']), S(svc.edge), 'both', 'tls'],
  ]);
  const joined = await batch('chain', [[S(svc.worker), S(svc.db), 'a_to_b']]);
  await connect(api, token, {
    ...scope,
    a_type: 'service',
    a_id: svc.db,
    b_type: 'service',
    b_id: svc.mail,
    direction: 'b_to_a',
    chain_id: joined[0].chain_id,
  });
  const trimmed = await batch('chain', [
    [S(svc.mail), S(svc.edge), 'none'],
    [S(svc.mail), S(svc.gateway), 'none'],
  ]);
  expect((await api.delete(`/service-connections/${trimmed[0].id}`, undefined, { token })).status).toBe(204);
  // A hub larger than one batch: 24 at once, 6 joining after (an import writes it in more than one transaction).
  const hub = await batch(
    'hub',
    Array.from({ length: 24 }, (_, i) => [S(svc.gateway), S(svc[`h-${i}`]), 'a_to_b'] as [End, End, string]),
  );
  for (let i = 24; i < 30; i++)
    await connect(api, token, {
      ...scope,
      a_type: 'service',
      a_id: svc.gateway,
      b_type: 'service',
      b_id: svc[`h-${i}`],
      direction: 'a_to_b',
      chain_id: hub[0].chain_id,
    });
  await link(api, token, projectId, envId, svc.api, svc.db);
  await link(api, token, projectId, envId, svc.mail, svc.queue);
  return { svc, host };
}

/** Every service's and floor's blast radius, by name: each affected entity with its distance, the kind of its last hop and its path. */
async function blastRadii(token: string, projectId: string, envId: string) {
  const names = new Map<string, string>();
  const services = (await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=500`, { token }))
    .body as { id: string; name: string }[];
  const floors = (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}&limit=500`, { token }))
    .body as { id: string; hostname: string }[];
  for (const s of services) names.set(s.id, s.name);
  for (const f of floors) names.set(f.id, f.hostname);
  const radii: Record<string, unknown> = {};
  for (const [path, id] of [
    ...services.map((s) => ['services', s.id]),
    ...floors.map((f) => ['service-floors', f.id]),
  ]) {
    const res = await api.get(`/${path}/${id}/blast-radius`, { token });
    expect(res.status, res.text).toBe(200);
    radii[names.get(id)!] = (res.body.affected as { id: string; distance: number; via: string; path: End[] }[])
      .map((a) => ({
        name: names.get(a.id),
        distance: a.distance,
        via: a.via,
        path: a.path.map((p) => names.get(p.id)),
      }))
      .sort((x, y) => (x.name! < y.name! ? -1 : 1));
  }
  return radii;
}

describe('connections in the environment document', () => {
  it('export → import into an empty environment → export again: the same document, and every blast radius the same by name', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    await topology(owner.token, projectId, envId);

    const doc = await exportOf(projectId, envId);
    expect(doc.spec.connections).toHaveLength(8);
    expect(doc.spec.connections).toContainEqual({
      a: { service: 'edge' },
      b: { service: 'web' },
      direction: 'a_to_b',
      name: 'https',
    });
    expect(doc.spec.connections).toContainEqual({
      a: { service_floor: 'lb.internal' },
      b: { service_floor: 'db-2.internal' },
      direction: 'both',
    });
    expect(doc.spec.connection_groups.map((g) => [g.group_kind, g.connections.length])).toEqual(
      expect.arrayContaining([
        ['chain', 3],
        ['hub', 3],
        ['chain', 2],
        ['chain', 1],
        ['hub', 30],
      ]),
    );
    // A chain lists its members in the order they were made, the one joined later last.
    expect(doc.spec.connection_groups.find((g) => g.connections[0].a.service === 'worker')!.connections).toEqual([
      { a: { service: 'worker' }, b: { service: 'db' }, direction: 'a_to_b' },
      { a: { service: 'db' }, b: { service: 'mail' }, direction: 'b_to_a' },
    ]);
    const yaml = await toYaml(doc);
    expect(await toYaml(await exportOf(projectId, envId))).toBe(yaml);

    const target = await projectWithEnv(api, owner.token);
    const parsed = await parseDocument(yaml);
    expect(parsed.errors).toEqual([]);
    const { plan, report } = await importInto(target.projectId, target.envId, parsed.document!, owner.id);
    expect(report.errors).toEqual([]);
    const connectionItems = plan.report.items.filter((i) => i.kind === 'service_connection');
    expect(connectionItems).toHaveLength(8 + 3 + 3 + 2 + 1 + 30);
    expect(connectionItems.every((i) => i.action === 'create')).toBe(true);
    expect(plan.report.items.filter((i) => i.kind === 'connection_group').map((i) => i.action)).toEqual([
      'create',
      'create',
      'create',
      'create',
      'create',
    ]);
    expect(plan.report.items).toContainEqual({
      kind: 'service_connection',
      name: 'floor lb.internal <-> floor db-2.internal',
      action: 'create',
    });

    const again = await exportOf(target.projectId, target.envId);
    expect(again.spec).toEqual(doc.spec);
    expect(await toYaml({ ...again, metadata: doc.metadata })).toBe(yaml);
    expect(await blastRadii(owner.token, target.projectId, target.envId)).toEqual(
      await blastRadii(owner.token, projectId, envId),
    );
    // The big hub is one chain through the API, its count right.
    const listed = (
      await api.get(`/service-connections?project_id=${target.projectId}&environment_id=${target.envId}`, {
        token: owner.token,
      })
    ).body as { chain_id: string | null; group_kind: string | null }[];
    const hubs = new Map<string, number>();
    for (const c of listed) if (c.chain_id) hubs.set(c.chain_id, (hubs.get(c.chain_id) ?? 0) + 1);
    expect([...hubs.values()].sort((a, b) => a - b)).toEqual([1, 2, 3, 3, 30]);
    const bigHub = [...hubs.entries()].find(([, n]) => n === 30)![0];
    expect((await readItem(keys.connectionChain(target.projectId, target.envId, bigHub)))!.connection_count).toBe(30);

    // Importing it again changes nothing and writes nothing.
    const before = await readItem(keys.environment(target.projectId, target.envId));
    const second = await importInto(target.projectId, target.envId, parsed.document!, owner.id);
    expect(second.report.summary).toEqual({ create: 0, update: 0, unchanged: second.report.items.length, error: 0 });
    expect(await readItem(keys.environment(target.projectId, target.envId))).toEqual(before);
  }, 60_000); // two imports, two exports and a blast radius per service: slow on a loaded 2-core machine

  it('plans connections by their ends and direction: created, name updated, unchanged, a member joining a chain, and what the import will not regroup', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const scope = { project_id: projectId, environment_id: envId };
    const id: Record<string, string> = {};
    for (const name of ['a', 'b', 'c', 'd']) id[name] = await addService(api, owner.token, projectId, envId, name);
    id.host = await addFloor(api, owner.token, projectId, envId, 'host');
    await connect(api, owner.token, {
      ...scope,
      a_type: 'service',
      a_id: id.a,
      b_type: 'service',
      b_id: id.b,
      direction: 'a_to_b',
      name: 'old',
    });
    // Stored the other way round: (c, a, b_to_a) is a -> c.
    await connect(api, owner.token, {
      ...scope,
      a_type: 'service',
      a_id: id.c,
      b_type: 'service',
      b_id: id.a,
      direction: 'b_to_a',
    });
    const chain = await api.post(
      '/service-connections/batch',
      {
        ...scope,
        group_kind: 'chain',
        items: [{ a_type: 'service', a_id: id.b, b_type: 'service', b_id: id.c, direction: 'none' }],
      },
      { token: owner.token },
    );
    expect(chain.status, chain.text).toBe(201);
    await connect(api, owner.token, {
      ...scope,
      a_type: 'service',
      a_id: id.c,
      b_type: 'service',
      b_id: id.d,
      direction: 'both',
    });

    const services = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const document = async (spec: Partial<EnvironmentDocument['spec']>) => {
      const parsed = await parseDocument(
        JSON.stringify({
          apiVersion: IMPEX_API_VERSION,
          kind: 'Environment',
          spec: { services, service_floors: [{ hostname: 'host', type: 'vm' }], ...spec },
        }),
      );
      expect(parsed.errors).toEqual([]);
      return parsed.document!;
    };
    const ctx = appContext();
    const plan = await planImport(
      {
        projectId,
        environmentId: envId,
        document: await document({
          connections: [
            { a: { service: 'a' }, b: { service: 'b' }, direction: 'a_to_b', name: 'new' },
            { a: { service: 'a' }, b: { service: 'c' }, direction: 'a_to_b' },
            { a: { service: 'd' }, b: { service_floor: 'host' }, direction: 'none' },
          ],
          connection_groups: [
            {
              group_kind: 'chain',
              connections: [
                { a: { service: 'c' }, b: { service: 'b' }, direction: 'none' },
                { a: { service: 'b' }, b: { service: 'd' }, direction: 'a_to_b' },
              ],
            },
          ],
        }),
      },
      ctx,
    );
    expect(plan.report.errors).toEqual([]);
    expect(plan.report.items.filter((i) => i.kind === 'service_connection' || i.kind === 'connection_group')).toEqual([
      { kind: 'service_connection', name: 'a -> b', action: 'update', detail: 'changed: name' },
      { kind: 'service_connection', name: 'a -> c', action: 'unchanged' },
      { kind: 'service_connection', name: 'd -- floor host', action: 'create' },
      { kind: 'connection_group', name: 'chain of 2: c -- b, ...', action: 'unchanged' },
      { kind: 'service_connection', name: 'c -- b', action: 'unchanged' },
      { kind: 'service_connection', name: 'b -> d', action: 'create' },
    ]);
    const report = await applyImport(plan, ctx);
    expect(report.errors).toEqual([]);
    const listed = (
      await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })
    ).body as { a_id: string; b_id: string; name: string | null; chain_id: string | null }[];
    expect(listed).toHaveLength(6);
    expect(listed.find((c) => c.a_id === id.a && c.b_id === id.b)!.name).toBe('new');
    expect(listed.find((c) => c.a_id === id.b && c.b_id === id.d)!.chain_id).toBe(chain.body[0].chain_id);
    // Nothing deleted: c <-> d, not in the document, stays.
    expect(listed.some((c) => c.a_id === id.c && c.b_id === id.d)).toBe(true);

    // The document and the environment grouping a connection differently: a problem, nothing written.
    const regroup = await planImport(
      {
        projectId,
        environmentId: envId,
        document: await document({
          connections: [{ a: { service: 'b' }, b: { service: 'c' }, direction: 'none' }],
          connection_groups: [
            { group_kind: 'hub', connections: [{ a: { service: 'c' }, b: { service: 'd' }, direction: 'both' }] },
          ],
        }),
      },
      ctx,
    );
    expect(regroup.report.errors).toEqual([
      {
        path: '/spec/connections/0',
        line: null,
        message:
          "Connection 'b -- c' is in a chain in the environment: an import does not regroup connections (change the document or the environment to match)",
      },
      {
        path: '/spec/connection_groups/0/connections/0',
        line: null,
        message:
          "Connection 'c <-> d' stands on its own in the environment: an import does not regroup connections (change the document or the environment to match)",
      },
    ]);
  });

  it('names each document problem of a connection with its line: an end naming nothing or two things, an unknown name, a self-connection, a duplicate', async () => {
    const text = [
      `apiVersion: ${IMPEX_API_VERSION}`, // 1
      'kind: Environment', // 2
      'spec:', // 3
      '  services: [{ name: a }, { name: b }]', // 4
      '  service_floors: [{ hostname: h, type: vm }]', // 5
      '  connections:', // 6
      '    - { a: { service: a, service_floor: h }, b: { service: b } }', // 7
      '    - { a: { service: a }, b: { service: zz } }', // 8
      '    - { a: { service_floor: h }, b: { service_floor: H } }', // 9
      '    - { a: { service: a }, b: { service: b }, direction: a_to_b }', // 10
      '  connection_groups:', // 11
      '    - group_kind: hub', // 12
      '      connections:', // 13
      '        - { a: { service: b }, b: { service: a }, direction: b_to_a }', // 14
      '    - { group_kind: ring, connections: [] }', // 15
    ].join('\n');
    expect((await parseDocument(text)).errors).toEqual([
      {
        path: '/spec/connections/0/a',
        line: 7,
        message: 'A connection end names exactly one of service or service_floor',
      },
      {
        path: '/spec/connections/1/b/service',
        line: 8,
        message: "Unknown service 'zz': no service of that name in the document",
      },
      { path: '/spec/connections/2/b', line: 9, message: 'An entity may not be connected to itself' },
      {
        path: '/spec/connection_groups/0/connections/0',
        line: 14,
        message: 'Duplicate connection: another connection of the document joins these two ends in this direction',
      },
      {
        path: '/spec/connection_groups/1/connections',
        line: 15,
        message: 'Too small: expected array to have >=1 items',
      },
      {
        path: '/spec/connection_groups/1/group_kind',
        line: 15,
        message: 'Invalid option: expected one of "chain"|"hub"',
      },
    ]);
  });

  it('a connection made meanwhile stops the import with a clear message and no duplicate; importing again finishes', async () => {
    const { owner, projectId, envId } = await ownerWithEnv(api);
    const a = await addService(api, owner.token, projectId, envId, 'a');
    const b = await addService(api, owner.token, projectId, envId, 'b');
    const document = (
      await parseDocument(
        JSON.stringify({
          apiVersion: IMPEX_API_VERSION,
          kind: 'Environment',
          spec: {
            services: [{ name: 'a' }, { name: 'b' }],
            connections: [{ a: { service: 'a' }, b: { service: 'b' }, direction: 'a_to_b' }],
          },
        }),
      )
    ).document!;
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.summary.create).toBe(1);
    // The same connection, made between the plan and its apply.
    await connect(api, owner.token, {
      project_id: projectId,
      environment_id: envId,
      a_type: 'service',
      a_id: b,
      b_type: 'service',
      b_id: a,
      direction: 'b_to_a',
    });
    const report = await applyImport(plan, ctx);
    expect(report.errors).toEqual([
      {
        path: '',
        line: null,
        message: 'The connections of the environment changed during the import: import again to finish',
      },
    ]);
    const list = async () =>
      (await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, { token: owner.token }))
        .body as unknown[];
    expect(await list()).toHaveLength(1);
    const replan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(replan.report.items).toContainEqual({ kind: 'service_connection', name: 'a -> b', action: 'unchanged' });
    expect((await applyImport(replan, ctx)).errors).toEqual([]);
    expect(await list()).toHaveLength(1);
  });
});
