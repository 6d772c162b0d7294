import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useTestStack } from '../helpers/stack.ts';
import { client, signUp } from '../helpers/http.ts';
import { createFloor, ownerWithEnv } from '../helpers/catalog.ts';
import { setPlan } from '../helpers/plans.ts';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';

/** What the HTTP layer guarantees on every route. */
const APP = 'https://app.example.com';
const ADMIN_APP = 'https://admin.example.com';
const ref = useTestStack({ APP_BASE_URL: APP, ALLOWED_ORIGINS: ADMIN_APP });
const api = client(() => ref.stack.url);

const NOT_FOUND = { detail: 'Not Found' };

describe('malformed percent-escapes in paths (item 5)', () => {
  it('answer 404 Not Found, signed in or not, whatever the method', async () => {
    const { token } = await signUp(api);
    for (const path of [
      '/services/%ZZ',
      '/services/%',
      '/services/abc%2',
      '/projects/%E0%A4%A',
      '/services/%ED%A0%80',
      '/service-floors/%C0%80',
    ]) {
      const signedIn = await api.get(path, { token });
      expect([path, signedIn.status, signedIn.body]).toEqual([path, 404, NOT_FOUND]);
      const anonymous = await api.get(path);
      expect([path, anonymous.status, anonymous.body]).toEqual([path, 404, NOT_FOUND]);
    }
    const patch = await api.patch('/projects/%ZZ', { name: 'x' }, { token });
    expect([patch.status, patch.body]).toEqual([404, NOT_FOUND]);
    const del = await api.delete('/services/%ZZ', undefined, { token });
    expect([del.status, del.body]).toEqual([404, NOT_FOUND]);
    // a well-formed escape still decodes (and is then validated): 422, not 404
    expect((await api.get('/services/%41', { token })).status).toBe(422);
  });
});

