import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { setPlan } from '../helpers/plans.ts';
import { runningClock } from '../helpers/sign-in.ts';

/** GET /me/audit-log, the caller's own account-level entries (API keys, plan changes). */
/** Real time, moved on by hand where a test needs a moment strictly between two writes. */
const clock = runningClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);

const path = (q = '') => `/me/audit-log${q ? `?${q}` : ''}`;
async function log(token: string, q = '') {
  const res = await api.get(path(q), { token });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>[];
}
const ok = async (p: Promise<{ status: number; text: string }>, status = 200) => {
  const res = await p;
  expect(res.status, res.text).toBe(status);
  return res as Awaited<typeof p> & { body: any };
};

/** An account on Team (crud_pro and crud_api: it may create API keys). */
async function teamAccount() {
  const account = await signUp(api);
  await setPlan(account.id, 'Team');
  return account;
}

describe('GET /me/audit-log', () => {
  it("shows the caller's API key creation and plan change, newest first, with actor and origin; another account sees none of them", async () => {
    const me = await teamAccount();
    const created = (await ok(api.post('/me/api-keys', { name: 'ci' }, { token: me.token }), 201)).body;
    const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
    const starter = plans.find((p) => p.name === 'Starter' && p.interval === 'monthly')!;
    await ok(api.post('/me/downgrade/confirm', { to_plan_id: starter.id }, { token: me.token }));

    const entries = await log(me.token);
    expect(entries.map((e) => e.action)).toEqual(['subscription.plan_change', 'api_key.create']);
    expect(entries[0]).toMatchObject({
      entity_type: 'subscription',
      entity_id: me.id,
      project_id: null,
      environment_id: null,
      account_id: me.id,
      before: { plan_name: 'Team' },
      after: { plan_id: starter.id, plan_name: 'Starter' },
      actor: { type: 'account', id: me.id, email: me.email, is_staff: false },
    });
    expect(entries[1]).toMatchObject({
      entity_type: 'api_key',
      entity_id: created.id,
      account_id: me.id,
      before: null,
      after: { name: 'ci', key_set: 'api', prefix: created.prefix },
    });
    for (const e of entries) {
      expect(e.source_ip).toBeTruthy();
      expect(e.request_id).toBeTruthy();
      expect(e.user_agent).not.toBeNull();
    }
    const text = JSON.stringify(entries);
    expect(text).not.toMatch(/key_hash/);
    expect(text).not.toContain(created.key);

    // Another account: an empty log, and none of the caller's entries whatever the filter.
    const other = await teamAccount();
    expect(await log(other.token)).toEqual([]);
    expect(await log(other.token, `entity_id=${created.id}`)).toEqual([]);
    expect(await log(other.token, `entity_id=${me.id}`)).toEqual([]);
    expect(await log(other.token, `actor_id=${me.id}`)).toEqual([]);
    // A project's entries are not account-level: the caller's project creation is not in this log.
    expect((await api.post('/projects', { name: 'p' }, { token: me.token })).status).toBe(201);
    expect((await log(me.token)).map((e) => e.action)).toEqual(['subscription.plan_change', 'api_key.create']);
    expect((await api.get(path(), {})).status).toBe(401);
  });

  it('filters like the project log and pages with X-Next-Cursor; a cursor of another account or query is a 422', async () => {
    const me = await teamAccount();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c'])
      ids.push((await ok(api.post('/me/api-keys', { name }, { token: me.token }), 201)).body.id);
    // A moment strictly after the writes above and before the ones below, without waiting for the wall clock.
    clock.advance(1);
    const mid = clock.now().toISOString();
    clock.advance(1);
    await ok(api.delete(`/me/api-keys/${ids[0]}`, undefined, { token: me.token }), 204);

    expect((await log(me.token)).map((e) => e.action)).toEqual([
      'api_key.revoke',
      'api_key.create',
      'api_key.create',
      'api_key.create',
    ]);
    expect((await log(me.token, `entity_id=${ids[0]}`)).map((e) => e.action)).toEqual([
      'api_key.revoke',
      'api_key.create',
    ]);
    expect((await log(me.token, `actor_id=${me.id}&action=api_key.create`)).map((e) => e.entity_id)).toEqual([
      ids[2],
      ids[1],
      ids[0],
    ]);
    expect((await log(me.token, `entity_id=${ids[0]}&actor_id=${me.id}&action=api_key.revoke`)).length).toBe(1);
    expect(await log(me.token, 'entity_type=subscription')).toEqual([]);
    expect((await log(me.token, `since=${mid}`)).map((e) => e.action)).toEqual(['api_key.revoke']);
    expect((await log(me.token, `until=${mid}`)).length).toBe(3);

    const all = (await log(me.token)).map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = '';
    let first = '';
    while (cursor !== null) {
      const res: { status: number; text: string; body: any; headers: Headers } = await api.get(
        path(`limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
        { token: me.token },
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.map((e: { id: string }) => e.id));
      cursor = res.headers.get('x-next-cursor');
      if (cursor && !first) first = cursor;
    }
    expect(seen).toEqual(all);
    expect(first).toBeTruthy();
    expect((await api.get(path('limit=500'), { token: me.token })).headers.get('x-next-cursor')).toBeNull();

    const other = await teamAccount();
    expect((await api.get(path(`cursor=${encodeURIComponent(first)}`), { token: other.token })).status).toBe(422);
    expect(
      (await api.get(path(`entity_id=${ids[0]}&cursor=${encodeURIComponent(first)}`), { token: me.token })).status,
    ).toBe(422);
    for (const q of ['limit=0', 'limit=501', 'since=yesterday', 'entity_id=nope', 'cursor=not-a-cursor']) {
      expect((await api.get(path(q), { token: me.token })).status, q).toBe(422);
    }
  });
});
