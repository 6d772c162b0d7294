import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { captureEvents, createFloor, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { grantRole } from '../helpers/tenancy.ts';
import { followProgress, withJobsHeld } from '../helpers/progress.ts';
import { CloudStub, droplet, hetznerServer } from '../../infra/local/cloud-stub.ts';
import { keys } from '#db/keys';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';

// The stub starts first; the stack then reads its address from the configuration (as `npm start` would).
const stub = new CloudStub();
const env: Record<string, string> = { LOG_LEVEL: 'debug' };
/** Every log line the process writes while this file runs (a test proves no secret is in any). */
const logged: string[] = [];
const writes = { out: process.stdout.write, err: process.stderr.write };
beforeAll(async () => {
  await stub.start();
  env.HETZNER_API_BASE_URL = `${stub.url}/hetzner/v1`;
  env.DIGITALOCEAN_API_BASE_URL = `${stub.url}/do/v2`;
  const capture = (chunk: unknown) => (logged.push(String(chunk)), true);
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
});
afterAll(async () => {
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
  await stub.stop();
});
const ref = useTestStack(env);
const api = client(() => ref.stack.url);
const events = captureEvents();

async function connectHetzner(token: string, projectId: string, envId: string, apiToken = stub.token) {
  const created = await api.post(
    '/integrations/cloud-accounts',
    { project_id: projectId, environment_id: envId, provider: 'hetzner', name: 'hcloud', api_token: apiToken },
    { token },
  );
  expect(created.status, created.text).toBe(201);
  const connected = await api.post('/integrations/cloud/hetzner/connect', { account_id: created.body.id }, { token });
  expect(connected.status, connected.text).toBe(200);
  return connected.body;
}

/** Discover and wait for the run through its status route. */
async function discover(token: string, accountId: string) {
  const started = await api.post(`/integrations/cloud-accounts/${accountId}/discover`, undefined, { token });
  expect(started.status, started.text).toBe(202);
  expect(started.body).toEqual({
    status: 'queued',
    job_id: expect.any(String),
    run_id: started.body.job_id,
    reused: false,
  });
  await ref.stack.queues.drain();
  const run = await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token });
  expect(run.status, run.text).toBe(200);
  return run.body;
}

const floorsOf = async (token: string, projectId: string, envId: string) =>
  (await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token })).body as Record<
    string,
    unknown
  >[];

/** A discovery's progress messages over its WebSocket, from its ticket, while the held jobs are let go and run out. */
async function followedToTheEnd(token: string, jobId: string, open: () => void) {
  const ticket = await api.post('/integrations/progress-ticket', { job_id: jobId }, { token });
  expect(ticket.status, ticket.text).toBe(200);
  return followProgress(ticket.body.url, async () => {
    open();
    await ref.stack.queues.drain();
  });
}