describe('cookie-authenticated writes and cross-site requests (item 7)', () => {
  const cookieOf = (token: string) => `access_token=${token}`;
  const projectNames = async (token: string) =>
    (await api.get('/projects', { token })).body.map((p: { name: string }) => p.name);

  it('refuses a foreign Origin (403) and a non-JSON body (415) on cookie-authenticated writes; Bearer requests are unaffected', async () => {
    const user = await signUp(api);
    await setPlan(user.id, 'Business');
    const cookie = cookieOf(user.token);

    // a page of another origin: refused, nothing written
    const foreign = await api.post(
      '/projects',
      { name: 'from-evil' },
      { cookie, headers: { origin: 'https://evil.example' } },
    );
    expect([foreign.status, foreign.body]).toEqual([403, { detail: 'Origin not allowed' }]);
    const sandboxed = await api.post('/projects', { name: 'from-null' }, { cookie, headers: { origin: 'null' } });
    expect([sandboxed.status, sandboxed.body]).toEqual([403, { detail: 'Origin not allowed' }]);
    const lookalike = await api.post(
      '/projects',
      { name: 'from-lookalike' },
      { cookie, headers: { origin: 'https://app.example.com.evil.example' } },
    );
    expect([lookalike.status, lookalike.body]).toEqual([403, { detail: 'Origin not allowed' }]);

    // what a cross-site form can send without a preflight: text/plain holding JSON, a form, multipart
    const textPlain = await api.call('POST', '/projects', undefined, {
      cookie,
      raw: JSON.stringify({ name: 'from-text' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect([textPlain.status, textPlain.body]).toEqual([
      415,
      { detail: 'Unsupported media type: send application/json' },
    ]);
    const form = await api.call('POST', '/projects', undefined, {
      cookie,
      raw: 'name=from-form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([form.status, form.body]).toEqual([415, { detail: 'Unsupported media type: send application/json' }]);
    const multipart = await api.call('POST', '/projects', undefined, {
      cookie,
      raw: '--b\r\n\r\n--b--',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(multipart.status).toBe(415);
    const allowedButText = await api.call('POST', '/projects', undefined, {
      cookie,
      raw: JSON.stringify({ name: 'x' }),
      headers: { 'content-type': 'text/plain', origin: APP },
    });
    expect(allowedButText.status).toBe(415);
    expect(await projectNames(user.token)).toEqual([]);

    // the same for every state-changing method and for the refresh cookie
    const project = (await api.post('/projects', { name: 'mine' }, { token: user.token })).body;
    const del = await api.delete(`/projects/${project.id}`, undefined, {
      cookie,
      headers: { origin: 'https://evil.example' },
    });
    expect([del.status, del.body]).toEqual([403, { detail: 'Origin not allowed' }]);
    const patch = await api.patch(
      '/auth/me',
      { job_title: 'pwned' },
      { cookie, headers: { origin: 'https://evil.example' } },
    );
    expect([patch.status, patch.body]).toEqual([403, { detail: 'Origin not allowed' }]);
    expect((await api.get('/auth/me', { token: user.token })).body.job_title).toBeNull();
    const refresh = await api.post('/auth/token/refresh', undefined, {
      cookie: `refresh_token=${user.refresh}`,
      headers: { origin: 'https://evil.example' },
    });
    expect([refresh.status, refresh.body]).toEqual([403, { detail: 'Origin not allowed' }]);
    expect(await projectNames(user.token)).toEqual(['mine']);

    // the app's own origin, an allowed one, and a JSON body without Origin (a non-browser client) pass
    expect((await api.post('/projects', { name: 'from-app' }, { cookie, headers: { origin: APP } })).status).toBe(201);
    expect(
      (await api.post('/projects', { name: 'from-admin' }, { cookie, headers: { origin: `${ADMIN_APP}/` } })).status,
    ).toBe(201);
    expect(
      (
        await api.post(
          '/projects',
          { name: 'from-cli' },
          { cookie, headers: { 'content-type': 'application/json; charset=utf-8' } },
        )
      ).status,
    ).toBe(201);
    // reads are not writes: a foreign page may not read the answer anyway (no CORS)
    expect((await api.get('/auth/me', { cookie, headers: { origin: 'https://evil.example' } })).status).toBe(200);

    // a Bearer token is never sent by a foreign page on its own: such requests are not affected
    const bearer = await api.call('POST', '/projects', undefined, {
      token: user.token,
      raw: JSON.stringify({ name: 'bearer-text' }),
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
    });
    expect(bearer.status).toBe(201);
    expect(await projectNames(user.token)).toEqual(
      expect.arrayContaining(['from-app', 'from-admin', 'from-cli', 'bearer-text']),
    );
  });

  it('sends the security headers on every answer; authenticated answers are never cached', async () => {
    const user = await signUp(api);
    const common = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    };
    const headersOf = (res: { headers: Headers }) =>
      Object.fromEntries(Object.keys(common).map((h) => [h, res.headers.get(h)]));
    const answers = {
      me: await api.get('/auth/me', { token: user.token }),
      meByCookie: await api.get('/auth/me', { cookie: `access_token=${user.token}` }),
      unauthenticated: await api.get('/auth/me'),
      notFound: await api.get('/nowhere'),
      invalid: await api.post('/projects', {}, { token: user.token }),
      created: await api.post('/projects', { name: 'headers' }, { token: user.token }),
      login: await api.post('/auth/login', { email: user.email, password: user.password }),
      crossSite: await api.post(
        '/projects',
        { name: 'x' },
        { cookie: `access_token=${user.token}`, headers: { origin: 'https://evil.example' } },
      ),
      plans: await api.get('/plans'),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect([name, headersOf(res)]).toEqual([name, common]);
      expect([name, res.headers.get('cache-control')]).toEqual([name, 'no-store']);
    }
    const noContent = await api.delete(`/projects/${answers.created.body.id}`, undefined, { token: user.token });
    expect(noContent.status).toBe(204);
    expect(headersOf(noContent)).toEqual(common);
    // the API document stays cacheable
    const doc = await api.get('/openapi.json');
    expect(doc.headers.get('cache-control')).toBe('public, max-age=300');
    expect(headersOf(doc)).toEqual(common);
  });
});

describe('text is valid and cost estimates stay integers (item 9)', () => {
  it('refuses NUL characters and unpaired surrogates in any string field with a 422 naming it, before any lookup', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const issue = (loc: (string | number)[], kind: 'nul' | 'surrogate') =>
      kind === 'nul'
        ? { loc, msg: 'String must not contain NUL characters', type: 'string_nul_character' }
        : { loc, msg: 'String must not contain unpaired UTF-16 surrogates', type: 'string_unpaired_surrogate' };

    const nul = await api.post('/projects', { name: 'a\u0000b' }, { token });
    expect([nul.status, nul.body]).toEqual([422, { detail: [issue(['body', 'name'], 'nul')] }]);
    for (const text of ['x\ud800y', 'x\udc00', '\udfff\ud83d']) {
      const lone = await api.post('/projects', { name: text }, { token });
      expect([lone.status, lone.body]).toEqual([422, { detail: [issue(['body', 'name'], 'surrogate')] }]);
    }
    // nested, in lists, in fields the route ignores, and in keys
    const nested = await api.post(
      '/service-floors',
      {
        project_id: projectId,
        environment_id: envId,
        type: 'vm',
        tags: ['ok', 'b\u0000d'],
        extra: { deep: ['\ud800'] },
      },
      { token },
    );
    expect([nested.status, nested.body]).toEqual([
      422,
      { detail: [issue(['body', 'tags', 1], 'nul'), issue(['body', 'extra', 'deep', 0], 'surrogate')] },
    ]);
    const key = await api.post('/projects', { name: 'fine', 'k\u0000': 1 }, { token });
    expect([key.status, key.body]).toEqual([422, { detail: [issue(['body', 'k\u0000'], 'nul')] }]);
    // the query and the path; an unknown project is not even looked up
    const query = await api.get(`/service-floors?project_id=${randomUUID()}&environment_id=${envId}&hostname=a%00`, {
      token,
    });
    expect([query.status, query.body]).toEqual([422, { detail: [issue(['query', 'hostname'], 'nul')] }]);
    const path = await api.get('/services/%00', { token });
    expect([path.status, path.body]).toEqual([422, { detail: [issue(['path', 'service_id'], 'nul')] }]);
    // paired surrogates (emoji) are text
    const emoji = await api.post('/projects', { name: 'rocket 🚀' }, { token });
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe('rocket 🚀');
  });

  it('bounds server specifications so that every cost figure is a safe integer', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api, 'Business');
    const max = { cpu: 4096, memory_mb: 67_108_864, storage_gb: 1_048_576, instances: 10_000 };
    for (const [field, limit] of Object.entries(max)) {
      const over = await api.post(
        '/service-floors',
        { project_id: projectId, environment_id: envId, type: 'vm', [field]: limit + 1 },
        { token },
      );
      expect([field, over.status, over.body.detail?.[0]?.loc]).toEqual([field, 422, ['body', field]]);
    }
    const floor = await createFloor(api, token, projectId, envId, { hostname: 'biggest', ...max });
    const patch = await api.patch(`/service-floors/${floor.id}`, { cpu: 2_147_483_647 }, { token });
    expect(patch.status).toBe(422);

    // servers stored before the bounds (written straight into the table) are priced at the bounds
    const now = new Date().toISOString();
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      await ddb().send(
        new PutCommand({
          TableName: config().TABLE_NAME,
          Item: {
            ...keys.floor(projectId, envId, id),
            type: 'floor',
            id,
            project_id: projectId,
            environment_id: envId,
            floor_type: 'vm',
            created_at: now,
            updated_at: now,
            deleted_at: null,
            hostname: `legacy-${i}`,
            cpu: 2_147_483_647,
            memory_mb: 2_147_483_647,
            storage_gb: 2_147_483_647,
            instances: 2_147_483_647,
          },
        }),
      );
    }
    const res = await api.get(`/projects/${projectId}/costs/estimate`, { token });
    expect(res.status).toBe(200);
    const perServer = 428_441_600_000; // 10,000 × (4,096 × 1500 + 65,536 GB × 400 + 1,048,576 × 10)
    expect(res.body.totals.monthly_cents).toBe(4 * perServer);
    expect(res.text).toContain(`"monthly_cents":${4 * perServer}`);
    const figures = [res.body.totals, ...res.body.environments, ...res.body.servers].flatMap(
      (row: Record<string, unknown>) =>
        ['instances', 'cpu', 'memory_mb', 'storage_gb', 'monthly_cents'].map((k) => row[k]),
    );
    for (const n of figures) expect(Number.isSafeInteger(n)).toBe(true);
  });
});

describe('X-Sync-Timestamp (item 11, last sentence)', () => {
  it('is sent by every call of a list that accepts updated_since, so a first full sync gets a cursor', async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    const lists = [
      '/projects',
      `/environments?project_id=${projectId}`,
      `/services?project_id=${projectId}&environment_id=${envId}`,
      `/service-floors?project_id=${projectId}&environment_id=${envId}`,
      `/networks?project_id=${projectId}&environment_id=${envId}`,
      `/groups?project_id=${projectId}&environment_id=${envId}`,
    ];
    for (const path of lists) {
      const res = await api.get(path, { token });
      expect([path, res.status, res.headers.get('x-sync-timestamp')]).toEqual([
        path,
        200,
        expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      ]);
    }
    // the first full read's cursor picks up what changes afterwards
    const first = await api.get(`/environments?project_id=${projectId}`, { token });
    const cursor = first.headers.get('x-sync-timestamp')!;
    const staging = await api.post('/environments', { name: 'staging', project_id: projectId }, { token });
    const next = await api.get(`/environments?project_id=${projectId}&updated_since=${encodeURIComponent(cursor)}`, {
      token,
    });
    expect(next.body.map((e: { id: string }) => e.id)).toContain(staging.body.id);
  });
});

describe('methods a path does not have, and integers in query strings (item 10)', () => {
  it('answers 405 with Allow for a known path asked with another method, and 404 for unknown or malformed paths', async () => {
    const { token } = await signUp(api);
    for (const [method, path, allow] of [
      ['PUT', '/projects', 'GET, POST'],
      ['DELETE', '/plans', 'GET'],
      ['PUT', `/services/${randomUUID()}`, 'GET, PATCH, DELETE'],
      ['POST', '/openapi.json', 'GET'],
    ] as const) {
      for (const opts of [{ token }, {}]) {
        const res = await api.call(method, path, method === 'DELETE' ? undefined : {}, opts);
        expect([method, path, res.status, res.body]).toEqual([method, path, 405, { detail: 'Method Not Allowed' }]);
        expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
      }
    }
    for (const [method, path] of [
      ['PUT', '/no-such-path'],
      ['PATCH', '/projects/%ZZ'],
      ['GET', '/projects/stats/more'],
    ] as const) {
      const res = await api.call(method, path, undefined, { token });
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
  });

  it("says 'expected an integer' for a query integer that is not one, naming the parameter", async () => {
    const { token, projectId, envId } = await ownerWithEnv(api);
    for (const value of ['abc', '1.5', '2e']) {
      const res = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=${value}`, { token });
      expect([value, res.status, res.body]).toEqual([
        value,
        422,
        { detail: [{ loc: ['query', 'limit'], msg: 'Invalid input: expected an integer', type: 'invalid_type' }] },
      ]);
    }
    const tooBig = await api.get(`/services?project_id=${projectId}&environment_id=${envId}&limit=5000`, { token });
    expect(tooBig.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'too_big' });
  });
});

describe('idle connections', () => {
  it('keeps a connection idle longer than a client does, so the client, not the server, closes it', async () => {
    // An agent that never closes an idle connection itself: what the server does with one shows.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = httpGet(`${ref.stack.url}/plans`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      expect(await get()).toEqual({ status: 200, reused: false });
      // Past Node's default (5 s, and a second's grace), which closed it under a client about to send on it (ECONNRESET).
      await new Promise((r) => setTimeout(r, 6500));
      expect(await get()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});
