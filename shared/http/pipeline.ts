import { setTimeout as sleep } from 'node:timers/promises';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { appContext, bindRequestContext, type AppContext, type Clock } from '#shared/context';
import { isStaff } from '#shared/actor';
import { authenticate, presentedToken, type Principal } from '#auth/authenticate';
import { keyBodyRefusal, keyGrantRefusal } from '#auth/key-grant';
import { DomainError, forbidden, notFound } from '#shared/errors';
import { refusalReply } from './errors.ts';
import { parseCookies, ACCESS_COOKIE } from './cookies.ts';
import { parseQuery } from './query.ts';
import { createRouter, type Match, type Routable, type Router } from './router.ts';
import { jsonDecodeError, validateParts } from './validation.ts';
import { crossSiteGuard, securityHeadersOnEveryAnswer } from './security.ts';
import type { AnyRouteRequest, Reply, Route } from './route.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { toResult } from './result.ts';
import { errorFields, log } from '#shared/log';
import { latency, metric, type BusinessMetric } from '#shared/metrics';
import { invocation } from '#shared/observe';
import { currentScope } from '#shared/invocation';
import { config } from '#shared/config';
import { clientAddress } from './client-address.ts';
import { isOutage } from '#shared/outage';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
/** What the middlewares learn about a request, handed to the final step (middy passes only the event on). */
const state = new WeakMap<Event, { match: Match; request?: AnyRouteRequest; ctx?: AppContext }>();

/** A known path asked with a method none of its routes has: 405 with Allow (an HTTP matter, not a domain refusal). */
class MethodNotAllowed extends Error {
  readonly allow: string[];

  constructor(allow: string[]) {
    super('Method Not Allowed');
    this.allow = allow;
  }
}

function errorReply(err: unknown, requestId: string): Reply {
  if (err instanceof DomainError) return refusalReply(err);
  if (err instanceof MethodNotAllowed)
    return { status: 405, body: { detail: 'Method Not Allowed' }, headers: { allow: err.allow.join(', ') } };
  const status = (err as { statusCode?: number }).statusCode;
  if (status === 422) return errorReply(jsonDecodeError(), requestId); // middy's JSON parser
  if (status === 413) return { status: 413, body: { detail: 'Request body too large' } };
  if (isOutage(err)) {
    log.warn('a dependency kept failing', { request_id: requestId, ...errorFields(err) });
    return { status: 503, body: { detail: SERVICE_UNAVAILABLE }, headers: { 'retry-after': '1' } };
  }
  log.error('unhandled error', { request_id: requestId, ...errorFields(err) });
  return { status: 500, body: { detail: 'Internal Server Error' } };
}

export const SERVICE_UNAVAILABLE = 'The service is briefly unavailable. Please retry.';
/** The API Gateway request id (what the client's side and API Gateway's access log know the request by): the correlation id of every log line, and the request id of audit entries. */
const requestIdOf = (event: Event, context?: Context) =>
  event.requestContext?.requestId ?? context?.awsRequestId ?? '-';

/**
 * 0. Outermost: a route that declares `minDurationMs` answers no sooner than that after arrival,
 * whatever the answer — a 422 from the JSON parser (before the route is matched) or the schemas, a
 * 429, a success. Runs after the error responder has shaped a refusal.
 */
const minimumDuration = (router: Router): middy.MiddlewareObj<Event, Result> => {
  const arrived = new WeakMap<Event, number>();
  const routeOf = (event: Event) => {
    const known = state.get(event)?.match.route;
    if (known) return known;
    try {
      return router.match(event.requestContext.http.method, event.rawPath, event.routeKey, event.pathParameters)?.route;
    } catch {
      return undefined;
    }
  };
  const pad = async (request: middy.Request<Event, Result>) => {
    const min = routeOf(request.event)?.minDurationMs?.(config());
    const started = arrived.get(request.event);
    if (min && started !== undefined) await sleep(Math.max(0, min - (performance.now() - started)));
  };
  return {
    before: async (request) => {
      arrived.set(request.event, performance.now());
    },
    after: pad,
    onError: pad,
  };
};

