import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomBytes } from 'node:crypto';
import { apiEvent, lambdaContext } from '../../infra/local/api-event.ts';
import { startDnsStandIn, type DnsStandIn } from '../../infra/local/dns-stand-in.ts';
import { startLocalIdp, type LocalIdp } from '../../infra/local/idp.ts';
import { routeTable } from '../../functions/route-table.ts';
import { httpHandler } from '#http/pipeline';
import { config } from '#shared/config';
import { throughIdp } from '../helpers/idp-browser.ts';
import { setPlan } from '../helpers/plans.ts';
import type { countCalls } from './measure.ts';
import type { OperationRow } from './operations.ts';

/**
 * Single sign-on's operations in the one table (operations.ts): the callback and the login code's
 * exchange, against the local IdP (oidc-provider) and the DNS stand-in, each counted as the other
 * operations are. The issue's budget besides: the callback costs at most 3 DynamoDB round trips beyond
 * the password sign-in's own writes (those are POST /auth/sso/token's: last login, security log, session).
 */
const SSO_CALLBACK_ROUND_TRIPS = 3;

/** The issue's budget as one line of the bench's output: each callback's round trips against it. */
export function ssoCallbackBudgetLine(rows: OperationRow[]): string {
  const callbacks = rows.filter((r) => r.operation.startsWith('GET /auth/sso/callback'));
  const worst = Math.max(...callbacks.map((r) => r.roundTrips));
  return `SSO callback: at most ${worst} DynamoDB round trips (${callbacks.map((r) => `${r.operation.slice('GET /auth/sso/callback '.length)} ${r.roundTrips}`).join(', ')}), budget ${SSO_CALLBACK_ROUND_TRIPS} beyond the password sign-in's own writes (POST /auth/sso/token's): ${worst <= SSO_CALLBACK_ROUND_TRIPS ? 'OK' : 'OVER'}`;
}

/** The DNS stand-in, and the settings the stack starts with so the product asks it and reaches the local IdP. */
export async function ssoBenchStandIns(): Promise<{ dns: DnsStandIn; env: Record<string, string> }> {
  const dns = await startDnsStandIn();
  return { dns, env: { SSO_ALLOWED_ADDRESSES: '127.0.0.1', SSO_DNS_SERVERS: dns.server } };
}

