import type { Refusal } from './route.ts';

/**
 * The parts of the OpenAPI document every operation shares: the refusals as `components.responses`,
 * the error bodies as `components.schemas`, and which shared response answers each declared refusal.
 */

const errorBody = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });

/**
 * The refusals every operation may share, as `components.responses`: each with the `{detail}` body
 * (`Error`); 422 lists the failed fields (`ValidationError`), 423 adds `locked_until`, 429 says when
 * to try again (`Retry-After`).
 */
export const RESPONSES = {
  BadRequest: {
    description: 'Refused: a well-formed request the rules do not accept (see `detail`)',
    content: errorBody('Error'),
  },
  Unauthorized: {
    description: 'Missing, invalid or revoked access token, or credentials rejected',
    headers: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
    content: errorBody('Error'),
  },
  Forbidden: {
    description:
      "Refused after tenancy passed: a permission, plan or account-level refusal; on a cookie-authenticated write also 'Origin not allowed'",
    content: errorBody('Error'),
  },
  NotFound: {
    description: 'Not found: absent, or not visible to the caller (indistinguishable)',
    content: errorBody('Error'),
  },
  Conflict: {
    description:
      "Conflict with the current state (see `detail`); on any write also a lost race after the service's own retries ('The request conflicted with a concurrent change. Please retry.', with `Retry-After`); on a POST with an `Idempotency-Key` whose first request still runs, with `Retry-After`. A 409 with `Retry-After` did nothing and may pass when sent again after that many seconds; one without it is final.",
    headers: {
      'Retry-After': {
        description: 'Present when sending the same request again may pass: seconds to wait first',
        required: false,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: errorBody('Error'),
  },
  Gone: { description: 'Gone: the link has expired', content: errorBody('Error') },
  PayloadTooLarge: { description: 'Request body too large', content: errorBody('Error') },
  UnsupportedMediaType: {
    description: 'A cookie-authenticated write whose body is not JSON',
    content: errorBody('Error'),
  },
  ValidationFailed: {
    description: 'Request validation failed (before any lookup): every failed field',
    content: errorBody('ValidationError'),
  },
  Locked: {
    description: 'Locked: too many failed sign-ins; `locked_until` says until when',
    headers: {
      'Retry-After': {
        description: 'Seconds until the lock ends',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: errorBody('Locked'),
  },
  ServiceUnavailable: {
    description:
      'A service the API depends on kept failing (throttled or unavailable) after the retries; nothing was half-written. Retry after `Retry-After` (with the same `Idempotency-Key` for a POST).',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: errorBody('Error'),
  },
  TooManyRequests: {
    description: 'Rate limit exceeded',
    headers: {
      'Retry-After': {
        description: 'Seconds until the caller may try again',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
    content: errorBody('Error'),
  },
} as const;

export const SCHEMAS = {
  Error: {
    type: 'object',
    description: 'A refusal',
    required: ['detail'],
    properties: { detail: { type: 'string', description: 'Why the request was refused' } },
  },
  ValidationIssue: {
    type: 'object',
    required: ['loc', 'msg', 'type'],
    properties: {
      loc: {
        type: 'array',
        description: 'Where: the request part (`path`, `query`, `body`), then the field path',
        items: { type: ['string', 'integer'] },
      },
      msg: { type: 'string' },
      type: { type: 'string', description: '`missing` for an absent required value, else the failed check' },
    },
  },
  ValidationError: {
    type: 'object',
    required: ['detail'],
    properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } } },
  },
  Locked: {
    type: 'object',
    required: ['detail', 'locked_until'],
    properties: { detail: { type: 'string' }, locked_until: { type: 'string', format: 'date-time' } },
  },
} as const;

export const REFUSAL: Record<Refusal, keyof typeof RESPONSES> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  423: 'Locked',
  429: 'TooManyRequests',
};