/** 1. Every refusal becomes `{detail}` with its status; anything unexpected a logged 500. */
const errorResponder = (): middy.MiddlewareObj<Event, Result> => ({
  onError: async (request) => {
    request.response = toResult(errorReply(request.error, requestIdOf(request.event, request.context)));
  },
});

/** The body exactly as received (base64 undone), for routes that verify a signature over it. */
const rawBodies = new WeakMap<Event, Buffer>();

/** 2. JSON bodies are parsed whatever the content type says, except multipart uploads; malformed JSON is a 422. */
const jsonBody = (): middy.MiddlewareObj<Event, Result> => {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  return {
    before: async (request) => {
      const { body, headers, isBase64Encoded } = request.event;
      if (body) rawBodies.set(request.event, Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8'));
      if (!body || headers?.['content-type']?.startsWith('multipart/')) return;
      return parser.before!(request as never);
    },
  };
};

/**
 * 3. Route match; unknown routes are 404 Not Found. The function that answers what no route takes
 * (API Gateway's `$default`) knows the whole API (`wholeApi`): a known path asked with another
 * method is 405 Method Not Allowed with `Allow`.
 */
const matchRoute = (
  router: Router,
  wholeApi?: () => Promise<Router<Routable>>,
): middy.MiddlewareObj<Event, Result> => ({
  before: async (request) => {
    const { event } = request;
    const match = router.match(event.requestContext.http.method, event.rawPath, event.routeKey, event.pathParameters);
    if (!match) {
      const allow = wholeApi ? (await wholeApi()).methodsAt(event.rawPath) : [];
      throw allow.length ? new MethodNotAllowed(allow) : notFound('Not Found');
    }
    state.set(event, { match });
  },
});

/**
 * 4 and 5. Authentication first (unless the route is public): a caller without a usable token learns
 * nothing about a route's schemas, and gets the same 401 on every route. Then validation, before any
 * lookup of the request's own resources.
 */
const authenticateAndValidate = (clock?: Clock): middy.MiddlewareObj<Event, Result> => ({
  before: async (request) => {
    const { event } = request;
    const current = state.get(event)!;
    const { route, params } = current.match;
    const cookies = parseCookies(event.cookies, event.headers?.cookie);
    // One context per request, made before anything is read: its receivedAt is the sync cursor.
    const origin = {
      requestId: requestIdOf(event, request.context),
      sourceIp: clientAddress(event.headers, event.requestContext.http.sourceIp, config().ORIGIN_VERIFY_SECRET),
      userAgent: event.requestContext.http.userAgent ?? event.headers?.['user-agent'] ?? '',
    };
    const ctx = appContext({ clock, origin });
    current.ctx = ctx;
    let principal: Principal | null = null;
    const keyRoute = { method: route.method, path: route.path, staff: route.auth === 'staff' };
    if (route.auth !== 'public') {
      const query = route.tokenInQuery ? parseQuery(event.rawQueryString).token : undefined;
      principal = await authenticate(
        presentedToken(
          event.headers?.authorization,
          cookies[ACCESS_COOKIE],
          typeof query === 'string' ? query : undefined,
        ),
        ctx,
      );
      ctx.actor = principal;
      if (route.auth === 'staff' && !isStaff(principal.account)) {
        throw forbidden('Staff privileges required');
      }
      const keyRefusal = principal.key && keyGrantRefusal(keyRoute, principal.key);
      if (keyRefusal) throw forbidden(keyRefusal);
      // Read by the project access check (tenancy's loadAccess), which its callers reach without ctx.
      const scope = currentScope();
      if (scope) scope.key_projects = principal.key?.project_ids ?? null;
      bindRequestContext(ctx);
    }
    const raw = rawBodies.get(event) ?? Buffer.alloc(0);
    // A multipart route's schema validates its form fields and file, like any JSON body.
    // busboy is loaded only by the routes that take uploads (not at every function's cold start).
    const body = route.multipart
      ? await (await import('./multipart.ts')).parseMultipart(event.headers?.['content-type'], raw, route.multipart)
      : event.body;
    const [p, q, b] = validateParts([
      { part: 'path', schema: route.params?.(), value: params },
      { part: 'query', schema: route.query?.(), value: parseQuery(event.rawQueryString) },
      { part: 'body', schema: route.body?.(), value: body },
    ]);
    // A route a read key may POST to when its body only reads (a dry-run import) decides once the body is valid.
    const bodyRefusal = principal?.key && keyBodyRefusal(keyRoute, principal.key, b);
    if (bodyRefusal) throw forbidden(bodyRefusal);
    current.request = {
      params: p,
      query: q,
      body: b,
      rawBody: raw.toString('utf8'),
      headers: event.headers ?? {},
      cookies,
      ...origin,
      principal,
    };
  },
});

/** A route that authenticates its caller: its answers are never cached (Cache-Control: no-store). */
const isAuthenticatedRoute = (event: Event) => {
  const route = state.get(event)?.match.route;
  return !!route && route.auth !== 'public';
};

/**
 * Business metrics read off a route's outcome (one place: the domain does not count these itself):
 * route key → the metric of a success (2xx) and of a refusal (4xx).
 */
const OUTCOME_METRICS: Record<string, { ok?: BusinessMetric; refused?: BusinessMetric }> = {
  'POST /auth/login': { ok: 'SignInSucceeded', refused: 'SignInRefused' },
  'POST /services': { ok: 'ServicesCreated' },
};

/**
 * Per request, in the handler's invocation scope: count, latency, 4xx and 5xx (0 or 1, so the average is
 * the rate), dimension `route` (method and path template, `unmatched` when no route matched), the
 * outcome's business metric, and one debug line with route, status and duration (never bodies or headers).
 */
function countRequest(routeKey: string, status: number, ms: number): void {
  metric('Requests');
  latency('Latency', ms);
  metric('Status4xx', status >= 400 && status < 500 ? 1 : 0);
  metric('Status5xx', status >= 500 ? 1 : 0);
  const outcome = OUTCOME_METRICS[routeKey];
  const business = status < 300 ? outcome?.ok : status < 500 ? outcome?.refused : undefined;
  if (business) metric(business);
  log.debug('request served', { route: routeKey, status, duration_ms: Math.round(ms) });
}

/** The Lambda handler of one route group: the middy chain in DESIGN.md's order over that group's routes (tests may give the clock). */
export function httpHandler(routes: Route[], opts: { clock?: Clock; wholeApi?: () => Promise<Router<Routable>> } = {}) {
  const router = createRouter(routes);
  const chain = middy<Event, Result, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(minimumDuration(router))
    .use(securityHeadersOnEveryAnswer(isAuthenticatedRoute))
    .use(errorResponder())
    .use(crossSiteGuard())
    .use(jsonBody())
    .use(matchRoute(router, opts.wholeApi))
    .use(authenticateAndValidate(opts.clock))
    .handler(async (event, context) => {
      const { match, request, ctx } = state.get(event)!;
      const answer = async () => toResult(await match.route.handler(request!, ctx!));
      const key = idempotencyKeyOf(match.route, request!);
      if (!key) return answer();
      const { once } = await import('./idempotency.ts'); // loaded only by requests that carry a key
      const fingerprint = {
        method: match.route.method,
        path: event.rawPath,
        query: event.rawQueryString ?? '',
        body: request!.body,
      };
      return once({ accountId: request!.principal!.account.id, key }, fingerprint, context, answer);
    });
  const routeKeyOf = (event: Event) => {
    let route = state.get(event)?.match.route;
    try {
      route ??= router.match(
        event.requestContext.http.method,
        event.rawPath,
        event.routeKey,
        event.pathParameters,
      )?.route;
    } catch {
      // an unreadable path: no route
    }
    return route ? `${route.method} ${route.path}` : 'unmatched';
  };
  // Each request is one invocation: its log lines carry the API Gateway request id, its metrics are flushed once.
  return (event: Event, context: Context): Promise<Result> =>
    invocation({ correlationId: requestIdOf(event, context) }, async (scope) => {
      const started = performance.now();
      log.debug('request received', { method: event.requestContext?.http?.method, path: event.rawPath });
      let status = 500;
      try {
        const result = await chain(event, context);
        status = result.statusCode ?? 200;
        return result;
      } finally {
        const key = routeKeyOf(event);
        scope.dimensions.route = key;
        countRequest(key, status, performance.now() - started);
      }
    });
}
