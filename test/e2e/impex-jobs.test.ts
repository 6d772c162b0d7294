import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { keys } from '#db/keys';
import { updateItem } from '#db/items';
import { queryPrefix } from '#db/query';
import { configureFaults } from '#shared/faults';
import { resetClients } from '#shared/clients';
import { CANCEL_NOT_ALLOWED, JOB_DEAD_LETTERED, STALL_MS } from '#domain/impex';
import { grantRole } from '../helpers/tenancy.ts';
import { holdingFirstJob } from '../helpers/jobs.ts';

/**
 * An import job's lifecycle: it never stays queued or running for good (a job
 * whose every try fails ends failed; one that stopped showing signs of life reads as failed), and it
 * can be cancelled (a queued one at once, a running one at a chunk boundary, each chunk wholly in or out).
 */
const ref = useTestStack({}, { withS3: true });
const api = client(() => ref.stack.url);

function faults(spec: string, seed = 1) {
  configureFaults(spec, seed);
  resetClients();
}
afterEach(() => faults(''));

const doc = (n: number, prefix = 'svc') =>
  stringify({
    apiVersion: 'infracatalog/v1',
    kind: 'Environment',
    spec: { services: Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, port: 1000 + (i % 60000) })) },
  });

async function startImport(
  token: string,
  projectId: string,
  envId: string,
  text: string,
  fields: Record<string, string> = {},
) {
  const body = new FormData();
  body.set('project_id', projectId);
  body.set('environment_id', envId);
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  body.set('file', new Blob([text], { type: 'application/yaml' }), 'env.yaml');
  const res = await fetch(`${ref.stack.url}/impex/import`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as { job_id: string; detail?: string } };
}

const status = async (token: string, jobId: string) => (await api.get(`/impex/status/${jobId}`, { token })).body;

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The environment's services as listed, and its counters: equal when nothing is half written. */
async function inventory(token: string, projectId: string, envId: string) {
  const names: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await api.get(
      `/services?project_id=${projectId}&environment_id=${envId}&limit=1000&offset=${offset}`,
      { token },
    );
    expect(page.status, page.text).toBe(200);
    names.push(...(page.body as { name: string }[]).map((s) => s.name));
    if (page.body.length < 1000) break;
  }
  return {
    listed: names.length,
    envCount: Number((await readItem(keys.environment(projectId, envId)))!.service_count ?? 0),
    projectCount: Number((await readItem(keys.project(projectId)))!.service_count ?? 0),
    journals: (await queryPrefix(projectId, keys.stagedWritePrefix(envId))).length,
  };
}

describe('an import job never stays queued or running for good', () => {
  it('fails with a clear error when every try fails, and lets its lock go', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    // Its message waits behind a held-back delivery; by then the document cannot be read, on every try.
    faults('sqs.reorder:1');
    const started = await startImport(token, projectId, envId, doc(3));
    expect(started.status).toBe(202);
    faults('sqs.reorder:1,s3.error:1');
    await ref.stack.queues.drain();
    faults('');
    const record = await status(token, started.body.job_id);
    expect(record).toMatchObject({ status: 'failed', error: JOB_DEAD_LETTERED });
    expect(record.finished_at).toEqual(expect.any(String));
    // The lock is free: the next import runs.
    const next = await startImport(token, projectId, envId, doc(3));
    expect(next.status).toBe(202);
    await ref.stack.queues.drain();
    expect((await status(token, next.body.job_id)).status).toBe('succeeded');
    // Each of the five receives first retries its S3 call through the outage (background-retries.ts: 10 attempts).
  }, 90_000);

  it('reads as failed once its job stopped showing signs of life (a Lambda killed mid-run), written so', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const started = await startImport(token, projectId, envId, doc(3));
    await ref.stack.queues.drain();
    const done = await status(token, started.body.job_id);
    expect(done.status).toBe('succeeded');
    // What a killed job leaves: its record running, last heartbeat and lock lease older than their limit.
    const long = new Date(Date.now() - STALL_MS - 5_000).toISOString();
    const key = keys.impexRecord(projectId, done.created_at, done.id);
    await updateItem(key, {
      UpdateExpression: 'SET #s = :r, heartbeat_at = :t, finished_at = :null',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':r': 'running', ':t': long, ':null': null },
    });
    const seen = await status(token, started.body.job_id);
    expect(seen).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^The job stopped without finishing/),
    });
    // Written, not only shown: the history says the same, and it stays so.
    const history = await api.get(`/impex/history?project_id=${projectId}`, { token });
    expect(history.body.find((r: { id: string }) => r.id === done.id).status).toBe('failed');
    expect((await readItem(key))!.status).toBe('failed');
  });

  it('a live job is not taken for a stalled one: its heartbeat keeps it running', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const started = await startImport(token, projectId, envId, doc(3));
    await ref.stack.queues.drain();
    const done = await status(token, started.body.job_id);
    const key = keys.impexRecord(projectId, done.created_at, done.id);
    await updateItem(key, {
      UpdateExpression: 'SET #s = :r, heartbeat_at = :t, finished_at = :null',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':r': 'running', ':t': new Date().toISOString(), ':null': null },
    });
    expect((await status(token, started.body.job_id)).status).toBe('running');
  });
});