const handlers = new Map<string, ReturnType<typeof httpHandler>>();
async function invoke(
  group: 'auth' | 'projects',
  method: string,
  url: string,
  routeKey: string,
  init: { body?: unknown; token?: string; params?: Record<string, string>; cookie?: string } = {},
) {
  if (!handlers.has(group)) handlers.set(group, httpHandler(routeTable[group]));
  const event = apiEvent({
    method,
    url,
    routeKey,
    pathParameters: init.params,
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const res = (await handlers.get(group)!(event, lambdaContext('bench', 'bench'))) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode ?? 0,
    body: res.body ? JSON.parse(res.body) : undefined,
    location: String(res.headers?.location ?? ''),
    cookies: res.cookies ?? [],
  };
}
type Answer = Awaited<ReturnType<typeof invoke>>;

export async function ssoOperationBudgets(
  calls: ReturnType<typeof countCalls>,
  dns: DnsStandIn,
): Promise<OperationRow[]> {
  const site = config().API_BASE_URL.replace(/\/$/, '');
  const idp = await startLocalIdp({ redirectUris: [`${site}/auth/sso/callback`], users: {} });
  try {
    return await measureAll(calls, dns, idp, site);
  } finally {
    await idp.stop();
  }
}

async function measureAll(calls: ReturnType<typeof countCalls>, dns: DnsStandIn, idp: LocalIdp, site: string) {
  const rows: OperationRow[] = [];
  const expect = (res: Answer, status: number, what: string) => {
    if (res.status !== status)
      throw new Error(`${what} answered ${res.status}, not ${status}: ${JSON.stringify(res.body)}`);
    return res;
  };
  const measure = async (operation: string, needs: string[][], status: number, fn: () => Promise<Answer>) => {
    calls.reset();
    const res = expect(await fn(), status, operation);
    const [count, roundTrips] = [calls.total(), calls.roundTrips()];
    const [neededCalls, neededRoundTrips] = [needs.flat().length, needs.length];
    const why = [
      count > 1.2 * neededCalls ? `${count} calls > 1.2 x ${neededCalls}` : '',
      roundTrips > neededRoundTrips ? `${roundTrips} round trips > ${neededRoundTrips}` : '',
      operation.startsWith('GET /auth/sso/callback') && roundTrips > SSO_CALLBACK_ROUND_TRIPS
        ? `the callback's ${roundTrips} round trips > ${SSO_CALLBACK_ROUND_TRIPS}`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    rows.push({
      operation,
      calls: count,
      roundTrips,
      neededCalls,
      neededRoundTrips,
      byCommand: calls.byCommand(),
      ok: !why,
      ...(why ? { why } : {}),
    });
    return res;
  };

  // A Business owner's project, its connection to the local IdP, its domain verified through the DNS stand-in.
  const owner = `bench-sso-owner-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  await invoke('auth', 'POST', '/auth/register', 'POST /auth/register', { body: { email: owner, password } });
  const login = await invoke('auth', 'POST', '/auth/login', 'POST /auth/login', { body: { email: owner, password } });
  const token = login.body.access_token as string;
  await setPlan(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub, 'Business');
  const project = expect(
    await invoke('projects', 'POST', '/projects', 'POST /projects', { token, body: { name: 'bench-sso' } }),
    201,
    'POST /projects',
  ).body.id as string;
  const domain = `corp-${randomBytes(4).toString('hex')}.test`;
  const put = expect(
    await invoke('projects', 'PUT', `/projects/${project}/sso`, 'PUT /projects/{project_id}/sso', {
      token,
      params: { project_id: project },
      body: {
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        domains: [domain],
        required: false,
        jit_role: null,
      },
    }),
    200,
    'PUT /projects/{id}/sso',
  );
  dns.set(put.body.domains[0].txt_name, [put.body.domains[0].txt_value]);
  expect(
    await invoke(
      'projects',
      'POST',
      `/projects/${project}/sso/domains/${domain}/verify`,
      'POST /projects/{project_id}/sso/domains/{domain}/verify',
      { token, params: { project_id: project, domain } },
    ),
    200,
    'verify',
  );

  /** The browser's part of a sign-in: the start, the IdP; answers the callback's path and the binding cookie. */
  const atCallback = async (email: string, sub: string) => {
    idp.users.set(sub, { email, email_verified: true });
    const q = new URLSearchParams({ email, return_to: `${site}/sign-in` });
    const start = expect(
      await invoke('auth', 'GET', `/auth/sso/start?${q}`, 'GET /auth/sso/start'),
      302,
      'GET /auth/sso/start',
    );
    const back = await throughIdp(start.location, sub, `${site}/auth/sso/callback`);
    return { path: back.slice(site.length), cookie: start.cookies.map((c) => c.split(';')[0]).join('; ') };
  };
  const callback = (at: { path: string; cookie: string }) =>
    invoke('auth', 'GET', at.path, 'GET /auth/sso/callback', { cookie: at.cookie });
  const exchange = (res: Answer) =>
    invoke('auth', 'POST', '/auth/sso/token', 'POST /auth/sso/token', {
      body: { login_code: new URL(res.location).searchParams.get('login_code') },
    });

  // A warm container: the first sign-in (openid-client loaded, the IdP discovered, the signing key read) is not counted.
  expect(await exchange(await callback(await atCallback(`warm@${domain}`, 'warm'))), 200, 'a first SSO sign-in');

  const person = await atCallback(`new@${domain}`, 'new');
  const jit = await measure(
    'GET /auth/sso/callback (a new person, just in time)',
    [
      ['DeleteItem (the state, consumed)', 'BatchGetItem (connection, project)'],
      ["BatchGetItem (the identity, the e-mail's account)"],
      ['TransactWriteItems (login code; account, e-mail, identity, membership, audit, security log)'],
    ],
    302,
    () => callback(person),
  );
  await measure(
    'POST /auth/sso/token (first sign-in)',
    [
      ['DeleteItem (the login code, consumed)'],
      ['GetItem (the account)'],
      ["Query (the address's open invitations: a first sign-in only)"],
      ['TransactWriteItems (last login, security-log entry, session)'],
    ],
    200,
    () => exchange(jit),
  );
  const again = await atCallback(`new@${domain}`, 'new');
  const linked = await measure(
    'GET /auth/sso/callback (a linked identity)',
    [
      ['DeleteItem (the state, consumed)', 'BatchGetItem (connection, project)'],
      ["BatchGetItem (the identity, the e-mail's account)"],
      ['PutItem (the login code: a one-item TransactWriteItems)'],
    ],
    302,
    () => callback(again),
  );
  await measure(
    'POST /auth/sso/token',
    [
      ['DeleteItem (the login code, consumed)'],
      ['GetItem (the account)'],
      ['TransactWriteItems (last login, security-log entry, session)'],
    ],
    200,
    () => exchange(linked),
  );
  return rows;
}
