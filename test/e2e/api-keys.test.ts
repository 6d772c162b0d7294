import { describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { cancelPlan, setPlan } from '../helpers/plans.ts';
import { readItem } from '../helpers/catalog.ts';
import { frozenClock } from '../helpers/sign-in.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { PLAN_CATALOGUE, resetPlanCache, type Plan } from '#domain/billing';

/** API keys and metrics API keys of the signed-in account. */
const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const SETS = [
  { path: '/me/api-keys', set: 'api', valuePrefix: 'ick_', defaultScopes: ['read'] },
  { path: '/me/metrics-api-keys', set: 'metrics', valuePrefix: 'icm_', defaultScopes: ['metrics.read'] },
] as const;
const [API, METRICS] = SETS;

const limitReached = (plan: string, max: number) =>
  `API key limit reached for your '${plan}' plan (max ${max}). Please upgrade to create more API keys.`;
const NO_CRUD_PRO = 'Your plan does not include API keys (feature: crud_pro). Please upgrade.';
const NO_CRUD_API = 'Your plan does not include API keys (feature: crud_api). Please upgrade.';

const TableName = () => config().TABLE_NAME;

/**
 * Puts the account on a non-public plan like Starter but with `features` changed: every public plan
 * has crud_pro and crud_api, so the feature refusals need plans written straight into the table.
 */
async function setCustomPlan(userId: string, rank: number, features: Partial<Plan['features']>) {
  const starter = PLAN_CATALOGUE.find((p) => p.name === 'Starter')!;
  const plan: Plan = {
    ...starter,
    id: randomUUID(),
    name: `Custom ${rank}`,
    is_public: false,
    features: { ...starter.features, ...features },
  };
  await ddb().send(
    new PutCommand({ TableName: TableName(), Item: { ...keys.plan(rank, plan.id), type: 'plan', ...plan } }),
  );
  resetPlanCache();
  await cancelPlan(userId);
  const id = randomUUID();
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName: TableName(),
      Item: {
        ...keys.subscription(userId, id),
        type: 'subscription',
        id,
        user_id: userId,
        plan_id: plan.id,
        status: 'active',
        period_start: now,
        period_end: null,
        created_at: now,
        updated_at: now,
      },
    }),
  );
}

const createKey = (path: string, token: string, body: Record<string, unknown> = {}) =>
  api.post(path, { name: `key-${randomUUID().slice(0, 8)}`, ...body }, { token });

async function newKey(path: string, token: string, body: Record<string, unknown> = {}) {
  const res = await createKey(path, token, body);
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; key: string; [field: string]: unknown };
}

describe('API keys: creating and listing', () => {
  for (const { path, valuePrefix, defaultScopes } of SETS) {
    it(`${path}: the value is shown once, on creation, behind its prefix; GET lists the record without it`, async () => {
      const user = await signUp(api);
      await setPlan(user.id, 'Starter');
      const res = await api.post(path, { name: '  deploy bot ' }, { token: user.token });
      expect(res.status, res.text).toBe(201);
      const { key, ...record } = res.body;
      expect(key).toMatch(new RegExp(`^${valuePrefix}[A-Za-z0-9_-]{43}$`));
      expect(record).toEqual({
        id: expect.any(String),
        name: 'deploy bot',
        scopes: defaultScopes,
        project_ids: null,
        prefix: key.slice(0, 12),
        created_at: clock.now().toISOString(),
        expires_at: null,
        last_used_at: null,
      });
      expect(Object.keys(record)).toEqual([
        'id',
        'name',
        'scopes',
        'project_ids',
        'prefix',
        'created_at',
        'expires_at',
        'last_used_at',
      ]);

      const list = await api.get(path, { token: user.token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([record]);
      expect(list.text).not.toContain(key.slice(12));
      // Another account sees none of them.
      const other = await signUp(api);
      expect((await api.get(path, { token: other.token })).body).toEqual([]);
    });
  }

  it('keeps the two sets apart: a key is listed and revoked only in its own set', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const apiKey = await newKey(API.path, user.token);
    const metricsKey = await newKey(METRICS.path, user.token);
    expect((await api.get(API.path, { token: user.token })).body.map((k: { id: string }) => k.id)).toEqual([apiKey.id]);
    expect((await api.get(METRICS.path, { token: user.token })).body.map((k: { id: string }) => k.id)).toEqual([
      metricsKey.id,
    ]);
    const wrongSet = await api.delete(`${API.path}/${metricsKey.id}`, undefined, { token: user.token });
    expect(wrongSet.status).toBe(404);
    expect(wrongSet.body).toEqual({ detail: 'API key not found' });
    expect((await api.get(METRICS.path, { token: user.token })).body).toHaveLength(1);
  });

  it('lists keys oldest first, each value different', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const first = await newKey(API.path, user.token, { name: 'first' });
    clock.advance(1000);
    const second = await newKey(API.path, user.token, { name: 'second' });
    expect(first.key).not.toBe(second.key);
    expect((await api.get(API.path, { token: user.token })).body.map((k: { name: string }) => k.name)).toEqual([
      'first',
      'second',
    ]);
  });

  it('stores only the SHA-256 hash of the value: the item holds no plaintext key', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    for (const { path, set } of SETS) {
      const { id, key } = await newKey(path, user.token);
      const item = await readItem(keys.apiKey(user.id, set, id));
      expect(item).toBeDefined();
      const stored = JSON.stringify(item);
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(12));
      expect(item!.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(item!.prefix).toBe(key.slice(0, 12));
    }
  });
});