describe('cloud discovery from a token provider (a stub on 127.0.0.1)', () => {
  it('connect, discover every page, rediscover: one updated, one flagged missing, no duplicates, hand-made floors untouched', async () => {
    stub.hetzner = [
      hetznerServer(101, 'web-1'),
      hetznerServer(102, 'web-2'),
      hetznerServer(103, 'db-1'),
      hetznerServer(104, 'cache-1'),
      hetznerServer(105, 'worker-1'),
    ];
    const o = await ownerWithEnv(api, 'Enterprise');
    const handMade = await createFloor(api, o.token, o.projectId, o.envId, {
      type: 'vm',
      hostname: 'web-1',
      provider: 'hetzner',
      provider_instance_id: '101',
    });
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    expect(account).toMatchObject({ provider: 'hetzner', status: 'connected', last_error: null });
    expect(JSON.stringify(account)).not.toContain(stub.token);
    expect(account).not.toHaveProperty('token_sealed');

    const run = await discover(o.token, account.id);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { found: 5, created: 5, updated: 0, unchanged: 0, missing: 0 },
      failed_regions: [],
      progress: { pct: 100 },
    });
    // Five servers at two per page: three pages, each with the token in the Authorization header only.
    expect(
      stub.requests
        .filter((r) => r.path.startsWith('/hetzner/v1/servers?page='))
        .map((r) => new URL(r.path, stub.url).searchParams.get('page')),
    ).toEqual(['1', '2', '3']);

    let floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors).toHaveLength(6);
    const discovered = floors.filter((f) => f.cloud_account_id === account.id);
    expect(discovered.map((f) => f.provider_instance_id).sort()).toEqual(['101', '102', '103', '104', '105']);
    const web2 = discovered.find((f) => f.provider_instance_id === '102')!;
    expect(web2).toMatchObject({
      type: 'vm',
      hostname: 'web-2',
      provider: 'hetzner',
      provider_region: 'fsn1',
      provider_zone: 'fsn1-dc14',
      ip_address: '203.0.113.102',
      ip_addresses: ['203.0.113.102', '10.0.0.102'],
      cpu: 2,
      memory_mb: 4096,
      storage_gb: 40,
      tags: ['team=payments'],
      missing_since: null,
    });
    expect(web2.last_seen_at).toEqual(expect.any(String));
    const created = events
      .filter((e) => e.project_id === o.projectId && e.event.type === 'floor.created')
      .map((e) => e.event.data.service_floor_id);
    expect(created.sort()).toEqual([handMade.id, ...discovered.map((f) => f.id)].sort());
    const status = await api.get(`/integrations/cloud/hetzner/status?project_id=${o.projectId}`, { token: o.token });
    expect(status.body).toEqual([
      expect.objectContaining({
        account_id: account.id,
        status: 'connected',
        connected: true,
        last_error: null,
        last_discovery_at: expect.any(String),
        active_run_id: null,
      }),
    ]);

    // The provider renames and resizes 102 and drops 104; 103 is renamed to the hand-made floor's hostname.
    stub.hetzner = stub.hetzner
      .filter((s) => s.id !== 104)
      .map((s) =>
        s.id === 102
          ? hetznerServer(102, 'web-2b', { server_type: { cores: 4, memory: 8, disk: 80 } })
          : s.id === 103
            ? hetznerServer(103, 'web-1')
            : s,
      );
    const again = await discover(o.token, account.id);
    expect(again).toMatchObject({
      status: 'succeeded',
      counts: { found: 4, created: 0, updated: 2, unchanged: 2, missing: 1 },
    });
    floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors).toHaveLength(6);
    expect(floors.find((f) => f.id === handMade.id)).toEqual(handMade);
    const byInstance = new Map(
      floors.filter((f) => f.cloud_account_id === account.id).map((f) => [f.provider_instance_id, f]),
    );
    expect(byInstance.get('102')).toMatchObject({
      id: web2.id,
      hostname: 'web-2b',
      cpu: 4,
      memory_mb: 8192,
      storage_gb: 80,
      missing_since: null,
    });
    expect(byInstance.get('103')).toMatchObject({ hostname: 'web-1', missing_since: null });
    const gone = byInstance.get('104')!;
    expect(gone.missing_since).toEqual(expect.any(String));
    expect(gone.deleted_at).toBeNull();
    expect(gone.last_seen_at).toBe(discovered.find((f) => f.provider_instance_id === '104')!.last_seen_at);

    // A listing that fails half-way marks nothing missing (and creates no duplicates).
    stub.failPages.add(2);
    try {
      const partial = await discover(o.token, account.id);
      expect(partial).toMatchObject({ status: 'failed', failed_regions: ['*'], counts: { found: 0, missing: 0 } });
      expect(partial.error).toContain('500');
    } finally {
      stub.failPages.clear();
    }
    floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors).toHaveLength(6);
    expect(floors.filter((f) => f.missing_since).map((f) => f.provider_instance_id)).toEqual(['104']);

    // A discovered floor whose instance id was edited by hand is still matched (and restored), not duplicated.
    expect(
      (await api.patch(`/service-floors/${web2.id}`, { provider_instance_id: 'edited' }, { token: o.token })).status,
    ).toBe(200);
    expect(await discover(o.token, account.id)).toMatchObject({
      status: 'succeeded',
      counts: { found: 4, created: 0, updated: 1, missing: 1 },
    });
    expect((await api.get(`/service-floors/${web2.id}`, { token: o.token })).body).toMatchObject({
      provider_instance_id: '102',
      missing_since: null,
    });
    expect(await floorsOf(o.token, o.projectId, o.envId)).toHaveLength(6);

    // The instance comes back: the same floor, no longer missing.
    stub.hetzner.push(hetznerServer(104, 'cache-1'));
    expect(await discover(o.token, account.id)).toMatchObject({
      status: 'succeeded',
      counts: { found: 5, created: 0, missing: 0 },
    });
    floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors).toHaveLength(6);
    expect(floors.find((f) => f.id === gone.id)).toMatchObject({ missing_since: null });
  });

  it('the audit log holds one entry per run with its counts and an entry per floor it created or changed, by the account that started it', async () => {
    stub.hetzner = [hetznerServer(201, 'a-1'), hetznerServer(202, 'a-2')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    const first = await discover(o.token, account.id);
    stub.hetzner = [hetznerServer(201, 'a-1b')];
    const second = await discover(o.token, account.id);
    const log = async (query: string) =>
      (await api.get(`/projects/${o.projectId}/audit-log?limit=500&${query}`, { token: o.token })).body as Record<
        string,
        any
      >[];
    const runs = await log('entity_type=discovery_run');
    expect(
      runs.map((e) => [e.entity_id, e.summary.status, e.summary.created, e.summary.updated, e.summary.missing]),
    ).toEqual([
      [second.id, 'succeeded', 0, 1, 1],
      [first.id, 'succeeded', 2, 0, 0],
    ]);
    for (const e of runs) expect(e.actor).toMatchObject({ type: 'account', id: o.owner.id });
    const floors = await log('entity_type=floor');
    expect(floors.map((e) => [e.action, e.summary.discovery_run_id])).toEqual([
      ['floor.update', second.id],
      ['floor.update', second.id],
      ['floor.create', first.id],
      ['floor.create', first.id],
    ]);
    expect(floors.find((e) => e.after?.hostname === 'a-1b')).toMatchObject({ before: { hostname: 'a-1' } });
    expect(floors.find((e) => e.after?.missing_since)).toMatchObject({ before: { missing_since: null } });
  });

  it('connecting and removing a cloud account are entries of the project log, never its credentials; a refused removal leaves none', async () => {
    const o = await ownerWithEnv(api, 'Enterprise');
    const created = (
      await api.post(
        '/integrations/cloud-accounts',
        {
          project_id: o.projectId,
          environment_id: o.envId,
          provider: 'hetzner',
          name: 'hcloud',
          api_token: 'wrong-token-123',
        },
        { token: o.token },
      )
    ).body;
    expect(
      (await api.post('/integrations/cloud/hetzner/connect', { account_id: created.id }, { token: o.token })).body
        .status,
    ).toBe('failed');
    expect(
      (await api.post('/integrations/cloud/hetzner/connect', { account_id: created.id }, { token: o.token })).body
        .status,
    ).toBe('failed');
    // A refused removal (a viewer) leaves no entry.
    const viewer = await signUp(api);
    await grantRole(api, o.token, o.envId, viewer.id, 'viewer');
    expect(
      (await api.delete(`/integrations/cloud-accounts/${created.id}`, undefined, { token: viewer.token })).status,
    ).toBe(403);
    expect((await api.delete(`/integrations/cloud-accounts/${created.id}`, undefined, { token: o.token })).status).toBe(
      204,
    );
    const res = await api.get(`/projects/${o.projectId}/audit-log?entity_id=${created.id}`, { token: o.token });
    expect(res.status, res.text).toBe(200);
    const entries = res.body as Record<string, any>[];
    expect(entries.map((e) => e.action)).toEqual([
      'cloud_account.delete',
      'cloud_account.connect',
      'cloud_account.connect',
      'cloud_account.create',
    ]);
    expect(entries[3]).toMatchObject({
      entity_type: 'cloud_account',
      environment_id: o.envId,
      before: null,
      after: { provider: 'hetzner', name: 'hcloud', status: 'pending' },
      actor: { id: o.owner.id },
    });
    expect(entries[2]).toMatchObject({
      before: { status: 'pending', last_error: null },
      after: { status: 'failed', last_error: 'The provider refused the API token (401).' },
    });
    expect(entries[1].before).toEqual({ last_checked_at: entries[2].after.last_checked_at });
    expect(entries[0]).toMatchObject({ before: { name: 'hcloud', status: 'failed' }, after: null });
    const text = JSON.stringify(entries);
    for (const secret of ['wrong-token-123', 'token_sealed', 'api_token', 'local:v1:', 'external_id', 'created_by'])
      expect(text).not.toContain(secret);
  });

  it('DigitalOcean: pages through droplets by links.pages.next', async () => {
    stub.droplets = [droplet(1, 'a'), droplet(2, 'b'), droplet(3, 'c')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const created = await api.post(
      '/integrations/cloud-accounts',
      { project_id: o.projectId, environment_id: o.envId, provider: 'digitalocean', name: 'do', api_token: stub.token },
      { token: o.token },
    );
    expect(created.status, created.text).toBe(201);
    expect(
      (await api.post('/integrations/cloud/digitalocean/connect', { account_id: created.body.id }, { token: o.token }))
        .body.status,
    ).toBe('connected');
    const run = await discover(o.token, created.body.id);
    expect(run).toMatchObject({ status: 'succeeded', counts: { found: 3, created: 3 } });
    const floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors.find((f) => f.provider_instance_id === '2')).toMatchObject({
      hostname: 'b',
      provider: 'digitalocean',
      provider_region: 'ams3',
      ip_address: '198.51.100.2',
      ip_addresses: ['198.51.100.2', '10.110.0.2'],
      cpu: 2,
      memory_mb: 2048,
      storage_gb: 50,
      tags: ['web', 'env:prod'],
    });
  });

  it('a refused token: connect answers failed with the error; discover fails the run at once and flags nothing', async () => {
    stub.hetzner = [hetznerServer(201, 'x')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId, 'wrong-token-123');
    expect(account).toMatchObject({ status: 'failed', last_error: 'The provider refused the API token (401).' });
    const run = await discover(o.token, account.id);
    expect(run).toMatchObject({ status: 'failed', error: 'The provider refused the API token (401).' });
    expect(await floorsOf(o.token, o.projectId, o.envId)).toEqual([]);
    const status = await api.get(`/integrations/cloud/hetzner/status?project_id=${o.projectId}`, { token: o.token });
    expect(status.body[0]).toMatchObject({
      status: 'failed',
      connected: false,
      last_error: 'The provider refused the API token (401).',
    });
  });

  it("SPEC's refusal order: 404 'CloudAccount not found' (missing, foreign), then 403 connections.manage, then 403 naming the plan feature", async () => {
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    const outsider = await signUp(api);
    const missing = await api.post(
      '/integrations/cloud-accounts/00000000-0000-4000-8000-000000000000/discover',
      undefined,
      { token: o.token },
    );
    const foreign = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
      token: outsider.token,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('CloudAccount not found');
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);

    const viewer = await signUp(api);
    await grantRole(api, o.token, o.envId, viewer.id, 'viewer');
    const refused = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
      token: viewer.token,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Missing permission: connections.manage');
    // A viewer sees the account (never its token) but cannot connect or remove it.
    expect((await api.get(`/integrations/cloud-accounts/${account.id}`, { token: viewer.token })).status).toBe(200);
    expect(
      (await api.delete(`/integrations/cloud-accounts/${account.id}`, undefined, { token: viewer.token })).status,
    ).toBe(403);

    // Team's auto_discovery is ['aws'] only.
    const team = await ownerWithEnv(api, 'Team');
    const hz = await connectHetzner(team.token, team.projectId, team.envId);
    const noPlan = await api.post(`/integrations/cloud-accounts/${hz.id}/discover`, undefined, { token: team.token });
    expect(noPlan.status).toBe(403);
    expect(noPlan.body.detail).toBe(
      'Your plan does not include auto-discovery for Hetzner Cloud (feature: auto_discovery). Please upgrade.',
    );

    // Validation before lookup; a removed account is 404 like a missing one.
    expect(
      (await api.post('/integrations/cloud-accounts/not-a-uuid/discover', undefined, { token: o.token })).status,
    ).toBe(422);
    expect(
      (
        await api.post(
          '/integrations/cloud-accounts',
          { project_id: o.projectId, environment_id: o.envId, provider: 'aws', name: 'x', role_arn: 'nope' },
          { token: o.token },
        )
      ).status,
    ).toBe(422);
    expect((await api.delete(`/integrations/cloud-accounts/${account.id}`, undefined, { token: o.token })).status).toBe(
      204,
    );
    const removed = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
      token: o.token,
    });
    expect(removed.status).toBe(404);
    expect(removed.text).toBe(missing.text);
    expect((await api.get(`/integrations/cloud-accounts?project_id=${o.projectId}`, { token: o.token })).body).toEqual(
      [],
    );
  });

  it('an account and a run of a deleted environment are the 404 of an unknown id, byte for byte', async () => {
    stub.hetzner = [hetznerServer(301, 'gone-1')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    const run = await discover(o.token, account.id);
    // A run whose lookup predates the recorded environment is still found (its item read first).
    const { environment_id: recorded, ...olderLookup } = (await readItem(keys.idLookup(run.id)))!;
    expect(recorded).toBe(o.envId);
    await ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item: olderLookup }));
    expect((await api.get(`/integrations/discovery-runs/${run.id}`, { token: o.token })).body).toEqual(run);
    expect((await api.delete(`/environments/${o.envId}`, undefined, { token: o.token })).status).toBe(204);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const [accountGone, accountMissing] = await Promise.all([
      api.get(`/integrations/cloud-accounts/${account.id}`, { token: o.token }),
      api.get(`/integrations/cloud-accounts/${unknown}`, { token: o.token }),
    ]);
    expect(accountGone.status).toBe(404);
    expect(accountGone.text).toBe(accountMissing.text);
    const [runGone, runMissing] = await Promise.all([
      api.get(`/integrations/discovery-runs/${run.id}`, { token: o.token }),
      api.get(`/integrations/discovery-runs/${unknown}`, { token: o.token }),
    ]);
    expect(runGone.status).toBe(404);
    expect(runGone.text).toBe(runMissing.text);
  });

  it('a second discover while one is queued answers the same job; concurrent discovers start one run', async () => {
    stub.hetzner = [hetznerServer(301, 'a')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    for (let round = 0; round < 5; round++) {
      const all = await withJobsHeld(async (open) => {
        const answers = await Promise.all(
          Array.from({ length: 4 }, () =>
            api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, { token: o.token }),
          ),
        );
        open();
        return answers;
      });
      expect(all.map((r) => r.status).sort()).toEqual([200, 200, 200, 202]);
      expect(new Set(all.map((r) => r.body.job_id)).size).toBe(1);
      await ref.stack.queues.drain();
      expect(
        (await api.get(`/integrations/discovery-runs/${all[0].body.job_id}`, { token: o.token })).body.status,
      ).toBe('succeeded');
    }
    const floors = await floorsOf(o.token, o.projectId, o.envId);
    expect(floors.map((f) => f.provider_instance_id)).toEqual(['301']);
  });

  it('a run that stopped making progress (its worker died) is failed and replaced by the next discover', async () => {
    stub.hetzner = [hetznerServer(501, 'a')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    await withJobsHeld(async (open) => {
      const first = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
        token: o.token,
      });
      expect(first.status).toBe(202);
      // Still queued, but untouched for 31 minutes.
      const run = (await api.get(`/integrations/discovery-runs/${first.body.job_id}`, { token: o.token })).body;
      const key = keys.discoveryRun(o.projectId, account.id, run.created_at, run.id);
      await ddb().send(
        new PutCommand({
          TableName: config().TABLE_NAME,
          Item: { ...(await readItem(key)), updated_at: new Date(Date.now() - 31 * 60_000).toISOString() },
        }),
      );
      const second = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
        token: o.token,
      });
      expect(second.status, second.text).toBe(202);
      expect(second.body.job_id).not.toBe(first.body.job_id);
      expect(
        (await api.get(`/integrations/discovery-runs/${first.body.job_id}`, { token: o.token })).body,
      ).toMatchObject({ status: 'failed', error: 'The discovery stopped making progress; a new one was started.' });
      open();
      await ref.stack.queues.drain();
      expect(
        (await api.get(`/integrations/discovery-runs/${second.body.job_id}`, { token: o.token })).body.status,
      ).toBe('succeeded');
      expect((await floorsOf(o.token, o.projectId, o.envId)).map((f) => f.provider_instance_id)).toEqual(['501']);
      expect((await api.get(`/integrations/cloud-accounts/${account.id}`, { token: o.token })).body).toMatchObject({
        active_run_id: null,
        last_run_id: second.body.job_id,
      });
    });
  });

  it('a WebSocket client following a discovery receives its progress live, ending in succeeded; outsiders get no ticket', async () => {
    stub.hetzner = [hetznerServer(401, 'a'), hetznerServer(402, 'b'), hetznerServer(403, 'c')];
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    await withJobsHeld(async (open) => {
      const started = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
        token: o.token,
      });
      const outsider = await signUp(api);
      expect(
        (await api.post('/integrations/progress-ticket', { job_id: started.body.job_id }, { token: outsider.token }))
          .status,
      ).toBe(404);
      const messages = await followedToTheEnd(o.token, started.body.job_id, open);
      expect(messages[0]).toMatchObject({ type: 'discovery.progress', job_id: started.body.job_id, status: 'queued' });
      expect(messages.map((m) => m.status)).toContain('running');
      expect(messages.at(-1)).toMatchObject({ status: 'succeeded', pct: 100, counts: { found: 3, created: 3 } });
      const seqs = messages.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    });
  });

  it('a run the queue tries again goes on from the progress it showed, never back to 0 %', async () => {
    // Enough servers for progress on the way (every 25 floors), not only at the end.
    stub.hetzner = Array.from({ length: 60 }, (_, i) => hetznerServer(600 + i, `s${i}`));
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    await withJobsHeld(async (open) => {
      const started = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, {
        token: o.token,
      });
      expect(started.status, started.text).toBe(202);
      // As a try whose worker died after 40 of the 60 floors leaves it: running, at 66 %.
      const run = (await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token: o.token })).body;
      const key = keys.discoveryRun(o.projectId, account.id, run.created_at, run.id);
      await ddb().send(
        new PutCommand({
          TableName: config().TABLE_NAME,
          Item: { ...(await readItem(key)), status: 'running', progress: { pct: 66, done: 40, total: 60 } },
        }),
      );
      const messages = await followedToTheEnd(o.token, started.body.job_id, open);
      const shown = messages.map((m) => m.pct);
      expect(shown, `every percentage shown, in order: ${shown}`).toEqual([...shown].sort((a, b) => a - b));
      expect(shown).toContain(66);
      expect(messages.at(-1)).toMatchObject({ status: 'succeeded', pct: 100, counts: { found: 60, created: 60 } });
    });
  });

  it('the token is stored sealed and never appears in a response or a log line', async () => {
    const o = await ownerWithEnv(api, 'Enterprise');
    const account = await connectHetzner(o.token, o.projectId, o.envId);
    const stored = await readItem(keys.cloudAccount(o.projectId, o.envId, account.id));
    expect(String(stored!.token_sealed)).toMatch(/^local:v1:/);
    expect(JSON.stringify(stored)).not.toContain(stub.token);
    const listed = await api.get(`/integrations/cloud-accounts?project_id=${o.projectId}`, { token: o.token });
    expect(listed.text).not.toContain(stub.token);
    expect(listed.text).not.toContain('token_sealed');
    // Every log line of this file (connects, discoveries, refused tokens, failed pages) so far.
    await ref.stack.queues.drain();
    for (const message of ['provider request', 'cloud account checked', 'discovery run finished'])
      expect(
        logged.some((l) => l.includes(`"message":"${message}"`)),
        message,
      ).toBe(true);
    for (const line of logged) {
      expect(line).not.toContain(stub.token);
      expect(line).not.toContain('wrong-token-123');
    }
  });
});
