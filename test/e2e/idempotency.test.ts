import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { scanAll } from '../helpers/dynamo.ts';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ddb } from '#shared/clients';
import { keys } from '#db/keys';
import { createNetwork, ownerWithEnv, readItem } from '../helpers/catalog.ts';
import { countCalls } from '../bench/measure.ts';

const ref = useTestStack();
const api = client(() => ref.stack.url);
const withKey = (token: string, key: string) => ({ token, headers: { 'idempotency-key': key } });

const serviceNames = async (token: string, projectId: string, envId: string) =>
  ((await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token })).body as { name: string }[])
    .map((s) => s.name)
    .sort();

describe('Idempotency-Key on creating POSTs', () => {
  it('answers a retry with the first answer, and creates once', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const body = { name: 'api', project_id: projectId, environment_id: envId };
    const key = randomUUID();
    const first = await api.post('/services', body, withKey(token, key));
    const retry = await api.post('/services', body, withKey(token, key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await serviceNames(token, projectId, envId)).toEqual(['api']);
    expect((await readItem(keys.environment(projectId, envId)))!.service_count).toBe(1);
  });

  it('refuses the same key with a different request (422 naming the header)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const key = randomUUID();
    expect(
      (await api.post('/services', { name: 'one', project_id: projectId, environment_id: envId }, withKey(token, key)))
        .status,
    ).toBe(201);
    const other = await api.post(
      '/services',
      { name: 'two', project_id: projectId, environment_id: envId },
      withKey(token, key),
    );
    expect(other.status).toBe(422);
    expect(other.body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' });
    const elsewhere = await api.post(
      '/service-floors',
      { name: 'one', project_id: projectId, environment_id: envId },
      withKey(token, key),
    );
    expect(elsewhere.status).toBe(422);
    expect(await serviceNames(token, projectId, envId)).toEqual(['one']);
  });

  it('runs concurrent retries of one key once: the others replay it or are told to retry (409, Retry-After)', async () => {
    for (let round = 0; round < 5; round++) {
      const { token, projectId, envId } = await ownerWithEnv(api);
      const body = { name: `race-${round}`, project_id: projectId, environment_id: envId };
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => api.post('/services', body, withKey(token, key))),
      );
      const fresh = answers.filter((a) => a.status === 201 && !a.headers.get('idempotent-replayed'));
      expect(fresh).toHaveLength(1);
      for (const a of answers) {
        if (a.status === 201) expect(a.body).toEqual(fresh[0].body);
        else {
          expect(a.status).toBe(409);
          expect(a.headers.get('retry-after')).toBe('1');
        }
      }
      expect((await api.post('/services', body, withKey(token, key))).body).toEqual(fresh[0].body);
      expect(await serviceNames(token, projectId, envId)).toEqual([body.name]);
    }
  });

  it('keeps no refusal: the same request may be retried once the cause is gone', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const taken = await createNetwork(api, token, projectId, envId, { name: 'taken' });
    const body = { name: 'taken', cidr: '10.1.0.0/24', project_id: projectId, environment_id: envId };
    const key = randomUUID();
    expect((await api.post('/networks', body, withKey(token, key))).status).toBe(400);
    expect((await api.delete(`/networks/${taken.id}`, undefined, { token })).status).toBe(204);
    const retry = await api.post('/networks', body, withKey(token, key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys per account: another account using the same key is not answered with the first one', async () => {
    const a = await signUp(api);
    const b = await signUp(api);
    const key = randomUUID();
    const first = await api.post('/projects', { name: 'same' }, withKey(a.token, key));
    const second = await api.post('/projects', { name: 'same' }, withKey(b.token, key));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets a key after 24 hours', async () => {
    const { token } = await ownerWithEnv(api);
    const key = randomUUID();
    const first = await api.post('/projects', { name: 'kept' }, withKey(token, key));
    expect(first.status).toBe(201);
    // The record's expiry, as 24 hours would leave it (the table's TTL removes it some time after).
    const records = await scanAll(ref.stack.config.TABLE_NAME, {
      FilterExpression: 'SK = :sk',
      ExpressionAttributeValues: { ':sk': 'IDEMPOTENCY' },
    });
    for (const r of records) {
      await ddb().send(
        new UpdateCommand({
          TableName: ref.stack.config.TABLE_NAME,
          Key: { PK: r.PK, SK: r.SK },
          UpdateExpression: 'SET expires_at_epoch = :past',
          ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
        }),
      );
    }
    // Run again, not replayed: the name is now taken by the first run's project.
    const later = await api.post('/projects', { name: 'kept' }, withKey(token, key));
    expect(later.status).toBe(400);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses an unusable key, and without a key behaves as SPEC says (no second read or write)', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const bad = await api.post(
      '/services',
      { name: 'x', project_id: projectId, environment_id: envId },
      withKey(token, 'k'.repeat(256)),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
    expect((await api.post('/projects', { name: 'plain' }, { token })).status).toBe(201);
    expect((await api.post('/projects', { name: 'plain' }, { token })).status).toBe(400);
  });

  it('costs one sequential round trip with a key (the claim goes out beside the first read), none without', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const calls = countCalls(ddb());
    const cost = async (name: string, headers: Record<string, string>) => {
      calls.reset();
      expect(
        (await api.post('/services', { name, project_id: projectId, environment_id: envId }, { token, headers }))
          .status,
      ).toBe(201);
      return { byCommand: calls.byCommand(), roundTrips: calls.roundTrips() };
    };
    const plain = await cost('plain', {});
    const keyed = await cost('keyed', { 'idempotency-key': randomUUID() });
    // The claim (PutItem) and keeping the answer (UpdateItem): two calls, one of them on the way.
    expect(keyed.byCommand).toEqual({ ...plain.byCommand, PutItemCommand: 1, UpdateItemCommand: 1 });
    expect(plain.byCommand).not.toHaveProperty('PutItemCommand');
    // At most one more: the claim overlaps the route's reads (fewer when it spans more than one of them).
    expect(keyed.roundTrips).toBeLessThanOrEqual(plain.roundTrips + 1);
  });

  it('answers what the route did when its answer cannot be kept: a write that was made is never a 503', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const stack = ddb().middlewareStack;
    stack.add(
      (next, context) => async (args) => {
        const keeping =
          context.commandName === 'UpdateItemCommand' &&
          JSON.stringify((args as { input: unknown }).input).includes('IDEMPOTENCY#');
        if (keeping)
          throw Object.assign(new Error('down'), {
            name: 'ServiceUnavailable',
            $fault: 'server',
            $metadata: { httpStatusCode: 503 },
          });
        return next(args);
      },
      { step: 'initialize', name: 'answersCannotBeKept' },
    );
    try {
      const created = await api.post(
        '/services',
        { name: 'made', project_id: projectId, environment_id: envId },
        withKey(token, randomUUID()),
      );
      expect(created.status).toBe(201);
    } finally {
      stack.remove('answersCannotBeKept');
    }
    expect(await serviceNames(token, projectId, envId)).toEqual(['made']);
  });
});