describe('API keys: scopes and expiry', () => {
  it('keeps the given scopes once each, in the vocabulary order', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    expect((await newKey(API.path, user.token, { scopes: ['write', 'read', 'write'] })).scopes).toEqual([
      'read',
      'write',
    ]);
    expect((await newKey(API.path, user.token, { scopes: ['write'] })).scopes).toEqual(['write']);
    expect((await newKey(METRICS.path, user.token, { scopes: ['metrics.read'] })).scopes).toEqual(['metrics.read']);
  });

  it("refuses unknown scopes, another set's scopes and an empty list with a 422 naming the field", async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const cases: [string, unknown, (string | number)[]][] = [
      [API.path, ['read', 'admin'], ['body', 'scopes', 1]],
      [API.path, ['metrics.read'], ['body', 'scopes', 0]],
      [METRICS.path, ['read'], ['body', 'scopes', 0]],
      [API.path, [], ['body', 'scopes']],
      [API.path, 'read', ['body', 'scopes']],
    ];
    for (const [path, scopes, loc] of cases) {
      const res = await createKey(path, user.token, { scopes });
      expect(res.status, `${path} ${JSON.stringify(scopes)}`).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([loc]);
    }
    expect((await api.get(API.path, { token: user.token })).body).toEqual([]);
  });

  it('refuses a missing or blank name', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }]) {
      const res = await api.post(API.path, body, { token: user.token });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'name']);
    }
  });

  it('takes a future expires_at (stored in UTC) and refuses a past or present one with a 422 naming the field', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    const in30Days = new Date(clock.now().getTime() + 30 * 86_400_000);
    const withOffset = in30Days.toISOString().replace('Z', '+00:00');
    expect((await newKey(API.path, user.token, { expires_at: withOffset })).expires_at).toBe(in30Days.toISOString());
    expect((await newKey(API.path, user.token, { expires_at: null })).expires_at).toBeNull();

    for (const at of [clock.now(), new Date(clock.now().getTime() - 1000)]) {
      const res = await createKey(API.path, user.token, { expires_at: at.toISOString() });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['body', 'expires_at'], msg: 'expires_at must be in the future', type: 'value_error' }],
      });
    }
    const notATime = await createKey(API.path, user.token, { expires_at: 'tomorrow' });
    expect(notATime.status).toBe(422);
    expect(notATime.body.detail[0].loc).toEqual(['body', 'expires_at']);
    expect((await api.get(API.path, { token: user.token })).body).toHaveLength(2);
  });

  it('keeps an expired key listed (with its expires_at) and counted against the limit until it is deleted', async () => {
    const user = await signUp(api); // Free: one key
    const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const { key: _value, ...record } = await newKey(API.path, user.token, { expires_at: expiresAt });
    expect(record.expires_at).toBe(expiresAt);
    clock.advance(120_000);
    expect((await api.get(API.path, { token: user.token })).body).toEqual([record]);
    const refused = await createKey(API.path, user.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: limitReached('Free', 1) });
    expect((await api.delete(`${API.path}/${record.id}`, undefined, { token: user.token })).status).toBe(204);
    await newKey(API.path, user.token);
  });
});

describe('API keys: plan features', () => {
  it('refuses creation on a plan without crud_pro, naming crud_pro first', async () => {
    const user = await signUp(api);
    await setCustomPlan(user.id, 50, { crud_pro: false, crud_api: false });
    for (const { path } of SETS) {
      const res = await createKey(path, user.token);
      expect(res.status).toBe(403);
      expect(res.body.detail).toBe(
        path === API.path ? NO_CRUD_PRO : NO_CRUD_PRO.replace('API keys', 'metrics API keys'),
      );
    }
  });

  it('refuses creation on a plan with crud_pro but without crud_api, naming crud_api', async () => {
    const user = await signUp(api);
    await setCustomPlan(user.id, 51, { crud_pro: true, crud_api: false });
    const res = await createKey(API.path, user.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: NO_CRUD_API });
    const metrics = await createKey(METRICS.path, user.token);
    expect(metrics.body).toEqual({
      detail: 'Your plan does not include metrics API keys (feature: crud_api). Please upgrade.',
    });
    expect((await api.get(API.path, { token: user.token })).body).toEqual([]);
  });

  it('refuses creation without an active subscription (no plan, no features)', async () => {
    const user = await signUp(api);
    await cancelPlan(user.id);
    const res = await createKey(API.path, user.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: NO_CRUD_PRO });
  });

  it('still lists and revokes keys after a move to a plan without the features', async () => {
    const user = await signUp(api);
    const key = await newKey(API.path, user.token);
    await setCustomPlan(user.id, 52, { crud_api: false });
    expect((await api.get(API.path, { token: user.token })).body.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect((await api.delete(`${API.path}/${key.id}`, undefined, { token: user.token })).status).toBe(204);
    expect((await api.get(API.path, { token: user.token })).body).toEqual([]);
  });
});

