import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { ownerWithEnv, createService } from '../helpers/catalog.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { frozenClock } from '../helpers/sign-in.ts';

/** An API key exchanged for a short-lived access token, a machine's credential. */
const clock = frozenClock();
const ref = useTestStack({}, { clock, withS3: true });
const api = client(() => ref.stack.url);

const INVALID_API_KEY = 'Invalid or expired API key';

async function newKey(token: string, body: Record<string, unknown> = {}, path = '/me/api-keys') {
  const res = await api.post(path, { name: `ci-${randomUUID().slice(0, 8)}`, ...body }, { token });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; key: string; project_ids: string[] | null };
}

async function exchange(key: string) {
  const res = await api.post('/auth/api-key/token', { api_key: key });
  expect(res.status, res.text).toBe(200);
  return res.body as {
    access_token: string;
    token_type: string;
    expires_in: number;
    scopes: string[];
    project_ids: string[] | null;
  };
}

/** POST /impex/import as the CLI sends it (multipart). */
async function importForm(token: string, fields: Record<string, string>, file: { name: string; text: string }) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  body.set('file', new Blob([file.text], { type: 'application/yaml' }), file.name);
  const res = await fetch(`${ref.stack.url}/impex/import`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

describe('API key exchange', () => {
  it('gives a bearer token limited to the key, records the use on the key and in the security log', async () => {
    const o = await ownerWithEnv(api);
    const { id, key } = await newKey(o.token, { scopes: ['read', 'write'] });
    clock.advance(1000);
    const token = await exchange(key);
    expect(token).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      scopes: ['read', 'write'],
      project_ids: null,
    });

    const services = await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, {
      token: token.access_token,
    });
    expect(services.status, services.text).toBe(200);
    const created = await api.post(
      '/services',
      { name: 'from-ci', project_id: o.projectId, environment_id: o.envId },
      { token: token.access_token },
    );
    expect(created.status, created.text).toBe(201);

    const keys = await api.get('/me/api-keys', { token: o.token });
    expect(keys.body.find((k: { id: string }) => k.id === id).last_used_at).toBe(clock.now().toISOString());
    const log = await api.get('/auth/me/security-log', { token: o.token });
    expect(log.body[0]).toMatchObject({
      event: 'api_key.exchanged',
      actor: 'self',
      details: { key_id: id, prefix: key.slice(0, 12), scopes: 'read write' },
    });
    expect(log.text).not.toContain(key);
  });

  it('refuses unknown, revoked, expired and metrics keys with one answer', async () => {
    const o = await ownerWithEnv(api);
    const revoked = await newKey(o.token);
    expect((await api.delete(`/me/api-keys/${revoked.id}`, undefined, { token: o.token })).status).toBe(204);
    const expiring = await newKey(o.token, { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    const metrics = await newKey(o.token, {}, '/me/metrics-api-keys');
    clock.advance(61_000);
    for (const key of [`ick_${'A'.repeat(43)}`, revoked.key, expiring.key, metrics.key]) {
      const res = await api.post('/auth/api-key/token', { api_key: key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: INVALID_API_KEY });
    }
  });

  it('the key itself as a Bearer credential stays 401', async () => {
    const o = await ownerWithEnv(api);
    const { key } = await newKey(o.token);
    const res = await api.get('/projects', { token: key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });
});

describe("a key's token", () => {
  it('of a read key reads and is refused a write (403)', async () => {
    const o = await ownerWithEnv(api);
    const { access_token } = await exchange((await newKey(o.token)).key);
    expect((await api.get('/projects', { token: access_token })).status).toBe(200);
    const res = await api.post(
      '/services',
      { name: 'nope', project_id: o.projectId, environment_id: o.envId },
      { token: access_token },
    );
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("This API key is read-only: writes need the 'write' scope");
  });

  it('of a read key plans (a dry-run import, its ticket, its status) and is refused an import that writes (403)', async () => {
    const o = await ownerWithEnv(api);
    const { access_token } = await exchange((await newKey(o.token)).key);
    const doc = {
      name: 'env.yaml',
      text: 'apiVersion: infracatalog/v1\nkind: Environment\nspec:\n  services:\n    - name: from-plan\n',
    };
    const target = { project_id: o.projectId, environment_id: o.envId };

    const applied = await importForm(access_token, { ...target, dry_run: 'false' }, doc);
    expect([applied.status, applied.body.detail]).toEqual([
      403,
      "This API key is read-only: writes need the 'write' scope",
    ]);
    const undeclared = await importForm(access_token, target, doc);
    expect(undeclared.status).toBe(403);

    const planned = await importForm(access_token, { ...target, dry_run: 'true' }, doc);
    expect(planned.status, planned.text).toBe(202);
    const ticket = await api.post('/impex/progress-ticket', { job_id: planned.body.job_id }, { token: access_token });
    expect(ticket.status, ticket.text).toBe(200);
    await ref.stack.queues.drain();
    const record = await api.get(`/impex/status/${planned.body.job_id}`, { token: access_token });
    expect(record.body).toMatchObject({ status: 'succeeded', dry_run: true, report: { summary: { create: 1 } } });
    expect(
      (await api.get(`/services?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token })).body,
    ).toEqual([]);
    const upload = await api.post('/impex/upload-url', { ...target, size: 10 }, { token: access_token });
    expect(upload.status, upload.text).toBe(201);
    expect((await api.post(`/impex/cancel/${planned.body.job_id}`, {}, { token: access_token })).status).toBe(403);
  });

  it('of a key limited to a project sees only that project: another one is 404 as for a stranger', async () => {
    const o = await ownerWithEnv(api);
    const other = await projectWithEnv(api, o.token);
    const { key, project_ids } = await newKey(o.token, { scopes: ['read', 'write'], project_ids: [o.projectId] });
    expect(project_ids).toEqual([o.projectId]);
    const { access_token } = await exchange(key);
    const list = await api.get('/projects', { token: access_token });
    expect(list.body.map((p: { id: string }) => p.id)).toEqual([o.projectId]);
    const service = await createService(api, o.token, other.projectId, other.envId);
    const byId = await api.get(`/services/${service.id}`, { token: access_token });
    const stranger = await api.get(`/services/${service.id}`, { token: (await signUp(api)).token });
    expect(byId.status).toBe(404);
    expect(byId.body).toEqual(stranger.body);
    expect((await api.get(`/projects/${other.projectId}/plan`, { token: access_token })).status).toBe(404);
    expect((await api.post('/projects', { name: 'more' }, { token: access_token })).status).toBe(403);
  });

  it('a key limited to a project the caller cannot reach is refused at creation (422 naming the field)', async () => {
    const o = await ownerWithEnv(api);
    const stranger = await ownerWithEnv(api);
    const res = await api.post(
      '/me/api-keys',
      { name: 'x', project_ids: [o.projectId, stranger.projectId] },
      { token: o.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'project_ids', 1], msg: 'Project not found or not accessible', type: 'value_error' },
    ]);
  });

  it('ends on its next request when the key is revoked', async () => {
    const o = await ownerWithEnv(api);
    const { id, key } = await newKey(o.token);
    const { access_token } = await exchange(key);
    expect((await api.get('/projects', { token: access_token })).status).toBe(200);
    expect((await api.delete(`/me/api-keys/${id}`, undefined, { token: o.token })).status).toBe(204);
    const res = await api.get('/projects', { token: access_token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Token revoked' });
  });

  it('ends while the key is archived and works again once it is restored (the lookup follows the key)', async () => {
    const o = await ownerWithEnv(api);
    const { id, key } = await newKey(o.token);
    const { access_token } = await exchange(key);
    expect((await api.post('/me/mark-archived', { api_keys: [id] }, { token: o.token })).status).toBe(200);
    expect((await api.get('/projects', { token: access_token })).body).toEqual({ detail: 'Token revoked' });
    expect((await api.post('/auth/api-key/token', { api_key: key })).body).toEqual({ detail: INVALID_API_KEY });
    expect((await api.post('/me/unarchive', { api_keys: [id] }, { token: o.token })).status).toBe(200);
    const again = await exchange(key);
    expect((await api.get('/projects', { token: again.access_token })).status).toBe(200);
  });

  it('is not a person: logging out with it is refused (403), the key keeps working', async () => {
    const o = await ownerWithEnv(api);
    const { access_token } = await exchange((await newKey(o.token)).key);
    const res = await api.post('/auth/logout', {}, { token: access_token });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('An API key cannot be used for this: sign in as the account holder');
    expect((await api.get('/projects', { token: access_token })).status).toBe(200);
  });

  it('cannot reach account-only routes: keys, sessions, the second factor, billing', async () => {
    const o = await ownerWithEnv(api);
    const { access_token } = await exchange((await newKey(o.token, { scopes: ['read', 'write'] })).key);
    for (const [method, path] of [
      ['GET', '/me/api-keys'],
      ['POST', '/me/api-keys'],
      ['GET', '/auth/sessions'],
      ['POST', '/auth/totp/provision'],
      ['GET', '/me/billing/portal'],
      ['POST', '/me/downgrade/confirm'],
    ] as const) {
      const res = await api.call(method, path, method === 'POST' ? {} : undefined, { token: access_token });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toBe('An API key cannot be used for this: sign in as the account holder');
    }
    expect((await api.get('/auth/me', { token: access_token })).status).toBe(200);
  });
});
