import { describe, expect, it } from 'vitest';
import { parse as yamlParse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createService, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { appContext } from '#shared/context';
import { applyImport, environmentDocument, IMPEX_API_VERSION, parseDocument, planImport, toYaml } from '#domain/impex';

/**
 * Big imports: a valid document is read without a YAML node tree and planned and written a
 * slice at a time; what a user sees does not change: the same values, every problem with its line, the
 * service limit stopping the import part-way.
 */
const ref = useTestStack();
const api = client(() => ref.stack.url);

const limitMessage = (plan: string, max: number) =>
  `Service limit reached for your '${plan}' plan (max ${max} per project including add-ons). Please upgrade or archive services.`;

describe('reading a document', () => {
  it('a valid document means what the YAML library reads in it: comments, flow and block styles, quoting, null, booleans, octal and hex', async () => {
    const text = [
      `apiVersion: ${IMPEX_API_VERSION} # the version`,
      'kind: Environment',
      'spec:',
      '  networks: [{ name: "lan", cidr: 10.0.0.0/24, vlan_id: 0x1F, is_private: false }, { name: wan, cidr: 10.1.0.0/24, vlan_id: 0o17, description: ~ }]',
      '  services:',
      "    - name: 'api: public'",
      '      port: 8080',
      '      responsible_name: |',
      '        Two lines,',
      '        kept.',
      '      tags: [a, "b c", \'0x10\', "true"]',
      '      version: "1.10"',
      '    - name: worker',
      '      responsible_name: >-',
      '        folded',
      '        text',
      '      replicas: +3',
      '      links:',
      '        - https://example.com/a?x=1&y=2',
      '',
    ].join('\n');
    const result = await parseDocument(text);
    expect(result.errors).toEqual([]);
    expect(result.document).toEqual(environmentDocument.parse(yamlParse(text)));
    expect(result.document!.spec.networks.map((n) => n.vlan_id)).toEqual([31, 15]);
    expect(result.document!.spec.services[0]).toMatchObject({
      name: 'api: public',
      responsible_name: 'Two lines,\nkept.',
      tags: ['a', 'b c', '0x10', 'true'],
      version: '1.10',
    });
    expect(result.document!.spec.services[1]).toMatchObject({ responsible_name: 'folded text', replicas: 3 });
  });

  it('anchors and aliases still read (expanded, as before); duplicate keys are still an error with their line', async () => {
    const text = [
      `apiVersion: ${IMPEX_API_VERSION}`,
      'kind: Environment',
      'spec:',
      '  services:',
      '    - { name: a, tags: &shared [x, y] }',
      '    - { name: b, tags: *shared }',
      '',
    ].join('\n');
    const result = await parseDocument(text);
    expect(result.errors).toEqual([]);
    expect(result.document!.spec.services.map((s) => s.tags)).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);
    const twice = await parseDocument(
      [`apiVersion: ${IMPEX_API_VERSION}`, 'kind: Environment', 'spec:', '  services: []', '  services: []', ''].join(
        '\n',
      ),
    );
    expect(twice.document).toBeNull();
    expect(twice.errors).toEqual([
      { path: '', line: 5, message: expect.stringMatching(/^Not valid YAML or JSON: Map keys must be unique/) },
    ]);
  });

  it('a document of 3,000 services with three problems reports each of them with its line', async () => {
    const services = Array.from({ length: 3000 }, (_, i) => ({
      name: `svc-${i}`,
      port: 1000 + i,
      tags: [`t-${i % 5}`],
    }));
    const text = await toYaml(
      environmentDocument.parse({ apiVersion: IMPEX_API_VERSION, kind: 'Environment', spec: { services } }),
    );
    const lines = text.split('\n');
    const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
    const field = lines[lineOf('name: svc-2999')].match(/^ */)![0]; // the indentation of the service's next field
    const bad = text
      .replace('port: 1100\n', 'port: eleven hundred\n')
      .replace('name: svc-2500\n', 'name: SVC-7\n')
      .replace('name: svc-2999\n', `name: svc-2999\n${field}colour: blue\n`);
    const result = await parseDocument(bad);
    expect(result.document).toBeNull();
    expect(result.errors).toEqual([
      {
        path: '/spec/services/100/port',
        line: lineOf('port: 1100'),
        message: 'Invalid input: expected number, received string',
      },
      {
        path: '/spec/services/2500/name',
        line: lineOf('name: svc-2500'),
        message: "Duplicate service name 'SVC-7': names must be unique (ignoring case)",
      },
      { path: '/spec/services/2999/colour', line: lineOf('name: svc-2999') + 1, message: "Unknown field 'colour'" },
    ]);
  });
});

describe('a big import, written a slice at a time', () => {
  it('stops at the service limit reached during the import: what committed stays, every later item (links too) is not applied', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Team'); // 100 services
    const document = environmentDocument.parse({
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: {
        services: Array.from({ length: 90 }, (_, i) => ({ name: `s-${i}` })),
        service_links: Array.from({ length: 45 }, (_, i) => ({ from: `s-${2 * i}`, to: `s-${2 * i + 1}` })),
      },
    });
    const ctx = appContext();
    const plan = await planImport({ projectId, environmentId: envId, document }, ctx);
    expect(plan.report.errors).toEqual([]);
    expect(plan.report.summary).toEqual({ create: 135, update: 0, unchanged: 0, error: 0 });
    const progress: number[] = [];
    const report = await applyImport(
      plan,
      ctx,
      async (done) => {
        progress.push(done);
        // Someone creates 30 services once the first chunk (32 services) has committed.
        if (done === 32)
          for (let i = 0; i < 30; i++) await createService(api, token, projectId, envId, { name: `other-${i}` });
      },
      undefined,
      192,
    ); // chunks of 32 services (6 new items each: service, id lookup, listing, and 3 search entries of `s-<n>`)
    expect(progress).toEqual([0, 32, 64]); // 32 + 30 + 32 = 94; the next 26 would pass 100
    expect(report.errors).toEqual([{ path: '', line: null, message: limitMessage('Team', 100) }]);
    expect(report.summary).toEqual({ create: 64, update: 0, unchanged: 0, error: 1 });
    expect(report.items.slice(0, 64).every((i) => i.action === 'create')).toBe(true);
    expect(report.items.slice(64).map((i) => i.kind)).toEqual([
      ...Array(26).fill('service'),
      ...Array(45).fill('service_link'),
    ]);
    expect(
      report.items.slice(64).every((i) => i.action === 'error' && i.detail === 'not applied: the import stopped'),
    ).toBe(true);
    expect((await readItem(keys.project(projectId)))!.service_count).toBe(94);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(94);
    const links = await api.get(`/service-links?project_id=${projectId}&environment_id=${envId}`, { token });
    expect(links.status).toBe(200);
    expect(links.body).toEqual([]);
  });
});
