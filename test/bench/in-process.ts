import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiEvent, lambdaContext } from '../../infra/local/api-event.ts';
import { routeTable } from '../../functions/route-table.ts';
import { httpHandler } from '#http/pipeline';

const handlers = new Map<string, ReturnType<typeof httpHandler>>();

/**
 * A route called in this process through its group's handler, as API Gateway would (no HTTP server): the benches' way in.
 * Each group's handler is built once, as a warm Lambda's is, so a timed call does not time building it.
 */
export async function invoke(
  group: keyof typeof routeTable,
  method: string,
  url: string,
  routeKey: string,
  init: { body?: unknown; token?: string; params?: Record<string, string> } = {},
) {
  const event = apiEvent({
    method,
    url,
    routeKey,
    pathParameters: init.params,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!handlers.has(group)) handlers.set(group, httpHandler(routeTable[group]));
  const res = (await handlers.get(group)!(event, lambdaContext('bench', 'bench'))) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode,
    headers: res.headers ?? {},
    body: res.body?.startsWith('{') || res.body?.startsWith('[') ? JSON.parse(res.body) : res.body,
  };
}
