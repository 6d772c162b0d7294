import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  RequestTimeoutError,
  collect,
  createInfracatClient,
  cursorPage,
  eachOffsetPage,
  type Tokens,
} from '../../clients/typescript/src/index.ts';

/**
 * The typed client against a small stand-in of the service (node:http): what it does by itself —
 * second factor at sign-in, refresh on 'Invalid or expired token', retry after Retry-After on
 * 429/503, paging to the end, one error class for every refusal; and the browser's way, with the
 * refresh token in a cookie.
 */
const PROJECT = '11111111-1111-4111-8111-111111111111';
const ENV = '22222222-2222-4222-8222-222222222222';
const SERVICES = Array.from({ length: 250 }, (_, i) => ({ id: `s-${i}`, name: `svc-${String(i).padStart(3, '0')}` }));
const AUDIT = Array.from({ length: 7 }, (_, i) => ({ id: `a-${i}` }));

let server: Server;
let baseUrl: string;
const state = {
  access: 'access-1',
  refresh: 'refresh-1',
  generation: 1,
  throttle: 0,
  unavailable: 0,
  lostRaces: 0,
  rejectAll: false,
  log: [] as string[],
  bodies: [] as string[],
  keys: [] as (string | undefined)[],
};

function reply(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'http://x');
  let text = '';
  for await (const chunk of req) text += chunk;
  const body = text ? JSON.parse(text) : {};
  state.log.push(`${req.method} ${url.pathname}`);
  if (url.pathname.endsWith('/hung')) return; // accepted, never answered
  const pair = () => {
    state.generation++;
    state.access = `access-${state.generation}`;
    state.refresh = `refresh-${state.generation}`;
    return { access_token: state.access, refresh_token: state.refresh, token_type: 'bearer' };
  };
  if (url.pathname === '/auth/login') {
    if (body.password !== 'pw') return reply(res, 401, { detail: 'Invalid credentials' });
    if (!body.totp_code) return reply(res, 401, { detail: 'TOTP code required' });
    if (body.totp_code !== '123456') return reply(res, 401, { detail: 'TOTP code required or invalid' });
    return reply(res, 200, pair());
  }
  if (url.pathname === '/auth/token/refresh') {
    state.bodies.push(text);
    const cookie = /(?:^|; )refresh_token=([^;]*)/.exec(req.headers.cookie ?? '')?.[1];
    if ((body.refresh_token ?? cookie) !== state.refresh) return reply(res, 401, { detail: 'Invalid refresh token' });
    return reply(res, 200, pair());
  }
  if (url.pathname === '/auth/api-key/token') {
    if (body.api_key !== 'ick_good') return reply(res, 401, { detail: 'Invalid or expired API key' });
    state.generation++;
    state.access = `access-${state.generation}`;
    return reply(res, 200, {
      access_token: state.access,
      token_type: 'bearer',
      expires_in: 900,
      scopes: ['read'],
      project_ids: null,
    });
  }
  if (state.rejectAll || req.headers.authorization !== `Bearer ${state.access}`)
    return reply(res, 401, { detail: 'Invalid or expired token' }, { 'www-authenticate': 'Bearer' });
  if (url.pathname === '/auth/me') {
    if (state.throttle > 0)
      return (state.throttle--, reply(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' }));
    if (state.unavailable > 0)
      return (state.unavailable--, reply(res, 503, { detail: 'Service unavailable' }, { 'retry-after': '0' }));
    return reply(res, 200, { id: 'u1', email: 'ann@example.com' });
  }
  if (url.pathname === '/services' && req.method === 'GET') {
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 200);
    return reply(res, 200, SERVICES.slice(offset, offset + limit));
  }
  if (url.pathname === `/projects/${PROJECT}/audit-log`) {
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const next = from + 3 < AUDIT.length ? String(from + 3) : undefined;
    return reply(res, 200, AUDIT.slice(from, from + 3), next ? { 'x-next-cursor': next } : {});
  }
  if (url.pathname === '/projects' && req.method === 'POST') {
    // The first run of this key is still going (409 + Retry-After), then the service is busy (503), then the answer.
    state.keys.push(req.headers['idempotency-key'] as string | undefined);
    if (state.keys.length === 1)
      return reply(
        res,
        409,
        { detail: 'A request with this Idempotency-Key is still being processed; retry shortly' },
        { 'retry-after': '0' },
      );
    if (state.keys.length === 2) return reply(res, 503, { detail: 'Service unavailable' }, { 'retry-after': '0' });
    return reply(res, 201, { id: 'p1', name: body.name });
  }
  if (url.pathname === '/services/s-1' && req.method === 'PATCH') {
    // A write that lost a race after the service's own retries: 409 with Retry-After, then the answer.
    if (state.lostRaces > 0)
      return (
        state.lostRaces--,
        reply(
          res,
          409,
          { detail: 'The request conflicted with a concurrent change. Please retry.' },
          { 'retry-after': '1' },
        )
      );
    return reply(res, 200, { id: 's-1', name: body.name });
  }
  // A 409 the same request cannot change: no Retry-After.
  if (url.pathname === '/subscriptions/choose')
    return reply(res, 409, { detail: 'You are already subscribed to this plan' });
  if (url.pathname === '/services' && req.method === 'POST')
    return reply(res, 422, { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] });
  return reply(res, 404, { detail: 'Project not found' });
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res).catch((err) => reply(res, 500, { detail: String(err) })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  Object.assign(state, {
    access: 'access-1',
    refresh: 'refresh-1',
    generation: 1,
    throttle: 0,
    unavailable: 0,
    lostRaces: 0,
    rejectAll: false,
    log: [],
    bodies: [],
    keys: [],
  });
});

