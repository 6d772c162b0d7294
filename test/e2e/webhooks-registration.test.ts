import { describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv } from '../helpers/catalog.ts';
import {
  FORBIDDEN_WEBHOOKS,
  MAX_WEBHOOKS_PER_PROJECT,
  NOT_A_URL,
  URL_NOT_ALLOWED,
  WEBHOOK_LIMIT_REACHED,
  useResolver,
} from '#domain/webhooks';

// The allowlist is off (its default): nothing but public addresses.
const ref = useTestStack();
const api = client(() => ref.stack.url);

const FEATURE_MISSING = 'Your plan does not include webhooks (feature: webhooks). Please upgrade.';
const hooks = (projectId: string) => `/projects/${projectId}/webhooks`;

/** Names resolve through a table here (no network in tests); anything else through the system resolver. */
const NAMES: Record<string, string[]> = {
  'receiver.example': ['93.184.216.34'],
  'private.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '192.168.1.9'],
  'v6.example': ['2606:2800:220:1:248:1893:25c8:1946'],
};
useResolver(async (host) => {
  if (NAMES[host]) return NAMES[host].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const { lookup } = await import('node:dns/promises');
  return lookup(host, { all: true });
});

describe('webhook registration', () => {
  it('is refused on Free and Starter with 403 naming the feature; Team registers', async () => {
    for (const plan of ['Free', 'Starter']) {
      const { token, projectId } = await ownerWithEnv(api, plan);
      const res = await api.post(
        hooks(projectId),
        { url: 'https://receiver.example/hook', events: ['service.created'] },
        { token },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: FEATURE_MISSING });
      expect((await api.get(hooks(projectId), { token })).body).toEqual({ detail: FEATURE_MISSING });
    }
    const { token, projectId } = await ownerWithEnv(api, 'Team');
    const res = await api.post(
      hooks(projectId),
      { url: 'https://receiver.example/hook', events: ['service.created', 'alert.triggered'] },
      { token },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      project_id: projectId,
      url: 'https://receiver.example/hook',
      events: ['service.created', 'alert.triggered'],
      enabled: true,
      description: null,
    });
    const list = await api.get(hooks(projectId), { token });
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([res.body.id]);
  });

  it('refuses loopback, private, IPv4-mapped and privately resolving URLs, and http (allowlist off)', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    for (const url of [
      'http://127.0.0.1/hook',
      'https://127.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'https://100.64.0.1/',
      'https://224.0.0.1/',
      'https://0.0.0.0/',
      'https://[fd00::1]/',
      'https://localhost/hook',
      'https://private.example/hook',
      'https://mixed.example/hook',
      'http://receiver.example/hook',
      'ftp://receiver.example/',
      'https://user:pw@receiver.example/',
      'https://no-such-host.invalid/',
    ]) {
      const res = await api.post(hooks(projectId), { url, events: ['service.created'] }, { token });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({ detail: URL_NOT_ALLOWED });
    }
    for (const url of ['not a url', 'https://', '', 'receiver.example/hook']) {
      const res = await api.post(hooks(projectId), { url, events: ['service.created'] }, { token });
      expect([res.status, res.body], url).toEqual([
        422,
        { detail: [{ loc: ['body', 'url'], msg: NOT_A_URL, type: 'invalid_format' }] },
      ]);
    }
    for (const url of ['https://receiver.example/x', 'https://v6.example/x', 'https://93.184.216.34:8443/x']) {
      expect((await api.post(hooks(projectId), { url, events: ['floor.created'] }, { token })).status, url).toBe(201);
    }
  });

  it('checks a changed URL the same way', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const hook = (
      await api.post(hooks(projectId), { url: 'https://receiver.example/x', events: ['service.created'] }, { token })
    ).body;
    const res = await api.patch(`${hooks(projectId)}/${hook.id}`, { url: 'https://private.example/x' }, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: URL_NOT_ALLOWED });
    expect((await api.get(`${hooks(projectId)}/${hook.id}`, { token })).body.url).toBe('https://receiver.example/x');
  });

  it('needs the owner or webhooks.manage; others get 403, non-members 404', async () => {
    const { owner, token, projectId } = await ownerWithEnv(api);
    const holder = await signUp(api);
    const other = await signUp(api);
    const stranger = await signUp(api);
    const role = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'hooks', permissions: ['webhooks.manage'] },
      { token },
    );
    expect(role.status).toBe(201);
    const plain = await api.post(
      `/projects/${projectId}/custom-roles`,
      { name: 'ops', permissions: ['services.manage'] },
      { token },
    );
    expect(
      (
        await api.post(
          `/projects/${projectId}/custom-roles/${role.body.id}/assignments`,
          { user_id: holder.id },
          { token },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await api.post(
          `/projects/${projectId}/custom-roles/${plain.body.id}/assignments`,
          { user_id: other.id },
          { token },
        )
      ).status,
    ).toBe(201);
    const body = { url: 'https://receiver.example/x', events: ['user.invited'] };
    expect((await api.post(hooks(projectId), body, { token: holder.token })).status).toBe(201);
    const refused = await api.post(hooks(projectId), body, { token: other.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: FORBIDDEN_WEBHOOKS });
    expect((await api.get(hooks(projectId), { token: stranger.token })).status).toBe(404);
    expect(owner.id).toBeTruthy();
  });

  it(`holds at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks per project, even when registered concurrently; deleting frees a slot`, async () => {
    const { token, projectId } = await ownerWithEnv(api);
    const results = await Promise.all(
      Array.from({ length: MAX_WEBHOOKS_PER_PROJECT + 4 }, (_, i) =>
        api.post(hooks(projectId), { url: `https://receiver.example/${i}`, events: ['service.created'] }, { token }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_WEBHOOKS_PER_PROJECT);
    for (const r of results.filter((x) => x.status !== 201))
      expect([r.status, r.body]).toEqual([403, { detail: WEBHOOK_LIMIT_REACHED }]);
    const first = results.find((r) => r.status === 201)!.body;
    expect((await api.delete(`${hooks(projectId)}/${first.id}`, undefined, { token })).status).toBe(204);
    expect((await api.get(`${hooks(projectId)}/${first.id}`, { token })).status).toBe(404);
    expect(
      (
        await api.post(
          hooks(projectId),
          { url: 'https://receiver.example/again', events: ['service.created'] },
          { token },
        )
      ).status,
    ).toBe(201);
  });

  it('validates the body before any lookup: unknown event types and empty lists are 422', async () => {
    const { token, projectId } = await ownerWithEnv(api);
    expect(
      (await api.post(hooks(projectId), { url: 'https://receiver.example/x', events: ['service.exploded'] }, { token }))
        .status,
    ).toBe(422);
    expect(
      (await api.post(hooks(projectId), { url: 'https://receiver.example/x', events: [] }, { token })).status,
    ).toBe(422);
  });
});
