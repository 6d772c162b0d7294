import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { impexJobs } from '../helpers/impex.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv, createService, createFloor, createNetwork, newEnv } from '../helpers/catalog.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { signedDownloadUrl } from '#domain/impex';
import { followProgress, refusedUpgrade, withJobsHeld } from '../helpers/progress.ts';
import { runningClock } from '../helpers/sign-in.ts';

const clock = runningClock();
const ref = useTestStack({}, { withS3: true, clock });
const api = client(() => ref.stack.url);

const { form, finished } = impexJobs(ref, api);

/** An environment with groups, subgroups, `n` services, floors, networks, links and attachments. */
async function richEnvironment(token: string, projectId: string, envId: string, n: number) {
  const group = (
    await api.post('/groups', { name: 'backend', project_id: projectId, environment_id: envId }, { token })
  ).body;
  await api.post('/groups', { name: 'frontend', project_id: projectId, environment_id: envId }, { token });
  const sub = (
    await api.post(
      '/subgroups',
      { name: 'payments', group_id: group.id, project_id: projectId, environment_id: envId },
      { token },
    )
  ).body;
  const floor = await createFloor(api, token, projectId, envId, { hostname: 'host-a', type: 'vm' });
  await createFloor(api, token, projectId, envId, { hostname: 'host-b', type: 'vm' });
  const net = await createNetwork(api, token, projectId, envId, { name: 'lan', cidr: '10.0.0.0/24' });
  const services: { id: string }[] = [];
  for (let i = 0; i < n; i++) {
    services.push(
      await createService(api, token, projectId, envId, {
        name: `svc-${String(i).padStart(2, '0')}`,
        port: 8000 + i,
        tags: [`t${i % 3}`],
        ...(i % 5 === 0 ? { group_id: group.id, subgroup_id: sub.id } : {}),
        ...(i % 7 === 0 ? { service_floor_id: floor.id } : {}),
      }),
    );
  }
  for (let i = 1; i < 6; i++)
    expect(
      (
        await api.post(
          '/service-links',
          {
            from_service_id: services[0].id,
            to_service_id: services[i].id,
            project_id: projectId,
            environment_id: envId,
          },
          { token },
        )
      ).status,
    ).toBe(201);
  expect(
    (await api.patch(`/attachments/services/${services[1].id}/networks`, { network_ids: [net.id] }, { token })).status,
  ).toBe(200);
  expect(
    (await api.patch(`/attachments/service-floors/${floor.id}/networks`, { network_ids: [net.id] }, { token })).status,
  ).toBe(200);
  const connection = {
    project_id: projectId,
    environment_id: envId,
    a_type: 'service',
    a_id: services[2].id,
    b_type: 'floor',
    b_id: floor.id,
    direction: 'a_to_b',
  };
  expect((await api.post('/service-connections', connection, { token })).status).toBe(201);
  const hub = {
    project_id: projectId,
    environment_id: envId,
    group_kind: 'hub',
    items: [3, 4].map((i) => ({ a_type: 'service', a_id: services[2].id, b_type: 'service', b_id: services[i].id })),
  };
  expect((await api.post('/service-connections/batch', hub, { token })).status).toBe(201);
}