describe('API keys: the plan limit', () => {
  it("refuses a key past the plan's max_api_keys_per_user, counting both sets together; a revoke frees the slot", async () => {
    const user = await signUp(api); // Free: max 1
    const first = await newKey(METRICS.path, user.token);
    for (const { path } of SETS) {
      const res = await createKey(path, user.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: limitReached('Free', 1) });
    }
    expect((await api.delete(`${METRICS.path}/${first.id}`, undefined, { token: user.token })).status).toBe(204);
    await newKey(API.path, user.token);
    expect((await createKey(METRICS.path, user.token)).status).toBe(403);
  });

  it("takes the new plan's limit at once on an upgrade (Free 1 → Starter 5)", async () => {
    const user = await signUp(api);
    await newKey(API.path, user.token);
    expect((await createKey(API.path, user.token)).status).toBe(403);
    await setPlan(user.id, 'Starter');
    for (let i = 0; i < 4; i++) await newKey(i % 2 ? API.path : METRICS.path, user.token);
    const res = await createKey(API.path, user.token);
    expect(res.body).toEqual({ detail: limitReached('Starter', 5) });
  });

  it('never exceeds the limit under concurrent creates, nor drifts under concurrent revokes (8 at once, 6 rounds)', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter'); // max 5
    const MAX = 5;
    for (let round = 0; round < 6; round++) {
      // Rounds start from 0 to 2 keys already held.
      const held = round % 3;
      for (let i = 0; i < held; i++) await newKey(API.path, user.token);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => createKey(SETS[i % 2].path, user.token)));
      const made = results.filter((r) => r.status === 201);
      for (const r of results.filter((r) => r.status !== 201)) {
        expect(r.status, r.text).toBe(403);
        expect(r.body).toEqual({ detail: limitReached('Starter', MAX) });
      }
      expect(made.length, `round ${round}`).toBe(MAX - held);
      const listed: { path: string; id: string }[] = [];
      for (const { path } of SETS)
        for (const k of (await api.get(path, { token: user.token })).body) listed.push({ path, id: k.id });
      expect(listed).toHaveLength(MAX);
      expect((await readItem(keys.account(user.id)))!.api_key_count).toBe(MAX);

      // Every key revoked twice at once: one 204 and one 404 each, and the counter back at 0.
      const revokes = await Promise.all(
        listed.flatMap(({ path, id }) =>
          [0, 1].map(() => api.delete(`${path}/${id}`, undefined, { token: user.token })),
        ),
      );
      expect(revokes.map((r) => r.status).sort()).toEqual([...Array(MAX).fill(204), ...Array(MAX).fill(404)]);
      expect((await readItem(keys.account(user.id)))!.api_key_count).toBe(0);
    }
  });
});

describe('API keys: revoking', () => {
  it('answers 204 and drops the key from the list; 404 for an unknown, foreign or already revoked key', async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Starter');
    const other = await signUp(api);
    const mine = await newKey(API.path, owner.token);
    const theirs = await newKey(API.path, other.token);

    const foreign = await api.delete(`${API.path}/${theirs.id}`, undefined, { token: owner.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'API key not found' });
    expect((await api.get(API.path, { token: other.token })).body).toHaveLength(1);
    expect((await api.delete(`${API.path}/${randomUUID()}`, undefined, { token: owner.token })).status).toBe(404);

    expect((await api.delete(`${API.path}/${mine.id}`, undefined, { token: owner.token })).status).toBe(204);
    expect((await api.get(API.path, { token: owner.token })).body).toEqual([]);
    const again = await api.delete(`${API.path}/${mine.id}`, undefined, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'API key not found' });
    expect((await api.delete(`${API.path}/not-a-uuid`, undefined, { token: owner.token })).status).toBe(422);
  });

  it('needs a signed-in caller', async () => {
    for (const { path } of SETS) {
      expect((await api.get(path)).status).toBe(401);
      expect((await api.post(path, { name: 'x' })).status).toBe(401);
      expect((await api.delete(`${path}/${randomUUID()}`)).status).toBe(401);
    }
  });
});

describe('API keys are not request credentials', () => {
  it("a key presented as 'Authorization: Bearer <key>' is 401 'Invalid or expired token'", async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Starter');
    for (const { path } of SETS) {
      const { key } = await newKey(path, user.token);
      for (const target of ['/auth/me', path, '/projects']) {
        const res = await api.get(target, { token: key });
        expect(res.status, `${target} with a ${path} key`).toBe(401);
        expect(res.body).toEqual({ detail: 'Invalid or expired token' });
      }
    }
  });
});
