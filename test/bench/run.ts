import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { startLocalStack } from '../../infra/local/stack';
import { apiEvent, lambdaContext } from '../../infra/local/api-event';
import { routeTable } from '../../functions/route-table';
import { httpHandler } from '../../shared/http/pipeline';
import { ddb } from '../../shared/clients';
import { keys } from '../../shared/db/keys';
import { countCalls, fmt, percentile, timePair } from './measure';

/**
 * `npm run bench`: handler latency against the raw DynamoDB calls the handler needs, on the same
 * DynamoDB Local, as ratios from one run, plus DynamoDB round trips per request.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const stack = await startLocalStack({ inMemory: true, withoutS3: true, withoutHttp: true, env: { TABLE_NAME: 'bench', LOG_LEVEL: 'error', LOCAL_DATA_DIR: '.bench' } });
const TableName = stack.config.TABLE_NAME;
const auth = httpHandler(routeTable.auth);
const calls = countCalls(ddb());

async function invoke(handler: ReturnType<typeof httpHandler>, method: string, url: string, routeKey: string, init: { body?: unknown; token?: string; params?: Record<string, string> } = {}) {
  const event = apiEvent({
    method, url, routeKey, pathParameters: init.params,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const res = (await handler(event, lambdaContext('bench', 'bench'))) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

interface Row { name: string; handlerP50: number; handlerP99: number; rawP50: number; callsPerRequest: number; budget: string }
const rows: Row[] = [];

// GET /auth/me: token verification, then one BatchGet (account + session).
{
  const email = 'bench@example.com';
  await invoke(auth, 'POST', '/auth/register', 'POST /auth/register', { body: { email, password: 'correct horse battery' } });
  const login = await invoke(auth, 'POST', '/auth/login', 'POST /auth/login', { body: { email, password: 'correct horse battery' } });
  const token = login.body.access_token as string;
  const [, payload] = token.split('.');
  const { sub, sid } = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const me = async () => {
    const r = await invoke(auth, 'GET', '/auth/me', 'GET /auth/me', { token });
    if (r.status !== 200) throw new Error(`GET /auth/me answered ${r.status}`);
  };
  const raw = () => ddb().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [keys.account(sub), keys.session(sub, sid)], ConsistentRead: true } } }));
  const [handlerSamples, rawSamples] = await timePair(me, raw, RUNS);
  calls.reset();
  await me();
  rows.push({ name: 'GET /auth/me', handlerP50: percentile(handlerSamples, 50), handlerP99: percentile(handlerSamples, 99), rawP50: percentile(rawSamples, 50), callsPerRequest: calls.total(), budget: '1 round trip, ratio ≤ 1.3' });
}

console.log(`\nBenchmarks (${RUNS} requests each, in-process handlers against DynamoDB Local)\n`);
console.log(['endpoint', 'handler p50', 'handler p99', 'raw DynamoDB p50', 'overhead ratio', 'DynamoDB calls/request', 'budget'].join(' | '));
for (const r of rows) {
  console.log([r.name, fmt(r.handlerP50), fmt(r.handlerP99), fmt(r.rawP50), (r.handlerP50 / r.rawP50).toFixed(2), String(r.callsPerRequest), r.budget].join(' | '));
}
await stack.stop();