describe('cancelling an import', () => {
  it('a queued import is cancelled at once, its lock let go; its message then does nothing', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    // Its job is held back until the cancel has answered: it is surely still queued.
    const started = await holdingFirstJob(async (release) => {
      const queued = await startImport(token, projectId, envId, doc(5));
      const cancelled = await api.post(`/impex/cancel/${queued.body.job_id}`, {}, { token });
      expect(cancelled.status, cancelled.text).toBe(202);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancel_requested_by: expect.any(String) });
      release();
      return queued;
    });
    await ref.stack.queues.drain();
    expect((await status(token, started.body.job_id)).status).toBe('cancelled');
    expect((await inventory(token, projectId, envId)).listed).toBe(0);
    expect((await api.post(`/impex/cancel/${started.body.job_id}`, {}, { token })).status).toBe(409);
    const next = await startImport(token, projectId, envId, doc(5));
    expect(next.status).toBe(202);
  });

  it('only its starter or an owner may cancel it: another member is refused (403), also one whose custom role grants project.manage; a stranger sees no job (404)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const member = await signUp(api);
    await grantRole(api, token, envId, member.id, 'administrator');
    const stranger = await signUp(api);
    // Cancelling someone else's job is the owner membership's alone (docs/decisions/0921).
    const manager = await signUp(api);
    const managers = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'Project managers', permissions: ['project.manage'] },
      { token },
    );
    expect(
      (
        await api.post(
          `/projects/${projectId}/custom-roles/${managers.body.id}/assignments`,
          { user_id: manager.id },
          { token },
        )
      ).status,
    ).toBe(201);
    // Who may cancel is decided before whether there is anything left to cancel (409 means "allowed, but finished").
    const owners = await startImport(token, projectId, envId, doc(2));
    await ref.stack.queues.drain();
    const cancel = (jobId: string, t: string) => api.post(`/impex/cancel/${jobId}`, {}, { token: t });
    expect((await cancel(owners.body.job_id, stranger.token)).status).toBe(404);
    const refused = await cancel(owners.body.job_id, member.token);
    expect([refused.status, refused.body.detail]).toEqual([403, CANCEL_NOT_ALLOWED]);
    const byManager = await cancel(owners.body.job_id, manager.token);
    expect([byManager.status, byManager.body.detail]).toEqual([403, CANCEL_NOT_ALLOWED]);
    expect((await cancel(owners.body.job_id, token)).status).toBe(409);
    const theirs = await startImport(member.token, projectId, envId, doc(2, 'm'));
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(202);
    await ref.stack.queues.drain();
    expect((await cancel(theirs.body.job_id, member.token)).status).toBe(409);
    expect((await cancel(theirs.body.job_id, token)).status).toBe(409);
  });

  it('a running import stops at a chunk boundary: the record says cancelled, counters equal the items, each chunk wholly in or out, and the lock is free', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Enterprise');
    const total = 2000;
    const started = await startImport(token, projectId, envId, doc(total));
    expect(started.status).toBe(202);
    const jobId = started.body.job_id;
    const mid = await until(
      () => status(token, jobId),
      (r) => r.progress.done > 0 || (r.status !== 'running' && r.status !== 'queued'),
    );
    expect(mid.status, JSON.stringify(mid.report?.errors?.slice(0, 2))).toBe('running');
    const asked = await api.post(`/impex/cancel/${jobId}`, {}, { token });
    expect(asked.status, asked.text).toBe(202);
    await ref.stack.queues.drain();
    const record = await status(token, jobId);
    expect(record.status).toBe('cancelled');
    const after = await inventory(token, projectId, envId);
    // The report counts what was written (a cancel is no problem of the document's).
    expect(record.report.summary).toMatchObject({ create: after.listed, error: 0 });
    expect(after.listed).toBeGreaterThan(0);
    expect(after.listed).toBeLessThan(total);
    expect(after).toEqual({ listed: after.listed, envCount: after.listed, projectCount: after.listed, journals: 0 });
    // The lock is free, and importing again finishes the work.
    const again = await startImport(token, projectId, envId, doc(total));
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    await ref.stack.queues.drain();
    expect((await status(token, again.body.job_id)).status).toBe('succeeded');
    expect(await inventory(token, projectId, envId)).toEqual({
      listed: total,
      envCount: total,
      projectCount: total,
      journals: 0,
    });
  }, 240_000);
});

