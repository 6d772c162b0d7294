import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import { grantRole, projectWithEnv } from '../helpers/tenancy.ts';
import { addService, connect } from '../helpers/topology.ts';
import { countCalls } from '../bench/measure.ts';
import { hetznerServer } from '../../infra/local/cloud-stub.ts';
import { hetznerDiscovery, importDocument, useHetznerStub } from '../helpers/other-paths.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { IMPEX_API_VERSION } from '#domain/impex';

/**
 * GET /topology is answered from the environment's snapshot, which the table stream keeps (locally its
 * stand-in, fed by this process's writes): a change by any path shows in the next read once the stream
 * has settled; the answer carries an ETag, and a read holding it is answered 304; refusals are today's;
 * a snapshot left behind by a keeper that failed is rebuilt by the next read.
 */

const env: Record<string, string> = {};
const stub = useHetznerStub(env);
const ref = useTestStack(env, { withS3: true });
const api = client(() => ref.stack.url);
let counter: ReturnType<typeof countCalls> | undefined;
/** The DynamoDB calls from here on (one counter on the stack's client). */
const callsFromNow = () => {
  counter ??= countCalls(ddb());
  counter.reset();
  return counter;
};

type Topology = {
  nodes: { kind: string[]; id: string[]; name: (string | null)[] };
  edges: { kind: string[]; source: number[]; target: number[] };
};

async function environment() {
  const o = await ownerWithEnv(api, 'Enterprise');
  const scope = { project_id: o.projectId, environment_id: o.envId };
  /** The topology after the stream settled: its nodes as `kind:name`, its edges as `kind a→b`. */
  const read = async (headers: Record<string, string> = {}, token = o.token) => {
    await ref.stack.queues.drain();
    const res = await api.get<Topology>(`/topology?${new URLSearchParams(scope)}`, { token, headers });
    return res;
  };
  const picture = async () => {
    const res = await read();
    expect(res.status, res.text).toBe(200);
    const t = res.body;
    const label = (i: number) => `${t.nodes.kind[i]}:${t.nodes.name[i]}`;
    return {
      nodes: t.nodes.id.map((_, i) => label(i)),
      edges: t.edges.kind.map((k, i) => `${k} ${label(t.edges.source[i])}→${label(t.edges.target[i])}`),
    };
  };
  return { ...o, scope, read, picture };
}

