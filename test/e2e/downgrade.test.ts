import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp, PASSWORD } from '../helpers/http.ts';
import { ownerWithEnv, createService } from '../helpers/catalog.ts';
import { frozenClock, login } from '../helpers/sign-in.ts';
import { readOutbox } from '../helpers/outbox.ts';
import { sweepDeadlines } from '#domain/lifecycle';
import { appContext } from '#shared/context';

const clock = frozenClock();
const ref = useTestStack({}, { clock });
const api = client(() => ref.stack.url);
const DAY = 24 * 3600 * 1000;

async function planId(name: string, interval = 'monthly') {
  const plans = (await api.get('/plans')).body as { id: string; name: string; interval: string }[];
  return plans.find((p) => p.name === name && (p.interval === interval || p.name === 'Free'))!.id;
}

/** A Team owner with `count` services in one environment, one a second apart (newest last). */
async function teamWithServices(count: number) {
  const o = await ownerWithEnv(api, 'Team');
  const services: { id: string; name: string }[] = [];
  for (let i = 0; i < count; i++) {
    clock.advance(1000);
    services.push(
      await createService(api, o.token, o.projectId, o.envId, { name: `svc-${String(i).padStart(2, '0')}` }),
    );
  }
  return { ...o, services };
}

const sweep = () => sweepDeadlines(appContext({ clock }));
/** An access token valid at the clock's time (days pass in these tests; tokens last 15 minutes). */
const tokenNow = async (email: string) => (await login(api, email, PASSWORD)).body.access_token as string;

