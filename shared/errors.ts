/**
 * Why the domain refuses something, in its own words: a kind and the SPEC's `detail`. The HTTP
 * pipeline maps each kind to its status in one place (shared/http/errors.ts); domain code never
 * knows a status code. One constructor per kind keeps refusal bodies byte-identical.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'unsupported_media_type'
  | 'locked'
  | 'rate_limited'
  | 'unprocessable';

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly detail: unknown;
  /** Fields sent beside `detail` (e.g. `locked_until`). */
  readonly extra: Record<string, unknown>;
  /** For `rate_limited`, `locked` and a lost race's `conflict`: seconds until the caller may try again (the `Retry-After` header). */
  readonly retryAfterSeconds?: number;

  constructor(kind: ErrorKind, detail: unknown, extra: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(typeof detail === 'string' ? detail : kind);
    this.kind = kind;
    this.detail = detail;
    this.extra = extra;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const invalid = (detail: string) => new DomainError('invalid', detail);
export const unauthenticated = (detail: string) => new DomainError('unauthenticated', detail);
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
export const notFound = (detail: string) => new DomainError('not_found', detail);
/** 409; with `retryAfterSeconds` (a lost race: #db/transact's `concurrentChange`) one the same request may pass, so clients retry it. */
export const conflict = (detail: string, retryAfterSeconds?: number) =>
  new DomainError('conflict', detail, {}, retryAfterSeconds);
export const gone = (detail: string) => new DomainError('gone', detail);
export const unsupportedMediaType = (detail: string) => new DomainError('unsupported_media_type', detail);
/** 423 with `locked_until` in the body and, in `Retry-After`, the seconds until then. */
export const locked = (detail: string, lockedUntil: Date, now: Date) =>
  new DomainError(
    'locked',
    detail,
    { locked_until: lockedUntil.toISOString() },
    Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000)),
  );
const TOO_MANY_REQUESTS = 'Too many requests';
/** 429 with Retry-After; `detail` says which limit when the generic words would leave the caller guessing. */
export const rateLimited = (retryAfterSeconds: number, detail: string = TOO_MANY_REQUESTS) =>
  new DomainError('rate_limited', detail, {}, retryAfterSeconds);

/** A field-level validation problem, as SPEC's 422 body lists them. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
export const unprocessable = (issues: ValidationIssue[]) => new DomainError('unprocessable', issues);

/** True when `err` is a refusal of this kind (e.g. a lookup that may miss). */
export const isRefusal = (err: unknown, kind: ErrorKind): err is DomainError =>
  err instanceof DomainError && err.kind === kind;
