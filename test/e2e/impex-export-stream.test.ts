import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';
import { appContext } from '#shared/context';
import { uploadDocument } from '#shared/storage';
import {
  applyImport,
  buildExportDocument,
  exportParts,
  IMPEX_API_VERSION,
  planImport,
  recordById,
  toYaml,
  yamlText,
  type DocumentPart,
  type EnvironmentDocument,
} from '#domain/impex';

const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

/** Waits for a job through its status endpoint. */
async function finished(token: string, jobId: string) {
  for (let i = 0; i < 200; i++) {
    await ref.stack.queues.drain();
    const res = await api.get(`/impex/status/${jobId}`, { token });
    expect(res.status, res.text).toBe(200);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
  }
  throw new Error('job never finished');
}

/** Runs an export over HTTP and follows its signed link to the presigned URL, fetched with no credential at all. */
async function exportAndDownload(token: string, projectId: string, envId: string) {
  const body = new FormData();
  body.set('project_id', projectId);
  body.set('environment_id', envId);
  const started = await fetch(`${ref.stack.url}/impex/export`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(started.status).toBe(202);
  const record = await finished(token, ((await started.json()) as { job_id: string }).job_id);
  expect(record.status, record.error).toBe('succeeded');
  const link = new URL(record.download_url);
  const redirect = await api.get(`${link.pathname}${link.search}`);
  expect(redirect.status, redirect.text).toBe(302);
  const download = await fetch(redirect.headers.get('location')!);
  expect(download.status).toBe(200);
  return { record, text: await download.text() };
}

/** Imports `document` into the environment (the engine in process: quicker than the job for building). */
async function importInto(projectId: string, environmentId: string, document: EnvironmentDocument) {
  const ctx = appContext();
  const plan = await planImport({ projectId, environmentId, document }, ctx);
  expect(plan.report.errors).toEqual([]);
  const report = await applyImport(plan, ctx, () => {});
  expect(report.errors).toEqual([]);
}

/** Names that YAML must quote or escape, sort differently by code unit than by locale, or are not ASCII. */
const TRICKY = [
  'yes',
  'null',
  '007',
  'svc: colon',
  "o'brien",
  '"quoted"',
  '- dash',
  '#hash',
  'Zürich',
  'ångström',
  'B-upper',
  'a-lower',
  '🚀 rocket',
  'tab\there',
  '  spaced  '.trim(),
  'x'.repeat(180),
];

/** A varied environment: every section, tricky strings, multi-line text, empty and full fields, chains and hubs. */
function variedDocument(): EnvironmentDocument {
  const services = [...TRICKY, ...Array.from({ length: 40 }, (_, i) => `svc-${String(i).padStart(2, '0')}`)];
  const floors = ['db-1.internal', 'Node-2', 'node-10', 'ünïcode.host'];
  return {
    apiVersion: IMPEX_API_VERSION,
    kind: 'Environment',
    metadata: {},
    spec: {
      groups: [
        {
          name: 'backend',
          description: 'line one\nline two\n  indented three',
          subgroups: [{ name: 'core' }, { name: 'Edge', description: 'trailing space ' }],
        },
        { name: 'yes', description: 'a: b # not a comment' },
        { name: 'Ärger', subgroups: [] },
      ],
      service_floors: floors.map((hostname, i) => ({
        hostname,
        type: i % 2 ? 'container' : 'vm',
        provider: 'aws',
        provider_region: 'eu-west-1',
        cpu: i + 1,
        memory_mb: 1024 * (i + 1),
        ...(i % 2 ? { tags: ['db', 'primär'], ip_addresses: ['10.0.0.1', '10.0.0.2'] } : {}),
      })),
      networks: [
        {
          name: 'private',
          cidr: '10.0.0.0/16',
          is_private: true,
          gateway: '10.0.0.1',
          vlan_id: 100,
          description: 'multi\nline',
        },
        { name: 'Public', cidr: '203.0.113.0/24', is_private: false },
        { name: 'null', cidr: '192.168.0.0/24' },
      ],
      services: services.map((name, i) => ({
        name,
        ...(i % 3 === 0
          ? { group: 'backend', ...(i % 2 ? { subgroup: 'core' } : {}) }
          : i % 3 === 1
            ? { group: 'yes' }
            : {}),
        ...(i % 4 ? { floor: floors[i % floors.length] } : {}),
        ...(i % 2
          ? { category: 'http', port: 8000 + i, replicas: i % 5 }
          : { programming_language: ['go', 'typescript', 'python'][i % 3], version: `1.${i}.0` }),
        ...(i % 5 === 0
          ? { tags: ['critical', `team-${i % 7}`], links: [`https://svc-${i}.example.com/health?a=1&b=2`] }
          : {}),
        ...(i % 6 === 0
          ? {
              repository_url: `https://git.example.com/${i}`,
              repository_deps: [
                { name: 'lib', repository_url: 'https://git.example.com/lib', version: '2.0.0' },
                { name: 'tools' },
              ],
            }
          : {}),
      })),
      service_links: services.slice(0, 20).map((from, i) => ({ from, to: services[(i * 7 + 3) % services.length] })),
      network_attachments: [
        ...services
          .filter((_, i) => i % 5 === 1)
          .map((service, i) => ({ service, networks: i % 2 ? ['private', 'Public'] : ['null'] })),
        { service_floor: 'db-1.internal', networks: ['private'] },
        { service_floor: 'Node-2', networks: ['Public', 'private'] },
      ],
      connections: [
        ...services.slice(0, 25).map((a, i) => ({
          a: { service: a },
          b: i % 4 ? { service: services[(i + 11) % services.length] } : { service_floor: floors[i % floors.length] },
          direction: (['a_to_b', 'b_to_a', 'both', 'none'] as const)[i % 4],
          ...(i % 3 ? {} : { name: `link: ${i}` }),
        })),
      ],
      connection_groups: [
        {
          group_kind: 'chain',
          connections: [
            { a: { service: 'svc-30' }, b: { service: 'svc-31' }, direction: 'a_to_b' },
            { a: { service: 'svc-31' }, b: { service: 'yes' }, direction: 'both', name: 'second' },
          ],
        },
        {
          group_kind: 'hub',
          connections: [
            { a: { service: 'Zürich' }, b: { service: 'svc-01' }, direction: 'none' },
            { a: { service: 'Zürich' }, b: { service_floor: 'Node-2' }, direction: 'a_to_b' },
          ],
        },
      ],
    },
  } as unknown as EnvironmentDocument;
}

describe('streamed export', () => {
  it('the uploaded document is byte for byte the whole document rendered at once, on a varied environment', {
    timeout: 60_000,
  }, async () => {
    const o = await ownerWithEnv(api, 'Team');
    await importInto(o.projectId, o.envId, variedDocument());
    // What a document cannot name is left out: a floor without hostname (and a connection to it), a deleted service.
    const anonymous = await createFloor(api, o.token, o.projectId, o.envId, { type: 'vm', cpu: 2 });
    const gone = await createService(api, o.token, o.projectId, o.envId, { name: 'gone' });
    const listed = await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}&name=svc-00`, {
      token: o.token,
    });
    const connection = {
      project_id: o.projectId,
      environment_id: o.envId,
      a_type: 'service',
      a_id: listed.body[0].id,
      b_type: 'floor',
      b_id: anonymous.id,
    };
    expect((await api.post('/service-connections', connection, { token: o.token })).status).toBe(201);
    expect((await api.delete(`/services/${gone.id}`, undefined, { token: o.token })).status).toBe(204);

    const { record, text } = await exportAndDownload(o.token, o.projectId, o.envId);
    const input = {
      projectId: o.projectId,
      environmentId: o.envId,
      recordId: record.id,
      exportedAt: parse(text).metadata.exported_at,
    };
    const whole = await buildExportDocument(input);
    expect(text).toBe(await toYaml(whole));
    // Parts of a few items each (every section in several parts) render to the same bytes.
    let small = '';
    for await (const chunk of yamlText(exportParts(input, 3))) small += chunk;
    expect(small).toBe(text);
    expect(whole.spec.services.map((s) => s.name)).not.toContain('gone');
    expect(whole.spec.service_floors).toHaveLength(5);
    expect(whole.spec.connection_groups).toHaveLength(2);
    if (process.env.EXPORT_DUMP)
      (await import('node:fs')).writeFileSync(process.env.EXPORT_DUMP, text.split('spec:\n')[1]);
  });

  it('a large export (600 services, 60 floors, 1,200 connections) downloads whole through its presigned URL, with no token', {
    timeout: 60_000,
  }, async () => {
    const o = await ownerWithEnv(api, 'Enterprise+');
    const n = 600;
    const floors = Array.from({ length: n / 10 }, (_, i) => `host-${i}.internal`);
    const name = (i: number) => `service-${String(i).padStart(4, '0')}`;
    await importInto(o.projectId, o.envId, {
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      metadata: {},
      spec: {
        groups: [],
        networks: [],
        service_links: [],
        network_attachments: [],
        connection_groups: [],
        service_floors: floors.map((hostname) => ({ hostname, type: 'vm', cpu: 2 })),
        services: Array.from({ length: n }, (_, i) => ({
          name: name(i),
          floor: floors[i % floors.length],
          port: 8000 + (i % 100),
          tags: [`team-${i % 7}`],
        })),
        connections: Array.from({ length: 2 * n }, (_, k) => ({
          a: { service: name(Math.floor(k / 2)) },
          b: { service: name((Math.floor(k / 2) + 1 + (k % 2)) % n) },
          direction: 'a_to_b',
        })),
      },
    } as unknown as EnvironmentDocument);
    const { text } = await exportAndDownload(o.token, o.projectId, o.envId);
    const downloaded = parse(text);
    expect(downloaded.spec.services).toHaveLength(n);
    expect(downloaded.spec.service_floors).toHaveLength(n / 10);
    expect(downloaded.spec.connections).toHaveLength(2 * n);
    expect(downloaded.spec.services.map((s: { name: string }) => s.name)).toEqual(
      Array.from({ length: n }, (_, i) => name(i)),
    );
  });

  it("a 50 MB document streamed through the export's uploader downloads through the record's signed link and presigned URL, with no token", {
    timeout: 60_000,
  }, async () => {
    const o = await ownerWithEnv(api, 'Team');
    const { record } = await exportAndDownload(o.token, o.projectId, o.envId);
    const { document_key } = (await recordById(record.id))!;
    // A synthetic document of 50 MB (services with long link lists), rendered a part at a time and streamed into the record's object
    // by the uploader the export job uses (a multipart upload of 5 MB parts): building an environment this big would take minutes.
    const links = Array.from({ length: 8 }, (_, i) => `https://runbooks.example.com/${'x'.repeat(100)}/${i}`);
    async function* parts(): AsyncGenerator<DocumentPart> {
      yield { head: { apiVersion: IMPEX_API_VERSION, kind: 'Environment', metadata: {} } };
      for (let i = 0; i < 50_000; i += 500)
        yield { section: 'services', items: Array.from({ length: 500 }, (_, k) => ({ name: `svc-${i + k}`, links })) };
    }
    const hash = createHash('sha256');
    let size = 0;
    async function* counted() {
      for await (const chunk of yamlText(parts())) {
        hash.update(chunk);
        size += Buffer.byteLength(chunk);
        yield chunk;
      }
    }
    await uploadDocument(document_key!, counted(), 'application/yaml');
    expect(size).toBeGreaterThanOrEqual(50 * 1024 * 1024);

    const link = new URL(record.download_url);
    const redirect = await api.get(`${link.pathname}${link.search}`);
    expect(redirect.status).toBe(302);
    const download = await fetch(redirect.headers.get('location')!);
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(hash.digest('hex'));
  });
});