describe('downgrade', () => {
  it('Team with 30 services → Starter: preflight shows 5 over, confirm opens a 14-day window, archiving 5 brings it under', async () => {
    const o = await teamWithServices(30);
    const starter = await planId('Starter');
    const pre = await api.post('/me/downgrade/preflight', { to_plan_id: starter }, { token: o.token });
    expect(pre.status, pre.text).toBe(200);
    expect(pre.body.over).toEqual({ services: 5, project_users: 0, api_keys: 0, environments: 0, projects: 0 });
    expect(pre.body.projects).toEqual([
      expect.objectContaining({
        project_id: o.projectId,
        services: { count: 30, limit: 25, over: 5 },
        environments_over: [
          expect.objectContaining({ environment_id: o.envId, services: { count: 30, limit: 25, over: 5 } }),
        ],
      }),
    ]);
    // Nothing changed yet.
    expect((await api.get('/me/subscription', { token: o.token })).body.plan.name).toBe('Team');

    const confirmedAt = clock.now().getTime();
    const confirm = await api.post('/me/downgrade/confirm', { to_plan_id: starter }, { token: o.token });
    expect(confirm.status, confirm.text).toBe(200);
    expect(confirm.body).toMatchObject({
      status: 'ok',
      plan: { name: 'Starter' },
      archive_window: { until: new Date(confirmedAt + 14 * DAY).toISOString(), remaining_seconds: 14 * 24 * 3600 },
      any_over: true,
    });
    expect((await api.get('/me/subscription', { token: o.token })).body.plan.name).toBe('Starter');

    const status = await api.get('/me/limits/status', { token: o.token });
    expect(status.body).toEqual({
      limits: { services: 25, project_users: 10, api_keys: 5 },
      usage: { services: 30, project_users: 0, api_keys: 0 },
      over: { services: 5, project_users: 0, api_keys: 0 },
      over_total: 5,
      any_over: true,
      archive_window: { until: new Date(confirmedAt + 14 * DAY).toISOString(), remaining_seconds: 14 * 24 * 3600 },
      services_per_env: [
        {
          project_id: o.projectId,
          environment_id: o.envId,
          environment_name: expect.any(String),
          services: 30,
          limit: 25,
          over: 5,
        },
      ],
    });
    // The smaller plan's limits apply at once: no 31st service.
    const more = await api.post(
      '/services',
      { name: 'one-more', project_id: o.projectId, environment_id: o.envId },
      { token: o.token },
    );
    expect(more.status).toBe(403);

    const candidates = (await api.get('/me/limits/overage-candidates', { token: o.token })).body;
    expect(candidates.services).toHaveLength(30);
    const newest = o.services
      .slice(-5)
      .reverse()
      .map((s) => s.id);
    expect(candidates.suggested.services).toEqual(newest);
    expect(
      candidates.services.filter((c: { suggested: boolean }) => c.suggested).map((c: { id: string }) => c.id),
    ).toEqual(newest);

    const archived = await api.post(
      '/me/mark-archived',
      { services: candidates.suggested.services },
      { token: o.token },
    );
    expect(archived.status, archived.text).toBe(200);
    const after = (await api.get('/me/limits/status', { token: o.token })).body;
    expect(after).toMatchObject({ usage: { services: 25 }, over: { services: 0 }, any_over: false });
    const listed = (
      await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}&limit=1000`, { token: o.token })
    ).body as { id: string }[];
    expect(listed).toHaveLength(25);
    expect(listed.some((s) => newest.includes(s.id))).toBe(false);
    // Restoring one would go over Starter's 25: refused.
    const restore = await api.post('/me/unarchive', { services: [newest[0]] }, { token: o.token });
    expect(restore.status).toBe(403);
    // Once there is room (one service deleted), it comes back and is listed again.
    expect((await api.delete(`/services/${o.services[0].id}`, undefined, { token: o.token })).status).toBe(204);
    expect((await api.post('/me/unarchive', { services: [newest[0]] }, { token: o.token })).status).toBe(200);
    const relisted = (
      await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}&limit=1000`, { token: o.token })
    ).body as { id: string }[];
    expect(relisted.map((s) => s.id)).toContain(newest[0]);
    expect(relisted).toHaveLength(25);

    // At the deadline nothing more is archived: the account is under.
    clock.advance(14 * DAY);
    await sweep();
    expect((await api.get('/me/limits/status', { token: await tokenNow(o.owner.email) })).body).toMatchObject({
      usage: { services: 25 },
      archive_window: { until: null, remaining_seconds: 0 },
    });
  });

  it('an account that does nothing is reminded 7 days and 1 day before, then archived at the deadline and mailed', async () => {
    const o = await teamWithServices(28);
    const starter = await planId('Starter');
    expect((await api.post('/me/downgrade/confirm', { to_plan_id: starter }, { token: o.token })).status).toBe(200);
    const mails = async () => {
      await ref.stack.queues.drain();
      return readOutbox(ref.stack.dataDir, { to: o.owner.email });
    };
    clock.advance(6 * DAY);
    await sweep();
    expect(await mails()).toHaveLength(0);
    clock.advance(1 * DAY);
    await sweep();
    expect((await mails()).map((m) => m.subject)).toEqual([
      "In 7 days: items over your plan's limits will be archived",
    ]);
    clock.advance(6 * DAY);
    await sweep();
    expect((await mails()).map((m) => m.subject).at(-1)).toBe(
      "Tomorrow: items over your plan's limits will be archived",
    );
    // Not yet: one second before the deadline.
    clock.advance(DAY - 1000);
    await sweep();
    expect((await api.get('/me/limits/status', { token: await tokenNow(o.owner.email) })).body.over.services).toBe(3);
    clock.advance(1000);
    await sweep();
    const token = await tokenNow(o.owner.email);
    const status = (await api.get('/me/limits/status', { token })).body;
    expect(status).toMatchObject({
      usage: { services: 25 },
      over: { services: 0 },
      any_over: false,
      archive_window: { until: null },
    });
    const last = (await mails()).at(-1)!;
    expect(last.subject).toBe("Items over your plan's limits were archived");
    for (const s of o.services.slice(-3)) expect(last.text).toContain(s.name);
    expect(last.text).not.toContain(o.services[0].name);
    // Archived, not deleted: they are listed as archived.
    const summary = (await api.get('/me/archived/summary', { token })).body;
    expect(summary.services).toBe(3);
    // The audit log records each archive, by the service (no account asked for it), with the Starter plan's retention ahead.
    const log = (await api.get(`/projects/${o.projectId}/audit-log?action=service.archive`, { token })).body as {
      entity_id: string;
      actor: unknown;
    }[];
    expect(log.map((e) => e.entity_id).sort()).toEqual(
      o.services
        .slice(-3)
        .map((s) => s.id)
        .sort(),
    );
    for (const e of log) expect(e.actor).toEqual({ type: 'service', id: null, email: null, is_staff: false });
    // A second sweep does nothing more.
    await sweep();
    expect((await mails()).length).toBe(3);
  });

  it('API keys over the limit at the deadline are archived by the service: account-level entries in the owner’s own log', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await api.post('/me/api-keys', { name: `k${i}` }, { token: o.token });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
      clock.advance(1000);
    }
    expect(
      (await api.post('/me/downgrade/confirm', { to_plan_id: await planId('Starter') }, { token: o.token })).status,
    ).toBe(200);
    clock.advance(14 * DAY);
    await sweep();
    const token = await tokenNow(o.owner.email);
    const log = (await api.get('/me/audit-log?action=api_key.archive', { token })).body as {
      entity_id: string;
      actor: unknown;
      account_id: string;
      project_id: null;
    }[];
    expect(log).toHaveLength(1);
    expect(ids).toContain(log[0].entity_id);
    expect(log[0]).toMatchObject({
      account_id: o.owner.id,
      project_id: null,
      actor: { type: 'service', id: null, email: null, is_staff: false },
    });
    // Nothing in the project's log.
    expect((await api.get(`/projects/${o.projectId}/audit-log?entity_type=api_key`, { token })).body).toEqual([]);
  });

  it('refuses: 422 without a plan, 404 unknown plan, 409 the current plan, 400 a plan that is not smaller, 403 Enterprise+', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const cases: [unknown, number, string | undefined][] = [
      [{}, 422, undefined],
      [{ to_plan_id: 'nope' }, 404, 'Plan not found'],
      [{ to_plan_id: await planId('Team') }, 409, 'You are already subscribed to this plan'],
      [
        { to_plan_id: await planId('Business') },
        400,
        'This plan is not a downgrade of yours: choose it with POST /subscriptions/choose',
      ],
      [{ to_plan_id: await planId('Enterprise+', 'custom') }, 403, undefined],
    ];
    for (const path of ['/me/downgrade/preflight', '/me/downgrade/confirm']) {
      for (const [body, status, detail] of cases) {
        const res = await api.post(path, body, { token: o.token });
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
        if (detail) expect(res.body).toEqual({ detail });
      }
    }
    expect((await api.get('/me/limits/status')).status).toBe(401);
  });

  it('to Free: the paid plan ends at once (zero invoice), the window opens; an account without projects is simply under', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const res = await api.post('/me/downgrade/confirm', { to_plan_id: await planId('Free') }, { token: o.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ plan: { name: 'Free' }, any_over: false });
    expect((await api.get('/me/invoices', { token: o.token })).body.items[0]).toMatchObject({ total_cents: 0 });
    const lone = await signUp(api);
    expect((await api.get('/me/limits/status', { token: lone.token })).body).toMatchObject({
      usage: { services: 0, project_users: 0, api_keys: 0 },
      any_over: false,
      services_per_env: [],
    });
  });
});
