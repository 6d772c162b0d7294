import { EVENT_TYPES } from '#shared/events';

/** The webhooks in the OpenAPI document: the tag's text on verifying a delivery, the delivery itself, and the event envelope's schema. */

/**
 * How a subscriber checks a delivery: the webhooks tag's description on the reference page (the README's
 * "Verifying webhook signatures" has the same with a runnable snippet). The truth is `signatureHeaders`
 * in shared/domain/webhooks/signed-post.ts; test/unit/openapi.test.ts holds the declared headers to the ones it sends.
 */
export const WEBHOOKS_TAG = [
  'Webhook registrations and their deliveries.',
  '',
  'Each event is POSTed as JSON (the `event` webhook below) to every enabled webhook of the project that subscribes to its type. Verifying a delivery:',
  '',
  "- `X-Service-Signature: sha256=<hex>`: the lowercase hex HMAC-SHA-256 of the **raw request body** (the bytes received, before any JSON parsing), keyed with the webhook's **whole signing secret string** as shown when it was created or rotated, `whsec_` prefix included (its UTF-8 bytes; the secret is not base64-decoded for this header). Compare in constant time (Node: `crypto.timingSafeEqual`).",
  '- `X-Service-Signature-Previous: sha256=<hex>`: during the 24 hours after `POST /projects/{project_id}/webhooks/{webhook_id}/rotate-secret`, the same HMAC keyed with the previous secret; accept a delivery when your secret matches either header, so a receiver still holding the previous secret keeps working until it is updated.',
  '- Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event id; the same on every retry and redelivery: use it to drop duplicates), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`: space-separated `v1,<base64>` entries, the HMAC-SHA-256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded part of the secret after `whsec_` (one entry per signing secret during a rotation). It covers the timestamp, so a receiver can refuse replays (tolerance: 5 minutes); any Standard Webhooks library verifies it with the `whsec_` secret.',
  '',
  'Answer 2xx within 15 seconds to acknowledge. Any other answer, or none, is retried on a schedule over about three days (a `Retry-After` is honoured); `410 Gone` disables the webhook at once, as do five days of failures. Redirects are not followed.',
].join('\n');

/** The one delivery every webhook receives, as an OpenAPI 3.1 `webhooks` entry (the service is the caller, the subscriber the server). */
export const WEBHOOKS = {
  event: {
    post: {
      tags: ['webhooks'],
      summary: 'An event delivered to a webhook',
      operationId: 'webhookEvent',
      description:
        "The service POSTs each event to the webhook's URL, signed (see the webhooks tag). The body is the event envelope; the same event is sent with the same `webhook-id` and the same body on every retry and redelivery.",
      security: [],
      parameters: [
        {
          name: 'X-Service-Signature',
          in: 'header',
          required: true,
          description:
            '`sha256=` + lowercase hex HMAC-SHA-256 of the raw body, keyed with the whole signing secret string (`whsec_…`)',
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
        {
          name: 'X-Service-Signature-Previous',
          in: 'header',
          required: false,
          description: 'Only during the 24 hours after a secret rotation: the same HMAC keyed with the previous secret',
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'Standard Webhooks: the event id (the same on every attempt)',
          schema: { type: 'string' },
        },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Standard Webhooks: Unix seconds of this attempt',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description:
            'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, keyed with the base64-decoded secret after `whsec_`; one entry per signing secret',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } },
      },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery' },
        '410': { description: 'Gone: the webhook is disabled at once, nothing more is sent to it' },
        default: {
          description: 'Anything else (or no answer within 15 seconds) is a failed attempt, retried on the schedule',
        },
      },
    },
  },
} as const;

export const WEBHOOK_SCHEMAS = {
  WebhookEvent: {
    type: 'object',
    description: 'The event envelope (SPEC "Events")',
    required: ['id', 'type', 'timestamp', 'data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: 'The event id (also the `webhook-id` header)' },
      type: {
        type: 'string',
        enum: [...EVENT_TYPES, 'ping'],
        description:
          '`ping` only from `POST /projects/{project_id}/webhooks/{webhook_id}/test` (data: `webhook_id`, `project_id`)',
      },
      timestamp: { type: 'string', format: 'date-time', description: 'When the change happened (ISO 8601)' },
      data: {
        type: 'object',
        description: "The event's data; for `service.created`: `service_id`, `name`, `project_id`, `environment_id`",
        additionalProperties: true,
      },
    },
  },
} as const;