describe('the typed client', () => {
  it('signs in with the second factor when the service asks for it, and hands out every new pair', async () => {
    const seen: Tokens[] = [];
    const asked: string[] = [];
    const client = createInfracatClient({ baseUrl, onTokens: (t) => void seen.push(t) });
    await client.login({
      email: 'ann@example.com',
      password: 'pw',
      secondFactor: async () => (asked.push('code'), ' 123456 '),
    });
    expect(asked).toEqual(['code']);
    expect(seen).toEqual([{ access_token: 'access-2', refresh_token: 'refresh-2' }]);
    const { data } = await client.api.GET('/auth/me');
    expect(data?.email).toBe('ann@example.com');
    // A wrong password is refused as it is, without asking for a code.
    const refused = await client
      .login({ email: 'ann@example.com', password: 'nope', secondFactor: async () => 'never' })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused.status, refused.detail]).toEqual([401, 'Invalid credentials']);
  });

  it("refreshes by itself: from a stored refresh token on the first call, and once on 401 'Invalid or expired token'", async () => {
    const seen: string[] = [];
    const client = createInfracatClient({
      baseUrl,
      refreshToken: 'refresh-1',
      onTokens: (t) => void seen.push(t.refresh_token),
    });
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['POST /auth/token/refresh', 'GET /auth/me']);
    // The access token expires: the client refreshes once and repeats the call.
    state.access = 'expired';
    state.log = [];
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['GET /auth/me', 'POST /auth/token/refresh', 'GET /auth/me']);
    state.log = [];
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['GET /auth/me']);
    expect(seen).toEqual(['refresh-2', 'refresh-3']);
    expect(client.session.refreshToken).toBe('refresh-3');
  });

  it("with an API key: exchanges it on the first call and again on 401 'Invalid or expired token'; a refused key is an ApiError", async () => {
    const client = createInfracatClient({ baseUrl, apiKey: 'ick_good' });
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['POST /auth/api-key/token', 'GET /auth/me']);
    state.access = 'expired';
    state.log = [];
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['GET /auth/me', 'POST /auth/api-key/token', 'GET /auth/me']);
    expect(client.session.refreshToken).toBeUndefined();
    const revoked = createInfracatClient({ baseUrl, apiKey: 'ick_revoked' });
    await expect(revoked.api.GET('/auth/me')).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      detail: 'Invalid or expired API key',
    });
  });

  it('refreshes only once per call; a refresh token the service no longer takes is an ApiError the caller can tell apart', async () => {
    const client = createInfracatClient({ baseUrl, accessToken: 'old', refreshToken: 'refresh-1' });
    state.rejectAll = true;
    await expect(client.api.GET('/auth/me')).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      detail: 'Invalid or expired token',
    });
    expect(state.log).toEqual(['GET /auth/me', 'POST /auth/token/refresh', 'GET /auth/me']);
    const stale = createInfracatClient({ baseUrl, refreshToken: 'stale' });
    await expect(stale.api.GET('/auth/me')).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      detail: 'Invalid refresh token',
    });
  });

  it('retries 429 and 503 after Retry-After, and gives up after its attempts', async () => {
    const waits: number[] = [];
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1', sleep: async (ms) => void waits.push(ms) });
    state.throttle = 2;
    state.unavailable = 1;
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(waits).toEqual([1000, 1000, 0]);
    expect(state.log.filter((l) => l === 'GET /auth/me')).toHaveLength(4);

    state.throttle = 10;
    waits.length = 0;
    const bounded = createInfracatClient({
      baseUrl,
      accessToken: 'access-1',
      sleep: async (ms) => void waits.push(ms),
      retry: { attempts: 3 },
    });
    const err = await bounded.api.GET('/auth/me').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.detail, err.retryAfter]).toEqual([429, 'Too many requests', 1]);
    expect(waits).toEqual([1000, 1000]);
  });

  it('retries a 409 with Retry-After (a lost race) as it retries a 503, and never a 409 without it', async () => {
    const waits: number[] = [];
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1', sleep: async (ms) => void waits.push(ms) });
    state.lostRaces = 2;
    const renamed = await client.api.PATCH('/services/{service_id}', {
      params: { path: { service_id: 's-1' } },
      body: { name: 'renamed' },
    });
    expect(renamed.data?.name).toBe('renamed');
    expect(waits).toEqual([1000, 1000]);
    expect(state.log.filter((l) => l === 'PATCH /services/s-1')).toHaveLength(3);

    // Spent attempts: the lost race is the caller's ApiError, with its Retry-After.
    state.lostRaces = 10;
    waits.length = 0;
    const lost = await client.api
      .PATCH('/services/{service_id}', { params: { path: { service_id: 's-1' } }, body: { name: 'again' } })
      .catch((e) => e);
    expect(lost).toBeInstanceOf(ApiError);
    expect([lost.status, lost.detail, lost.retryAfter]).toEqual([
      409,
      'The request conflicted with a concurrent change. Please retry.',
      1,
    ]);
    expect(waits).toEqual([1000, 1000, 1000]);

    // A 409 without Retry-After is final: one request, no wait.
    waits.length = 0;
    state.log = [];
    const final = await client.api.POST('/subscriptions/choose', { body: { plan_id: 'team' } }).catch((e) => e);
    expect([final.status, final.detail, final.retryAfter]).toEqual([
      409,
      'You are already subscribed to this plan',
      undefined,
    ]);
    expect(state.log).toEqual(['POST /subscriptions/choose']);
    expect(waits).toEqual([]);
  });

  it('sends one Idempotency-Key per POST and keeps it on every retry', async () => {
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1', sleep: async () => {} });
    expect((await client.api.POST('/projects', { body: { name: 'p' } })).data?.id).toBe('p1');
    expect(state.keys).toHaveLength(3);
    expect(state.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(state.keys).size).toBe(1);
    const first = state.keys[0];
    state.keys = [];
    await client.api.POST('/projects', { body: { name: 'p' } });
    expect(state.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(state.keys[0]).not.toBe(first); // a new logical request, a new key
  });

  it('really waits the Retry-After seconds', async () => {
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1' });
    state.throttle = 1;
    const started = Date.now();
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('walks an offset/limit list of 250 items to its end, and a cursor list through X-Next-Cursor', async () => {
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1' });
    const all = await collect(client.services({ project_id: PROJECT, environment_id: ENV }, { pageSize: 100 }));
    expect(all.map((s) => s.name)).toEqual(SERVICES.map((s) => s.name));
    expect(state.log.filter((l) => l === 'GET /services')).toHaveLength(3);
    const byDefault = await collect(client.services({ project_id: PROJECT, environment_id: ENV }));
    expect(byDefault).toHaveLength(250);
    const audit = await collect(client.auditLog(PROJECT));
    expect(audit.map((a) => a.id)).toEqual(AUDIT.map((a) => a.id));
    // Page by page, as a screen shows them: the pages' sizes, and one cursor page with the next page's cursor.
    const pages = await collect(
      eachOffsetPage(
        (page) =>
          client.api.GET('/services', { params: { query: { project_id: PROJECT, environment_id: ENV, ...page } } }),
        { limit: 100 },
      ),
    );
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    const first = await cursorPage(
      client.api.GET('/projects/{project_id}/audit-log', { params: { path: { project_id: PROJECT } } }),
    );
    expect([first.items.map((a) => a.id), first.next]).toEqual([['a-0', 'a-1', 'a-2'], '3']);
  });

  it('turns every refusal into one ApiError with status, detail and the raw body', async () => {
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1' });
    const notFound = await client.api
      .GET('/projects/{project_id}/plan', { params: { path: { project_id: PROJECT } } })
      .catch((e) => e);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).toMatchObject({
      status: 404,
      detail: 'Project not found',
      body: { detail: 'Project not found' },
      request: 'GET /projects/{project_id}/plan',
    });
    const invalid = await client.api
      .POST('/services', { body: { name: '', project_id: PROJECT, environment_id: ENV } as never })
      .catch((e) => e);
    expect(invalid).toMatchObject({ status: 422, detail: 'body.name: Field required' });
    expect(invalid.body.detail[0].type).toBe('missing');
    expect(invalid.message).toBe('422 body.name: Field required');
    // A form shows a 422 by the fields it names.
    expect([invalid.issues, invalid.fields]).toEqual([
      [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }],
      { name: 'Field required' },
    ]);
    expect([notFound.issues, notFound.fields]).toEqual([[], {}]);
  });

  it('in the browser: refreshes with an empty body and the refresh cookie, keeps no refresh token, and says when the session has ended', async () => {
    const jar = { refresh_token: 'refresh-1' };
    // What the browser does on the same origin: the HttpOnly cookie goes with every request.
    const browserFetch = (req: Request) => {
      req.headers.set('cookie', `refresh_token=${jar.refresh_token}`);
      return fetch(req);
    };
    let ended = 0;
    const client = createInfracatClient({
      baseUrl,
      refreshCookie: true,
      fetch: browserFetch,
      onSessionEnded: () => void ended++,
    });
    await client.signedIn({ access_token: 'access-1' });
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    state.access = 'expired';
    state.log = [];
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    expect(state.log).toEqual(['GET /auth/me', 'POST /auth/token/refresh', 'GET /auth/me']);
    expect(state.bodies).toEqual(['{}']);
    expect(client.session).toEqual({ accessToken: 'access-2', refreshToken: undefined });
    // The session is revoked elsewhere: the refresh is refused, the caller is told, the access token is gone.
    jar.refresh_token = 'revoked';
    state.access = 'expired-again';
    await expect(client.api.GET('/auth/me')).rejects.toMatchObject({
      name: 'ApiError',
      status: 401,
      detail: 'Invalid refresh token',
    });
    expect([ended, client.session.accessToken]).toEqual([1, undefined]);
    // Signed out, a call goes without a token and asks for no refresh of its own.
    state.log = [];
    await expect(client.api.GET('/auth/me')).rejects.toMatchObject({ status: 401, detail: 'Invalid or expired token' });
    expect([state.log, ended]).toEqual([['GET /auth/me'], 1]);
  });

  it('aborts a request the server never answers after timeoutMs; resends GET and keyed POST, never PATCH', async () => {
    const waits: number[] = [];
    const client = createInfracatClient({
      baseUrl,
      accessToken: 'access-1',
      timeoutMs: 200,
      sleep: async (ms) => void waits.push(ms),
    });
    const err = await client.api
      .GET('/services/{service_id}', { params: { path: { service_id: 'hung' } } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err.message).toBe('Request timed out after 0.2 s: GET /services/hung');
    expect([state.log, waits]).toEqual([
      ['GET /services/hung', 'GET /services/hung', 'GET /services/hung'],
      [1000, 2000],
    ]);
    state.log = [];
    await expect(
      client.api.PATCH('/services/{service_id}', { params: { path: { service_id: 'hung' } }, body: { port: 1 } }),
    ).rejects.toThrow('Request timed out after 0.2 s: PATCH /services/hung');
    expect(state.log).toEqual(['PATCH /services/hung']);
  });

  it('a timed-out try is aborted for real (its connection closed), also when the garbage collector runs meanwhile', async () => {
    // The CLI's process collects early (tsx's loader): a Request carrying the signal was collected and its abort reached nothing.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const open = new Set<Socket>();
    const hung = createNetServer((socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.resume();
    });
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const collecting = setInterval(gc, 10);
    try {
      const client = createInfracatClient({
        baseUrl: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
        accessToken: 'access-1',
        timeoutMs: 300,
        sleep: async () => {},
      });
      for (let round = 0; round < 3; round++) {
        await expect(
          client.api.PATCH('/services/{service_id}', { params: { path: { service_id: 'x' } }, body: { port: 1 } }),
        ).rejects.toBeInstanceOf(RequestTimeoutError);
        // The abort reached fetch: it closed its connection (a try only raced by a timer would leave it open for good).
        await expect.poll(() => open.size, { timeout: 5_000 }).toBe(0);
      }
    } finally {
      clearInterval(collecting);
      for (const socket of open) socket.destroy();
      await new Promise((r) => hung.close(r));
    }
  });

  it('resends after a network error only what is safe to send twice, a POST with the same Idempotency-Key', async () => {
    let failures = 0;
    const flaky = (req: Request, init: RequestInit) =>
      failures-- > 0 ? Promise.reject(new TypeError('fetch failed')) : fetch(req, init);
    const client = createInfracatClient({ baseUrl, accessToken: 'access-1', fetch: flaky, sleep: async () => {} });
    failures = 2;
    expect((await client.api.GET('/auth/me')).data?.id).toBe('u1');
    failures = 1;
    state.keys = ['first run', 'still running']; // the stand-in answers the third keyed POST
    expect((await client.api.POST('/projects', { body: { name: 'p' } })).data?.id).toBe('p1');
    failures = 1;
    await expect(
      client.api.PATCH('/services/{service_id}', { params: { path: { service_id: 's-1' } }, body: { port: 1 } }),
    ).rejects.toThrow('fetch failed');
    expect(failures).toBe(0);
  });
});
