import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { captureEvents, createFloor, createService, ownerWithEnv } from '../helpers/catalog.ts';
import { injectForwardFault } from '#shared/outbox';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { handler as outboxStream } from '../../functions/streams/outbox/handler.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);
const events = captureEvents();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The events enqueued for one project, once the local queue has delivered everything. */
async function eventsOf(projectId: string) {
  await ref.stack.queues.drain();
  return events.filter((e) => e.project_id === projectId).map((e) => e.event);
}

describe('catalog events', () => {
  it('publishes service.created, service.updated and service.deleted in the SPEC payload shape', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId, { name: 'checkout' });
    expect((await api.patch(`/services/${s.id}`, { name: 'checkout-v2', port: 8443 }, { token })).status).toBe(200);
    expect((await api.delete(`/services/${s.id}`, undefined, { token })).status).toBe(204);
    const published = await eventsOf(projectId);
    expect(published.map((e) => e.type)).toEqual(['service.created', 'service.updated', 'service.deleted']);
    for (const e of published) {
      expect(Object.keys(e).sort()).toEqual(['data', 'id', 'timestamp', 'type']);
      expect(e.id).toMatch(UUID);
      expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
    }
    expect(published[0].data).toEqual({
      service_id: s.id,
      name: 'checkout',
      project_id: projectId,
      environment_id: envId,
    });
    expect(published[1].data).toEqual({
      service_id: s.id,
      name: 'checkout-v2',
      project_id: projectId,
      environment_id: envId,
      changed: ['name', 'port'],
    });
    expect(published[2].data).toEqual({
      service_id: s.id,
      name: 'checkout-v2',
      project_id: projectId,
      environment_id: envId,
    });
    expect(new Set(published.map((e) => e.id)).size).toBe(3);
  });

  it('publishes floor.created, and service.updated for services a deleted floor detaches', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const floor = await createFloor(api, token, projectId, envId, { type: 'vm', hostname: 'web-1' });
    const s = await createService(api, token, projectId, envId, { name: 'web', service_floor_id: floor.id });
    expect((await api.delete(`/service-floors/${floor.id}`, undefined, { token })).status).toBe(204);
    const published = await eventsOf(projectId);
    expect(published.map((e) => e.type)).toEqual(['floor.created', 'service.created', 'service.updated']);
    expect(published[0].data).toEqual({
      service_floor_id: floor.id,
      hostname: 'web-1',
      type: 'vm',
      project_id: projectId,
      environment_id: envId,
    });
    expect(published[2].data).toEqual({
      service_id: s.id,
      name: 'web',
      project_id: projectId,
      environment_id: envId,
      changed: ['service_floor_id', 'type'],
    });
  });

  it('publishes nothing for a refused write or a change that changes nothing', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const s = await createService(api, token, projectId, envId, { name: 'same' });
    expect((await api.patch(`/services/${s.id}`, { name: 'same' }, { token })).status).toBe(200);
    expect(
      (
        await api.post(
          '/services',
          { name: 'x', project_id: projectId, environment_id: crypto.randomUUID() },
          { token },
        )
      ).status,
    ).toBe(400);
    expect((await eventsOf(projectId)).map((e) => e.type)).toEqual(['service.created']);
  });

  it('loses nothing when the step after the write crashes: the event is in the outbox and arrives at the next read', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    let crashes = 0;
    injectForwardFault(() => {
      crashes++;
      throw new Error('killed between the write and the publish');
    });
    try {
      const s = await createService(api, token, projectId, envId, { name: 'durable' });
      expect((await eventsOf(projectId)).map((e) => e.type)).toEqual([]);
      expect(crashes).toBeGreaterThan(0);
      injectForwardFault(undefined);
      const published = await eventsOf(projectId);
      expect(published.map((e) => e.type)).toEqual(['service.created']);
      expect(published[0].data).toMatchObject({ service_id: s.id, name: 'durable' });
      // Forwarded once: the outbox item is gone after its event was queued.
      expect((await eventsOf(projectId)).length).toBe(1);
    } finally {
      injectForwardFault(undefined);
    }
  });

  it('the cloud outbox reader forwards inserted outbox items from the stream, ignores other changes and reports a failed one', async () => {
    const projectId = crypto.randomUUID();
    const event = {
      id: crypto.randomUUID(),
      type: 'floor.created',
      timestamp: new Date().toISOString(),
      data: { project_id: projectId },
    };
    const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as never;
    const record = (seq: string, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', item: Record<string, unknown>) => ({
      eventName,
      dynamodb: { SequenceNumber: seq, NewImage: image(item) },
    });
    const outboxItem = {
      PK: 'OUTBOX',
      SK: `${event.timestamp}#${event.id}`,
      type: 'outbox',
      scope: { project_id: projectId },
      event,
    };
    const stream = (...records: unknown[]) => ({ Records: records }) as DynamoDBStreamEvent;
    const out = await outboxStream(
      stream(
        record('1', 'INSERT', { PK: `PROJECT#${projectId}`, SK: 'X', type: 'project' }),
        record('2', 'MODIFY', outboxItem),
        record('3', 'INSERT', outboxItem),
      ),
    );
    expect(out).toEqual({ batchItemFailures: [] });
    expect(await eventsOf(projectId)).toEqual([event]);
    const { useLocalQueueTransport } = await import('#shared/queue');
    const previous = useLocalQueueTransport(async () => {
      throw new Error('SQS unavailable');
    });
    try {
      expect(await outboxStream(stream(record('7', 'INSERT', outboxItem), record('8', 'INSERT', outboxItem)))).toEqual({
        batchItemFailures: [{ itemIdentifier: '7' }],
      });
    } finally {
      useLocalQueueTransport(previous);
    }
  });
});