async function exportAndDownload(token: string, projectId: string, envId: string) {
  const started = await form('/impex/export', token, { project_id: projectId, environment_id: envId });
  expect(started.status, started.text).toBe(202);
  expect(started.body).toEqual({ status: 'queued', job_id: expect.any(String), record_id: expect.any(String) });
  const record = await finished(token, started.body.job_id);
  expect(record.status).toBe('succeeded');
  const url = new URL(record.download_url);
  expect(url.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
  // The link needs no other credential: it redirects to the document's presigned URL in the bucket, fetched with nothing else.
  const link = await api.get(`${url.pathname}${url.search}`);
  expect(link.status, link.text).toBe(302);
  const presigned = new URL(link.headers.get('location')!);
  expect(presigned.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  const download = await fetch(presigned);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toContain('yaml');
  return { text: await download.text(), record, url, presigned };
}

describe('import and export over HTTP', () => {
  it('round trip: export, download through the signed link, import into an empty environment elsewhere, export again: identical spec', async () => {
    const o = await ownerWithEnv(api, 'Team');
    await richEnvironment(o.token, o.projectId, o.envId, 50);
    const first = await exportAndDownload(o.token, o.projectId, o.envId);
    const other = await projectWithEnv(api, o.token);
    const imported = await form(
      '/impex/import',
      o.token,
      { project_id: other.projectId, environment_id: other.envId },
      { name: 'env.yaml', text: first.text },
    );
    expect(imported.status, imported.text).toBe(202);
    const record = await finished(o.token, imported.body.job_id);
    expect(record.status, JSON.stringify(record.report)).toBe('succeeded');
    expect(record.report.summary.error).toBe(0);
    const second = await exportAndDownload(o.token, other.projectId, other.envId);
    expect(parse(second.text).spec).toEqual(parse(first.text).spec);
    expect(parse(first.text).spec.services).toHaveLength(50);
    // The topology came along: the same connections, a hub among them.
    const connections = await api.get(
      `/service-connections?project_id=${other.projectId}&environment_id=${other.envId}`,
      { token: o.token },
    );
    expect(connections.body.map((c: { group_kind: string | null }) => String(c.group_kind)).sort()).toEqual([
      'hub',
      'hub',
      'null',
    ]);

    const history = await api.get(`/impex/history?project_id=${o.projectId}`, { token: o.token });
    expect(history.body.map((r: { kind: string }) => r.kind)).toEqual(['export']);
    const both = await api.get(`/impex/history?project_id=${other.projectId}&limit=1`, { token: o.token });
    expect(both.body.map((r: { kind: string }) => r.kind)).toEqual(['export']);
    expect(
      (await api.get(`/impex/history?project_id=${other.projectId}`, { token: o.token })).body.map(
        (r: { kind: string }) => r.kind,
      ),
    ).toEqual(['export', 'import']);
  });

  it('the audit log holds one entry per import with its counts and an entry per entity tagged with the import, by the account that started it', async () => {
    const o = await ownerWithEnv(api, 'Team');
    await richEnvironment(o.token, o.projectId, o.envId, 6);
    const first = await exportAndDownload(o.token, o.projectId, o.envId);
    const other = await projectWithEnv(api, o.token);
    const run = async (text: string) => {
      const started = await form(
        '/impex/import',
        o.token,
        { project_id: other.projectId, environment_id: other.envId },
        { name: 'env.yaml', text },
      );
      expect(started.status, started.text).toBe(202);
      const record = await finished(o.token, started.body.job_id);
      expect(record.status, JSON.stringify(record.report)).toBe('succeeded');
      return record;
    };
    const log = async (query: string) =>
      (await api.get(`/projects/${other.projectId}/audit-log?limit=500&${query}`, { token: o.token })).body as Record<
        string,
        any
      >[];
    const created = await run(first.text);
    const [summary] = await log('entity_type=import');
    expect(summary).toMatchObject({
      action: 'import.apply',
      entity_id: created.id,
      import_id: created.id,
      environment_id: other.envId,
      summary: { create: created.report.summary.create, update: 0, status: 'succeeded' },
    });
    expect(summary.actor).toMatchObject({ type: 'account', id: o.owner.id, email: o.owner.email });
    const perEntity = (await log('')).filter((e) => e.import_id === created.id && e.entity_type !== 'import');
    // One entry per created entity, but a chain's entry lists the members written with it (as a batch's does).
    const members = perEntity
      .filter((e) => e.entity_type === 'chain')
      .reduce((n, e) => n + e.after.connections.length, 0);
    expect(members).toBe(2);
    expect(perEntity).toHaveLength(created.report.summary.create - members);
    expect(new Set(perEntity.map((e) => e.action))).toEqual(
      new Set([
        'group.create',
        'subgroup.create',
        'network.create',
        'floor.create',
        'service.create',
        'link.create',
        'connection.create',
        'chain.create',
      ]),
    );
    for (const e of perEntity) expect(e.actor.id).toBe(o.owner.id);

    // Importing a changed document updates one service: its entry tags the second import, with before and after.
    const updated = await run(first.text.replace('port: 8001', 'port: 9001'));
    const changes = (await log(`action=service.update`)).filter((e) => e.import_id === updated.id);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ before: { port: 8001 }, after: { port: 9001 } });
    expect((await log('entity_type=import'))[0].summary).toMatchObject({ create: 0, update: 1 });
  });

  it('an import with errors reports them all and writes nothing; dry_run plans without writing', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const example = (await api.get('/impex/example', { token: o.token })).body;
    const broken = structuredClone(example);
    broken.spec.services[0].port = 'eighty';
    broken.spec.services.push({ ...example.spec.services[0] });
    broken.spec.services[1] = { ...broken.spec.services[1], floor: 'no-such-host' };
    const res = await form(
      '/impex/import',
      o.token,
      { project_id: o.projectId, environment_id: o.envId },
      { name: 'bad.json', text: JSON.stringify(broken, null, 2) },
    );
    const record = await finished(o.token, res.body.job_id);
    expect(record.status).toBe('failed');
    // A bad type, an unknown floor, a duplicate name: all three reported, each with its path and line.
    expect(record.report.errors).toHaveLength(3);
    expect(record.report.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['/spec/services/0/port', expect.stringMatching(/^\/spec\/services\/1/)]),
    );
    expect(record.report.errors.every((e: { line: number | null }) => typeof e.line === 'number')).toBe(true);
    expect(
      (await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })).body,
    ).toEqual([]);

    const dry = await form(
      '/impex/import',
      o.token,
      { project_id: o.projectId, environment_id: o.envId, dry_run: 'true' },
      { name: 'ok.json', text: JSON.stringify(example) },
    );
    const planned = await finished(o.token, dry.body.job_id);
    expect(planned.status).toBe('succeeded');
    expect(planned.report.summary.create).toBeGreaterThan(0);
    expect(
      (await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })).body,
    ).toEqual([]);
  });

  it('download links: 403 when tampered, 410 past expiry; history and status refuse outsiders', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const { url } = await exportAndDownload(o.token, o.projectId, o.envId);
    const exp = Number(url.searchParams.get('exp'));
    const tampered = await api.get(`${url.pathname}?exp=${exp + 3600}&sig=${url.searchParams.get('sig')}`, {
      token: o.token,
    });
    expect(tampered.status).toBe(403);
    const badSig = await api.get(`${url.pathname}?exp=${exp}&sig=${'0'.repeat(64)}`, { token: o.token });
    expect(badSig.status).toBe(403);
    // A genuine link (signed by the service) whose time has passed.
    const recordId = url.pathname.split('/').at(-1)!;
    const expired = new URL(await signedDownloadUrl(ref.stack.url, recordId, new Date(Date.now() - 1000)));
    const late = await api.get(`${expired.pathname}${expired.search}`, { token: o.token });
    expect(late.status).toBe(410);
    expect(late.body).toEqual({ detail: 'Link expired' });
    // The link is the credential: whoever holds it gets the document, until it expires.
    const outsider = await signUp(api);
    expect((await api.get(`${url.pathname}${url.search}`, { token: outsider.token })).status).toBe(302);
    // The presigned URL it answers lives at most what is left of the link's life: one for a second works now…
    const shortLived = await api.get(await signedDownloadUrl('', recordId, new Date(Date.now() + 1500)));
    expect(shortLived.status).toBe(302);
    const presigned = new URL(shortLived.headers.get('location')!);
    expect(Number(presigned.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(2);
    expect((await fetch(presigned)).status).toBe(200);
    // …and is refused once the link's life is over: with the service's clock 3 s behind, a link that
    // ran out a second ago still has 2 s left for it, and the presigned URL it answers has ended.
    clock.advance(-3000);
    try {
      const lapsed = await api.get(await signedDownloadUrl('', recordId, new Date(Date.now() - 1000)));
      expect(lapsed.status).toBe(302);
      expect((await fetch(new URL(lapsed.headers.get('location')!))).status).toBe(403);
    } finally {
      clock.reset();
    }
    const stranger = await signUp(api);
    expect((await api.get(`/impex/history?project_id=${o.projectId}`, { token: stranger.token })).body).toEqual({
      detail: 'Not a member of this project',
    });
    expect((await api.get(`/impex/history?project_id=${o.projectId}&limit=201`, { token: o.token })).status).toBe(422);
    expect((await api.get(`/impex/status/${url.pathname.split('/').at(-1)}?token=nonsense`)).status).toBe(401);
  });

  it('a job status answers the access token as `token` query parameter or as the usual Bearer header; none is the usual 401', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const { job_id: jobId } = (
      await form('/impex/export', o.token, { project_id: o.projectId, environment_id: o.envId })
    ).body;
    const done = await finished(o.token, jobId); // the query form
    const byHeader = await api.get(`/impex/status/${jobId}`, { token: o.token });
    expect([byHeader.status, byHeader.body]).toEqual([200, done]);
    // The query token wins over the header, as when it was the only way (a stale header does not spoil it).
    const both = await api.get(`/impex/status/${jobId}?token=${encodeURIComponent(o.token)}`, { token: 'not-a-token' });
    expect([both.status, both.body]).toEqual([200, done]);

    const none = await api.get(`/impex/status/${jobId}`);
    expect([none.status, none.body, none.headers.get('www-authenticate')]).toEqual([
      401,
      { detail: 'Not authenticated' },
      'Bearer',
    ]);
    const garbage = await api.get(`/impex/status/${jobId}`, { token: 'not-a-token' });
    expect([garbage.status, garbage.body]).toEqual([401, { detail: 'Invalid or expired token' }]);
    expect((await api.get(`/impex/status/${jobId}?token=not-a-token`)).body).toEqual(garbage.body);

    // Another account's job is the same 404 either way, and the same as a job that does not exist.
    const stranger = await signUp(api);
    const foreign = await api.get(`/impex/status/${jobId}`, { token: stranger.token });
    expect([foreign.status, foreign.body]).toEqual([404, { detail: 'Job not found' }]);
    expect((await api.get(`/impex/status/${jobId}?token=${encodeURIComponent(stranger.token)}`)).text).toBe(
      foreign.text,
    );
    expect((await api.get('/impex/status/00000000-0000-4000-8000-000000000000', { token: o.token })).text).toBe(
      foreign.text,
    );
  });

  it("refuses in SPEC's order: 422, 404 'Project not found', 400 environment, 403 'Not authorized for this environment'", async () => {
    const o = await ownerWithEnv(api, 'Team');
    const json = await api.post(
      '/impex/export',
      { project_id: o.projectId, environment_id: o.envId },
      { token: o.token },
    );
    expect(json.status).toBe(422);
    const missing = await form('/impex/export', o.token, { project_id: o.projectId });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'environment_id']);
    const noFile = await form('/impex/import', o.token, { project_id: o.projectId, environment_id: o.envId });
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail[0].loc).toEqual(['body', 'file']);
    const stranger = await signUp(api);
    expect(
      (await form('/impex/export', stranger.token, { project_id: o.projectId, environment_id: o.envId })).body,
    ).toEqual({ detail: 'Project not found' });
    const elsewhere = await projectWithEnv(api, o.token);
    expect(
      (await form('/impex/export', o.token, { project_id: o.projectId, environment_id: elsewhere.envId })).status,
    ).toBe(400);
    const member = await signUp(api);
    const second = await newEnv(api, o.token, o.projectId);
    await grantRole(api, o.token, second, member.id, 'viewer');
    expect(
      (await form('/impex/export', member.token, { project_id: o.projectId, environment_id: o.envId })).body,
    ).toEqual({ detail: 'Not authorized for this environment' });
    expect(
      (await form('/impex/export', member.token, { project_id: o.projectId, environment_id: second })).status,
    ).toBe(202);
    // A viewer may export, not import.
    expect(
      (
        await form(
          '/impex/import',
          member.token,
          { project_id: o.projectId, environment_id: second },
          { name: 'x.yaml', text: 'a: 1' },
        )
      ).body,
    ).toEqual({ detail: 'Not authorized for this environment' });
  });

  it('a WebSocket client following an import receives its progress live, ending in succeeded; tickets are single-use', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const example = (await api.get('/impex/example', { token: o.token })).body;
    // Hold the jobs queue until the client is connected, so it sees the job move.
    await withJobsHeld(async (open) => {
      const res = await form(
        '/impex/import',
        o.token,
        { project_id: o.projectId, environment_id: o.envId },
        { name: 'ok.json', text: JSON.stringify(example) },
      );
      const ticket = await api.post('/impex/progress-ticket', { job_id: res.body.job_id }, { token: o.token });
      expect(ticket.status, ticket.text).toBe(200);
      const messages = await followProgress(ticket.body.url, async () => {
        open();
        await ref.stack.queues.drain();
      });
      expect(messages[0], JSON.stringify(messages)).toMatchObject({
        type: 'import.progress',
        job_id: res.body.job_id,
        status: 'queued',
      });
      expect(messages.map((m) => m.status)).toContain('running');
      expect(messages.at(-1)).toMatchObject({ status: 'succeeded', pct: 100 });
      const seqs = messages.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      // The ticket was spent.
      expect(await refusedUpgrade(ticket.body.url)).toBe(401);
    });
  });

  it("a document larger than a request (over 10 MB) goes through an upload URL and imports; the URL is the project's own", async () => {
    const o = await ownerWithEnv(api, 'Team');
    const services = Array.from({ length: 20 }, (_, i) => `  - name: big-${i}\n    port: ${9000 + i}`).join('\n');
    // Over 10 MB (what API Gateway takes in one request), mostly comments a document may carry.
    const padding = `# ${'x'.repeat(1000)}\n`.repeat(10_600);
    const text = `apiVersion: infracatalog/v1\nkind: Environment\n${padding}spec:\n  services:\n${services}\n`;
    const size = Buffer.byteLength(text);
    expect(size).toBeGreaterThan(10 * 1024 * 1024);
    const target = { project_id: o.projectId, environment_id: o.envId };
    const upload = await api.post('/impex/upload-url', { ...target, size }, { token: o.token });
    expect(upload.status, upload.text).toBe(201);
    expect(upload.body).toMatchObject({
      upload_id: expect.any(String),
      method: 'PUT',
      headers: { 'content-type': 'application/yaml' },
    });
    const put = await fetch(upload.body.url, { method: 'PUT', body: text, headers: upload.body.headers });
    expect(put.status).toBe(200);
    const started = await form('/impex/import', o.token, { ...target, upload_id: upload.body.upload_id });
    expect(started.status, started.text).toBe(202);
    const record = await finished(o.token, started.body.job_id);
    expect(record.status, JSON.stringify(record.report)).toBe('succeeded');
    expect(record.report.summary).toMatchObject({ create: 20, error: 0 });
    expect(
      (await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}&limit=100`, { token: o.token }))
        .body,
    ).toHaveLength(20);

    // Another project's upload is not there for this project; neither is one never put; one too big is refused before.
    const other = await projectWithEnv(api, o.token);
    const foreign = await form('/impex/import', o.token, {
      project_id: other.projectId,
      environment_id: other.envId,
      upload_id: upload.body.upload_id,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail).toEqual([
      {
        loc: ['body', 'upload_id'],
        msg: 'No document was uploaded for this upload_id: PUT it to the upload URL first',
        type: 'value_error',
      },
    ]);
    const neverPut = await api.post('/impex/upload-url', { ...target, size: 10 }, { token: o.token });
    expect((await form('/impex/import', o.token, { ...target, upload_id: neverPut.body.upload_id })).status).toBe(422);
    const tooBig = await api.post('/impex/upload-url', { ...target, size: 200 * 1024 * 1024 }, { token: o.token });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.detail[0]).toMatchObject({ loc: ['body', 'size'] });
    const both = await form(
      '/impex/import',
      o.token,
      { ...target, upload_id: upload.body.upload_id },
      { name: 'env.yaml', text: 'apiVersion: infracatalog/v1' },
    );
    expect(both.status).toBe(422);
    // Only who may import gets an upload URL.
    const outsider = await signUp(api);
    expect((await api.post('/impex/upload-url', { ...target, size: 10 }, { token: outsider.token })).status).toBe(404);
  });
});
