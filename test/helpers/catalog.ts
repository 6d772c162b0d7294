import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { connectionEntity, connectionListing, linkEntity, linkListing } from '#domain/catalog';
import { workerTable } from '../../functions/workers/index.ts';
import { signUp, type ApiResponse, type Client } from './http.ts';
import { setPlan } from './plans.ts';
import { projectWithEnv } from './tenancy.ts';

/** Helpers for the catalog tests (services, floors, networks, attachments). */

/** A signed-up owner on the Team plan with a project and an environment. */
export async function ownerWithEnv(api: Client, plan = 'Team') {
  const owner = await signUp(api);
  if (plan !== 'Free') await setPlan(owner.id, plan);
  const { projectId, envId } = await projectWithEnv(api, owner.token);
  return { owner, token: owner.token, projectId, envId };
}

export async function newEnv(api: Client, token: string, projectId: string, name = `env-${randomUUID().slice(0, 8)}`) {
  const res = await api.post('/environments', { name, project_id: projectId }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

export async function createService(
  api: Client,
  token: string,
  projectId: string,
  envId: string,
  fields: Record<string, unknown> = {},
) {
  const res = await api.post(
    '/services',
    { name: `svc-${randomUUID().slice(0, 8)}`, project_id: projectId, environment_id: envId, ...fields },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function createFloor(
  api: Client,
  token: string,
  projectId: string,
  envId: string,
  fields: Record<string, unknown> = {},
) {
  const res = await api.post(
    '/service-floors',
    { project_id: projectId, environment_id: envId, type: 'vm', ...fields },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function createNetwork(
  api: Client,
  token: string,
  projectId: string,
  envId: string,
  fields: Record<string, unknown> = {},
) {
  const res = await api.post(
    '/networks',
    {
      project_id: projectId,
      environment_id: envId,
      name: `net-${randomUUID().slice(0, 8)}`,
      cidr: '10.0.0.0/24',
      ...fields,
    },
    { token },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const put = (Item: Record<string, unknown>) => ddb().send(new PutCommand({ TableName: config().TABLE_NAME, Item }));
export const readItem = async (key: { PK: string; SK: string }) =>
  (await ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: key, ConsistentRead: true }))).Item;

/** Soft-deletes an item the way every group does (sets deleted_at and updated_at). */
export async function softDelete(key: { PK: string; SK: string }) {
  const now = new Date().toISOString();
  await put({ ...(await readItem(key)), deleted_at: now, updated_at: now });
}

/**
 * Items of groups built concurrently by others (structure, topology), written directly with the
 * field names those groups use: groups/subgroups {id, name, deleted_at}, connections {a_type,
 * a_id, b_type, b_id, with their listings}, links {from_service_id, to_service_id, with their listings}.
 */
export async function putGroup(projectId: string, envId: string, name: string, extra: Record<string, unknown> = {}) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await put({
    ...keys.group(projectId, envId, id),
    id,
    name,
    project_id: projectId,
    environment_id: envId,
    updated_at: now,
    deleted_at: null,
    ...extra,
  });
  return id;
}
export async function putSubgroup(
  projectId: string,
  envId: string,
  groupId: string,
  name: string,
  extra: Record<string, unknown> = {},
) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await put({
    ...keys.subgroup(projectId, envId, id),
    id,
    name,
    group_id: groupId,
    project_id: projectId,
    environment_id: envId,
    updated_at: now,
    deleted_at: null,
    ...extra,
  });
  return id;
}
/**
 * A connection as the topology group writes it: the item and its listings (by which a service's or
 * floor's delete finds it); `listed: false` writes the item alone, for a reader of items only.
 */
export async function putConnection(
  projectId: string,
  envId: string,
  a: [string, string],
  b: [string, string],
  chainId: string | null = null,
  { listed = true } = {},
) {
  const id = randomUUID();
  const now = new Date().toISOString();
  const key = keys.connection(projectId, envId, id);
  const item = {
    id,
    project_id: projectId,
    environment_id: envId,
    a_type: a[0],
    a_id: a[1],
    b_type: b[0],
    b_id: b[1],
    direction: 'none',
    chain_id: chainId,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await Promise.all([
    put({ ...key, ...item }),
    ...(listed ? connectionListing.items(connectionEntity.decode(item)) : []).map(put),
  ]);
  return key;
}
/** A chain (or hub) of connections: the topology group keeps its live member count on it. */
export async function putChain(projectId: string, envId: string, connectionCount: number) {
  const id = randomUUID();
  const now = new Date().toISOString();
  const key = keys.connectionChain(projectId, envId, id);
  await put({
    ...key,
    id,
    project_id: projectId,
    environment_id: envId,
    group_kind: 'chain',
    connection_count: connectionCount,
    updated_at: now,
    deleted_at: null,
  });
  return { id, key };
}
/** A link as the topology group writes it: the item and its ends' listings (by which a service's delete finds it); `listed: false` writes the item alone. */
export async function putLink(projectId: string, envId: string, from: string, to: string, { listed = true } = {}) {
  const id = randomUUID();
  const now = new Date().toISOString();
  const key = keys.link(projectId, envId, id);
  const item = {
    id,
    project_id: projectId,
    environment_id: envId,
    from_service_id: from,
    to_service_id: to,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await Promise.all([put({ ...key, ...item }), ...(listed ? linkListing.items(linkEntity.decode(item)) : []).map(put)]);
  return key;
}

/** Two refusals that must be indistinguishable: same status, byte-identical body. */
export function expectSameNotFound(a: ApiResponse, b: ApiResponse, detail: string) {
  expect(a.status).toBe(404);
  expect(b.status).toBe(404);
  expect(a.text).toBe(JSON.stringify({ detail }));
  expect(b.text).toBe(a.text);
}

export interface CapturedEvent {
  project_id: string;
  event: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * For the file's duration a test worker takes the events queue's place and records each message
 * the outbox reader forwards, as SQS would hand it to the webhook delivery worker (call
 * `stack.queues.drain()` first: it reads the outbox).
 */
export function captureEvents() {
  const captured: CapturedEvent[] = [];
  let previous: (typeof workerTable)['events'];
  beforeAll(() => {
    previous = workerTable.events;
    workerTable.events = {
      folder: 'test-events',
      handler: async (e: SQSEvent) => {
        for (const r of e.Records) captured.push(JSON.parse(r.body));
        return { batchItemFailures: [] };
      },
    };
  });
  afterAll(() => {
    workerTable.events = previous;
  });
  return captured;
}