describe('an import with prune', () => {
  const spec = (services: string[], extra: Record<string, unknown>) =>
    stringify({
      apiVersion: 'infracatalog/v1',
      kind: 'Environment',
      spec: { services: services.map((name) => ({ name })), ...extra },
    });
  const full = spec(['a', 'b', 'stray'], {
    groups: [{ name: 'g1', subgroups: [{ name: 'sub1' }, { name: 'sub2' }] }, { name: 'g2' }],
    service_links: [{ from: 'a', to: 'stray' }],
    connections: [
      { a: { service: 'a' }, b: { service: 'b' }, direction: 'a_to_b' },
      { a: { service: 'a' }, b: { service: 'stray' }, direction: 'both' },
    ],
  });
  const kept = spec(['a', 'b'], {
    groups: [{ name: 'g1', subgroups: [{ name: 'sub1' }] }],
    connections: [{ a: { service: 'a' }, b: { service: 'b' }, direction: 'a_to_b' }],
  });

  it('plans list what the environment has beyond the document; the job deletes it under the lock with the ordinary delete rules', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const first = await startImport(token, projectId, envId, full);
    await ref.stack.queues.drain();
    expect((await status(token, first.body.job_id)).status).toBe('succeeded');

    const plan = await startImport(token, projectId, envId, kept, { dry_run: 'true' });
    await ref.stack.queues.drain();
    const planned = (await status(token, plan.body.job_id)).report;
    const expected = [
      { kind: 'service_connection', name: 'a – stray' },
      { kind: 'service_link', name: 'a → stray' },
      { kind: 'service', name: 'stray' },
      { kind: 'subgroup', name: 'g1/sub2' },
      { kind: 'group', name: 'g2' },
    ];
    expect(planned.extras.map(({ kind, name }: { kind: string; name: string }) => ({ kind, name }))).toEqual(expected);

    const pruned = await startImport(token, projectId, envId, kept, { prune: 'true' });
    await ref.stack.queues.drain();
    const record = await status(token, pruned.body.job_id);
    expect(record.status, JSON.stringify(record.report?.errors)).toBe('succeeded');
    expect(record.prune).toBe(true);
    expect(record.report.deleted.map(({ kind, name }: { kind: string; name: string }) => ({ kind, name }))).toEqual(
      expected,
    );
    expect(await inventory(token, projectId, envId)).toEqual({ listed: 2, envCount: 2, projectCount: 2, journals: 0 });
    const groups = await api.get(`/groups?project_id=${projectId}&environment_id=${envId}`, { token });
    expect((groups.body as { name: string }[]).map((g) => g.name)).toEqual(['g1']);
    const connections = await api.get(`/service-connections?project_id=${projectId}&environment_id=${envId}`, {
      token,
    });
    expect(connections.body).toHaveLength(1);
    // Each deletion is the ordinary one: its own audit entry, by the account that started the import.
    const audit = await api.get(`/projects/${projectId}/audit-log?action=service.delete`, { token });
    expect(audit.status, audit.text).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('stray');
    // ... linked to the import that pruned it, as the import's other writes are.
    const importEntry = (await api.get(`/projects/${projectId}/audit-log?entity_type=import`, { token })).body[0] as {
      entity_id: string;
      import_id: string;
    };
    expect(importEntry.import_id).toBe(record.id);
    const deletions = (
      (await api.get(`/projects/${projectId}/audit-log?limit=500`, { token })).body as {
        action: string;
        import_id: string | null;
        actor: { id: string };
      }[]
    ).filter((e) => e.action.endsWith('.delete'));
    expect(deletions.map((e) => e.action).sort()).toEqual([
      'connection.delete',
      'group.delete',
      'link.delete',
      'service.delete',
      'subgroup.delete',
    ]);
    for (const e of deletions) expect(e.import_id, e.action).toBe(record.id);

    // Nothing left beyond the document: the next plan lists nothing.
    const again = await startImport(token, projectId, envId, kept, { dry_run: 'true' });
    await ref.stack.queues.drain();
    expect((await status(token, again.body.job_id)).report.extras).toEqual([]);
  });

  it('a document with problems still lists what the environment has beyond it', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    await startImport(token, projectId, envId, full);
    await ref.stack.queues.drain();
    const broken = kept.replace('direction: a_to_b', 'direction: sideways');
    const plan = await startImport(token, projectId, envId, broken, { dry_run: 'true' });
    await ref.stack.queues.drain();
    const record = await status(token, plan.body.job_id);
    expect(record.status).toBe('failed');
    expect(record.report.errors.length).toBeGreaterThan(0);
    expect(record.report.extras.map((e: { name: string }) => e.name)).toContain('stray');
  });
});
