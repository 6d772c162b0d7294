import type * as z from 'zod';
import type { AppContext } from '#shared/context';
import type { Config } from '#shared/config';
import type { Principal } from '#auth/authenticate';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Who may call a route: anyone, any signed-in account, or platform staff. Every route declares one. */
export type AuthLevel = 'public' | 'user' | 'staff';

type Schema = z.ZodType;
/**
 * A request schema as a route declares it: the schema, or a function that builds it. A function is
 * called at the route's first request (or by the OpenAPI document), once: building zod schemas at
 * import is most of an HTTP function's cold start above the baseline (docs/cold-start.md).
 */
export type Lazy<S> = S | (() => S);

/**
 * A refusal a route can answer besides its success, 401 and 422: SPEC's Errors tables and what its
 * domain function throws (`#shared/errors` kinds, mapped in shared/http/errors.ts). The pipeline's own
 * answers (401, 422, 413 on bodies, the cross-site guard's 403/415 on writes, 403 on staff routes,
 * 404 on malformed path parameters, 409 on writes that lose a race) are derived in openapi.ts; a
 * route may still list them when its domain function refuses with them too.
 */
export type Refusal = 400 | 401 | 403 | 404 | 409 | 410 | 423 | 429;
type Out<S> = S extends Schema ? z.output<S> : undefined;

export interface RouteRequest<P, Q, B, A extends AuthLevel> {
  params: P;
  query: Q;
  body: B;
  /** The body as received, before JSON parsing (signature checks are made over these exact bytes). */
  rawBody: string;
  headers: Record<string, string | undefined>;
  cookies: Record<string, string>;
  sourceIp: string;
  userAgent: string;
  requestId: string;
  /** The signed-in caller; null only on public routes (which may still read it when a token is sent). */
  principal: A extends 'public' ? Principal | null : Principal;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  cookies?: string[];
}

export interface RouteDef<PS, QS, BS, A extends AuthLevel> {
  method: Method;
  path: string;
  auth: A;
  summary: string;
  params?: Lazy<PS>;
  query?: Lazy<QS>;
  body?: Lazy<BS>;
  /**
   * Response bodies by status, for the OpenAPI document only: a function that builds them, called by
   * the document alone, so that no request's function builds them at import.
   */
  responses?: () => Record<number, Schema | null>;
  /** The statuses the route refuses with besides 401/422 (see `Refusal`), for the OpenAPI document. */
  refusals?: readonly Refusal[];
  /** Besides the header and the cookie, the access token may come as the `token` query parameter (`presentedToken`). */
  tokenInQuery?: boolean;
  /** The body is multipart/form-data: `body` validates its fields and its file (`UploadedFile`), at most `maxFileBytes`. */
  multipart?: { maxFileBytes: number };
  /**
   * Every answer of the route, refusals included (422 before validation passes, 429, ...), takes at
   * least this many milliseconds from the request's arrival (no timing oracle); the pipeline pads it.
   */
  minDurationMs?: (config: Config) => number;
  handler: (req: RouteRequest<Out<PS>, Out<QS>, Out<BS>, A>, ctx: AppContext) => Promise<Reply>;
}

/** A request to a stored route, whose handler `route()` typed from its schemas before erasing them. */
// biome-ignore lint/suspicious/noExplicitAny: erased on purpose: a handler typed for its own params and body must fit one table
export type AnyRouteRequest = RouteRequest<any, any, any, any>;

/**
 * A route as stored in the table (schemas erased to their base type). Its request schemas are
 * functions that build the schema at their first call and return the same one after.
 */
export interface Route {
  method: Method;
  path: string;
  auth: AuthLevel;
  summary: string;
  params?: () => Schema;
  query?: () => Schema;
  body?: () => Schema;
  responses?: () => Record<number, Schema | null>;
  refusals?: readonly Refusal[];
  tokenInQuery?: boolean;
  multipart?: { maxFileBytes: number };
  minDurationMs?: (config: Config) => number;
  handler: (req: AnyRouteRequest, ctx: AppContext) => Promise<Reply>;
}

/** The schema a route declared, built at the first call and kept. */
function once(declared: Lazy<Schema> | undefined): (() => Schema) | undefined {
  if (declared === undefined) return undefined;
  if (typeof declared !== 'function') return () => declared;
  const make = declared as () => Schema;
  let schema: Schema | undefined;
  return () => (schema ??= make());
}

/** Declares a route with its schemas; the handler's request is typed from them. */
export function route<
  PS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
  A extends AuthLevel = AuthLevel,
>(def: RouteDef<PS, QS, BS, A>): Route {
  const { params, query, body, ...rest } = def as unknown as Route & {
    params?: Lazy<Schema>;
    query?: Lazy<Schema>;
    body?: Lazy<Schema>;
  };
  return {
    ...rest,
    ...(params && { params: once(params) }),
    ...(query && { query: once(query) }),
    ...(body && { body: once(body) }),
  } as Route;
}

export const ok = (body: unknown, extra: Omit<Reply, 'status' | 'body'> = {}): Reply => ({
  status: 200,
  body,
  ...extra,
});
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (extra: Omit<Reply, 'status' | 'body'> = {}): Reply => ({ status: 204, ...extra });
