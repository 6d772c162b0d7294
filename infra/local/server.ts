import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaContext } from './api-event.ts';
import { allRoutes, FALLBACK_GROUP, routeTable, type RouteGroup } from '../../functions/route-table.ts';
import { httpHandler } from '#http/pipeline';
import { wholeApi } from '../../functions/docs/routes.ts';
import { withSecurityHeaders } from '#http/security';
import type { Clock } from '#shared/context';
import { config } from '#shared/config';
import { createRouter, routeKey } from '#http/router';
import type { Route } from '#http/route';
import { localPaymentPage } from './payments.ts';
import { attachLocalWebSockets, LOCAL_WS_PATH } from './websocket.ts';
import { webApp } from './web.ts';
import { readBody, requestEvent, send } from './http-io.ts';
import { outlastClientIdle } from './keep-alive.ts';

type Handler = ReturnType<typeof httpHandler>;

/** An answer the local server gives itself (API Gateway's own): the same headers as the pipeline's. */
const ownAnswer = (statusCode: number, detail: string) =>
  withSecurityHeaders(
    {
      statusCode,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify({ detail }),
    },
    false,
  );

/**
 * `npm start`'s terminal: one readable line per request, `12:03:04 POST /auth/login 200 63 ms` (path
 * without its query, which may carry a token), written when the answer is sent; not below LOG_LEVEL info.
 */
function logAccess(req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    if (['warn', 'error', 'silent'].includes(config().LOG_LEVEL)) return;
    const path = (req.url ?? '/').split('?')[0];
    const time = new Date().toTimeString().slice(0, 8);
    process.stdout.write(
      `${time} ${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)} ms\n`,
    );
  });
}

/**
 * The local stand-in for API Gateway: routes with the same table, then calls the same
 * middy handler the group's Lambda runs.
 */
export function createLocalServer(opts: { clock?: Clock; accessLog?: boolean } = {}): Server {
  const handlers = Object.fromEntries(
    Object.entries(routeTable).map(([g, routes]) => [
      g,
      httpHandler(routes as Route[], g === FALLBACK_GROUP ? { ...opts, wholeApi } : opts),
    ]),
  ) as Record<RouteGroup, Handler>;
  const entries = allRoutes();
  const groupOf = new Map(entries.map((e) => [e.route, e.group]));
  const router = createRouter(entries.map((e) => e.route));

  const server = createServer(async (req, res) => {
    if (opts.accessLog) logAccess(req, res);
    try {
      const body = await readBody(req);
      if (!body) return send(res, ownAnswer(413, 'Request body too large'));
      if (await localPaymentPage(req, res, opts.clock)) return;
      if (await webApp(req, res, (path) => router.methodsAt(path).length > 0 || path === LOCAL_WS_PATH)) return;
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      const match = router.match(req.method ?? 'GET', path);
      const group = match ? groupOf.get(match.route)! : FALLBACK_GROUP;
      const event = requestEvent(req, body, match ? routeKey(match.route) : undefined, match?.params ?? {});
      // As in Lambda, the invocation's own id is not API Gateway's request id.
      const result = (await handlers[group](
        event,
        lambdaContext(randomUUID(), group),
      )) as APIGatewayProxyStructuredResultV2;
      send(res, result);
    } catch (err) {
      send(res, ownAnswer(500, 'Internal Server Error'));
      console.error(err);
    }
  });
  outlastClientIdle(server);
  attachLocalWebSockets(server, opts.clock);
  return server;
}