describe('GET /topology from the snapshot the stream keeps', () => {
  it('shows a change by each path in the next read: API create, rename, delete; import; discovery; archive and restore', async () => {
    const e = await environment();
    expect(await e.picture()).toEqual({ nodes: [], edges: [] });

    // The API: create, connect, rename, delete.
    const web = await addService(api, e.token, e.projectId, e.envId, 'web');
    const db = await addService(api, e.token, e.projectId, e.envId, 'db');
    await connect(api, e.token, {
      ...e.scope,
      a_type: 'service',
      a_id: web,
      b_type: 'service',
      b_id: db,
      direction: 'a_to_b',
    });
    expect(await e.picture()).toEqual({
      nodes: ['service:db', 'service:web'],
      edges: ['connection service:web→service:db'],
    });
    expect((await api.patch(`/services/${db}`, { name: 'postgres' }, { token: e.token })).status).toBe(200);
    expect((await e.picture()).nodes).toEqual(['service:postgres', 'service:web']);
    expect((await api.delete(`/services/${web}`, undefined, { token: e.token })).status).toBe(204);
    expect(await e.picture()).toEqual({ nodes: ['service:postgres'], edges: [] });

    // An import (the job, through its queue).
    const document = {
      apiVersion: IMPEX_API_VERSION,
      kind: 'Environment',
      spec: {
        services: [{ name: 'postgres' }, { name: 'api' }],
        connections: [{ a: { service: 'api' }, b: { service: 'postgres' }, direction: 'a_to_b' }],
      },
    };
    await importDocument(ref, e.token, e.scope, document);
    expect(await e.picture()).toEqual({
      nodes: ['service:api', 'service:postgres'],
      edges: ['connection service:api→service:postgres'],
    });

    // Discovery (the run, through its queue): the servers found are the environment's.
    stub.hetzner = [hetznerServer(201, 'node-a'), hetznerServer(202, 'node-b')];
    await hetznerDiscovery(ref, api, stub, e.token, e.scope);
    expect((await e.picture()).nodes).toEqual(['service:api', 'service:postgres', 'floor:node-a', 'floor:node-b']);

    // Archive, then restore.
    const api_ = (await e.read()).body.nodes.id[0];
    expect((await api.post('/me/mark-archived', { services: [api_] }, { token: e.token })).status).toBe(200);
    expect(await e.picture()).toEqual({ nodes: ['service:postgres', 'floor:node-a', 'floor:node-b'], edges: [] });
    expect((await api.post('/me/unarchive', { services: [api_] }, { token: e.token })).status).toBe(200);
    expect(await e.picture()).toEqual({
      nodes: ['service:api', 'service:postgres', 'floor:node-a', 'floor:node-b'],
      edges: ['connection service:api→service:postgres'],
    });
  }, 120_000);

  it('answers an ETag; the same read holding it is 304 with no body, until a change; compressed as Accept-Encoding allows', async () => {
    const e = await environment();
    const svc = await addService(api, e.token, e.projectId, e.envId, 'first');
    for (let i = 0; i < 30; i++) await addService(api, e.token, e.projectId, e.envId, `service-with-a-long-name-${i}`);
    const first = await e.read({ 'accept-encoding': 'gzip' });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('content-encoding')).toBe('gzip');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.body.nodes.name).toContain('first');

    const again = await e.read({ 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // The unchanged read costs the sign-in's and the access's BatchGets (the snapshot's head comes with the access): no more.
    const calls = callsFromNow();
    await api.get(`/topology?${new URLSearchParams(e.scope)}`, { token: e.token, headers: { 'if-none-match': etag } });
    expect(calls.byCommand()).toEqual({ BatchGetItemCommand: 2 });
    expect(calls.roundTrips()).toBe(2);

    const br = await e.read({ 'accept-encoding': 'br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.body).toEqual(first.body);

    expect((await api.patch(`/services/${svc}`, { name: 'renamed' }, { token: e.token })).status).toBe(200);
    const changed = await e.read({ 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.nodes.name).toContain('renamed');
  });

  it('reads the snapshot in at most two round trips after the access: its head with the access, then its buckets', async () => {
    const e = await environment();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await addService(api, e.token, e.projectId, e.envId, `s-${i}`));
    for (let i = 1; i < ids.length; i++)
      await connect(api, e.token, {
        ...e.scope,
        a_type: 'service',
        a_id: ids[i - 1],
        b_type: 'service',
        b_id: ids[i],
        direction: 'none',
      });
    await e.read();
    // An answer this process has not made yet (asked uncompressed): read from the buckets.
    const headers = { 'accept-encoding': 'identity' };
    const calls = callsFromNow();
    const res = await api.get<Topology>(`/topology?${new URLSearchParams(e.scope)}`, { token: e.token, headers });
    expect(res.status, res.text).toBe(200);
    expect(res.body.nodes.id).toHaveLength(20);
    expect(res.body.edges.kind).toHaveLength(19);
    // The sign-in's BatchGet, the access's (with the head), the buckets': no Query of the environment's items.
    expect(calls.byCommand()).toEqual({ BatchGetItemCommand: 3 });
    expect(calls.roundTrips()).toBe(3);
    // The same version asked again: the answer the process kept, its buckets not read again.
    const again = callsFromNow();
    const kept = await api.get<Topology>(`/topology?${new URLSearchParams(e.scope)}`, { token: e.token, headers });
    expect(kept.body).toEqual(res.body);
    expect(again.byCommand()).toEqual({ BatchGetItemCommand: 2 });
    // Asked in other words for the same coding (as a browser words its header): still the kept answer.
    const reworded = callsFromNow();
    const same = await api.get<Topology>(`/topology?${new URLSearchParams(e.scope)}`, {
      token: e.token,
      headers: { 'accept-encoding': 'deflate, identity;q=0.5' },
    });
    expect(same.body).toEqual(res.body);
    expect(reworded.byCommand()).toEqual({ BatchGetItemCommand: 2 });

    // The keeper's work for one write, off its path (the write itself sends what it sent before): the
    // head read and `seen` moved, the item and its bucket read, the bucket written, `version` set.
    expect((await api.patch(`/services/${ids[0]}`, { name: 'first' }, { token: e.token })).status).toBe(200);
    const upkeep = callsFromNow();
    await ref.stack.queues.drain();
    // (The drain's Queries are the outbox's stand-in reading its partition.)
    const { QueryCommand: _outbox, ...keeper } = upkeep.byCommand();
    console.log(`the snapshot's upkeep of one rename: ${JSON.stringify(keeper)}`);
    expect(keeper).toEqual({
      GetItemCommand: 1,
      UpdateItemCommand: 2,
      BatchGetItemCommand: 2,
      BatchWriteItemCommand: 1,
    });
  });

  it('is refused as GET /services is: a viewer of another environment, a stranger, another project’s environment; never another environment’s data', async () => {
    const e = await environment();
    await addService(api, e.token, e.projectId, e.envId, 'secret');
    expect((await e.read()).status).toBe(200);
    const other = await api.post('/environments', { name: 'other', project_id: e.projectId }, { token: e.token });
    expect(other.status, other.text).toBe(201);
    await addService(api, e.token, e.projectId, other.body.id, 'elsewhere');

    const viewer = await signUp(api);
    await grantRole(api, e.token, other.body.id, viewer.id, 'viewer');
    // Their reach into the first environment is exactly GET /services's there (a project member's).
    const theirs = await e.read({}, viewer.token);
    const services = await api.get<{ name: string }[]>(`/services?${new URLSearchParams(e.scope)}`, {
      token: viewer.token,
    });
    expect(theirs.status).toBe(services.status);
    if (services.status === 200) expect(theirs.body.nodes.name).toEqual(services.body.map((s) => s.name));
    else expect(theirs.text).toBe(services.text);
    const own = await api.get<Topology>(
      `/topology?${new URLSearchParams({ ...e.scope, environment_id: other.body.id })}`,
      { token: viewer.token },
    );
    expect(own.status, own.text).toBe(200);
    expect(own.body.nodes.name).toEqual(['elsewhere']);

    const stranger = await signUp(api);
    expect((await e.read({}, stranger.token)).status).toBe(404);
    const foreign = await projectWithEnv(api, stranger.token);
    const crossed = await api.get(
      `/topology?${new URLSearchParams({ project_id: e.projectId, environment_id: foreign.envId })}`,
      { token: e.token },
    );
    expect(crossed.status).toBe(400);
  });

  it('repairs a snapshot its keeper left behind: the next read rebuilds it from the items', async () => {
    const e = await environment();
    await addService(api, e.token, e.projectId, e.envId, 'kept');
    const before = await e.read();
    expect(before.body.nodes.name).toEqual(['kept']);
    // A keeper that took a change on (its head's `seen` moved) and failed before applying it: the
    // snapshot's buckets lost the row, and the head is behind since long before the grace.
    const table = config().TABLE_NAME;
    const head = keys.topologyHead(e.projectId, e.envId);
    await ddb().send(
      new UpdateCommand({
        TableName: table,
        Key: head,
        UpdateExpression: 'SET seen = version + :one, seen_at = :long_ago',
        ExpressionAttributeValues: { ':one': 1, ':long_ago': '2020-01-01T00:00:00.000Z' },
      }),
    );
    await ddb().send(
      new UpdateCommand({
        TableName: table,
        Key: keys.topologyBucket(e.projectId, e.envId, 0),
        UpdateExpression: 'REMOVE z',
      }),
    );
    const repaired = await e.read();
    expect(repaired.status, repaired.text).toBe(200);
    expect(repaired.body.nodes.name).toEqual(['kept']);
    expect(repaired.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });
});
