import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '../template.ts';
import { stripeApi } from './stripe-api.ts';
import { answer, decodeForm, header, now, readBody, stripeError, token, type Answer } from './stripe-http.ts';
import { type CheckoutGiven, hostedPages } from './stripe-pages.ts';
import { outlastClientIdle } from '../../local/keep-alive.ts';

export { STRIPE_PAGES } from './stripe-pages.ts';

/**
 * Stripe's HTTP API as start:deployed serves it (and as the Stripe adapter's tests use it), on
 * 127.0.0.1 (random port): `POST /v1/customers`, `/v1/checkout/sessions`, `/v1/billing_portal/sessions`,
 * `/v1/products`, and a subscription's read, update and cancel, answered with plausible objects; every
 * request recorded (form body decoded into nested objects, as Stripe reads `a[b][0][c]=…`), and the
 * stored answer replayed for a repeated Idempotency-Key, as Stripe does.
 *
 * With `pages` and `webhook` (start:deployed), it is also Stripe's hosted side: a checkout session's
 * and a portal session's `url` are pages on the product's own origin (`<site>/_stripe/…`, served by
 * the site through `page`), where a person pays (or cancels); each sends the signed event Stripe sends
 * (`checkout.session.completed`, `customer.subscription.deleted`) to the payment webhook route, so it
 * runs through the deployed functions exactly as in the cloud. A cancel through the API sends its event too.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  stripeVersion: string | undefined;
  /** The form body decoded: nested objects, arrays for numeric indices, every leaf a string. */
  body: Json;
}

export interface FakeStripeOptions {
  /** The only secret key accepted (any `sk_…` when not given). */
  secretKey?: string;
  /** Where the hosted pages are (`http://localhost:3000/_stripe`): a session's `url` names them (Stripe's own hosts, never served, when not given). */
  pages?: string;
  /** Where the events go (the payment webhook route) and the secret they are signed with; no event is sent when not given. */
  webhook?: { url: string; secret: string };
  log?: (line: string) => void;
}

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`, the adapter's `apiBase`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Checkout sessions made, by id (a replayed idempotency key makes none). */
  readonly sessions: Map<string, Json>;
  /** Customers made, by id (a replayed idempotency key makes none). */
  readonly customers: Map<string, Json>;
  /** Subscriptions a paid checkout made, by id. */
  readonly subscriptions: Map<string, Json>;
  /** The events sent to the webhook, with the status it answered. */
  readonly events: { event: Json; status: number }[];
  /** The next `count` requests fail with `status` before anything is made (to exercise the client's retries). */
  failNext(count: number, status?: number): void;
  /** A request for a hosted page (under STRIPE_PAGES) answered; false for any other path. */
  page(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  reset(): void;
  close(): Promise<void>;
}

type Obj = Json;

/** The API version an event says it is rendered in when its session named none (the adapter's SDK sends its own). */
const DEFAULT_API_VERSION = '2026-01-28';

export async function startFakeStripe(opts: FakeStripeOptions = {}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, Obj>();
  const customers = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const portals = new Map<string, Obj>();
  /** A checkout session's line items, subscription data and API version, by session id. */
  const made_ = new Map<string, CheckoutGiven>();
  const events: { event: Obj; status: number }[] = [];
  const replays = new Map<string, { path: string; rawBody: string; answer: Answer }>();
  /** `sub_live…` ids (the adapter's tests) are active until cancelled; any other id not made here is unknown. */
  const cancelled = new Set<string>();
  let failures = { count: 0, status: 500 };
  const log = opts.log ?? (() => {});
  const hosted = (kind: 'checkout' | 'portal', id: string, stripeHost: string) =>
    opts.pages ? `${opts.pages.replace(/\/$/, '')}/${kind}/${id}` : `${stripeHost}/${id}`;

  /** Signs `event` as Stripe does (Stripe-Signature, with the package's own signer) and POSTs it to the webhook; the status it answered. */
  async function send(event: Obj): Promise<number> {
    if (!opts.webhook) return 0;
    const payload = JSON.stringify(event);
    const { default: Stripe } = await import('stripe');
    const signature = new Stripe(opts.secretKey ?? 'sk_test_unused').webhooks.generateTestHeaderString({
      payload,
      secret: opts.webhook.secret,
    });
    let status: number;
    try {
      const res = await fetch(opts.webhook.url, {
        method: 'POST',
        body: payload,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signature,
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
      });
      await res.arrayBuffer();
      status = res.status;
    } catch (err) {
      log(`[Stripe] ${event.type} ${event.id} not delivered: ${(err as Error).message}`);
      status = 0;
    }
    events.push({ event, status });
    log(`[Stripe] ${event.type} ${event.id} → ${status}`);
    return status;
  }
  const eventOf = (type: string, object: Obj, apiVersion?: string): Obj => ({
    id: `evt_${token(24)}`,
    object: 'event',
    api_version: apiVersion ?? DEFAULT_API_VERSION,
    created: now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });

  const route = stripeApi({
    sessions,
    made_,
    subscriptions,
    portals,
    cancelled,
    hosted,
    customer,
    send,
    eventOf,
  });

  function customer(email: string | null, metadata: Obj): Obj {
    const c = { id: `cus_${token(14)}`, object: 'customer', created: now(), email, livemode: false, metadata };
    customers.set(c.id, c);
    return c;
  }

  const page = hostedPages({
    sessions,
    made_,
    customers,
    subscriptions,
    portals,
    webhook: Boolean(opts.webhook),
    customer,
    send,
    eventOf,
  });

  const server = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const idempotencyKey = header(req, 'idempotency-key');
    const authorization = header(req, 'authorization');
    const stripeVersion = header(req, 'stripe-version');
    requests.push({
      method: req.method ?? '',
      path,
      idempotencyKey,
      authorization,
      stripeVersion,
      body: decodeForm(rawBody),
    });

    if (failures.count > 0) {
      failures.count -= 1;
      return answer(res, { status: failures.status, body: stripeError('api_error', 'Simulated failure') });
    }
    const keyOk = opts.secretKey
      ? authorization === `Bearer ${opts.secretKey}`
      : authorization?.startsWith('Bearer sk_');
    if (!keyOk)
      return answer(res, { status: 401, body: stripeError('invalid_request_error', 'Invalid API Key provided') });

    if (req.method === 'POST' && idempotencyKey) {
      const earlier = replays.get(idempotencyKey);
      if (earlier) {
        if (earlier.path !== path || earlier.rawBody !== rawBody) {
          return answer(res, {
            status: 400,
            body: stripeError(
              'idempotency_error',
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            ),
          });
        }
        return answer(res, earlier.answer, { 'idempotent-replayed': 'true' });
      }
    }
    const result = route(req.method ?? '', path, decodeForm(rawBody), stripeVersion);
    if (req.method === 'POST' && idempotencyKey && result.status < 500)
      replays.set(idempotencyKey, { path, rawBody, answer: result });
    answer(res, result);
  });

  outlastClientIdle(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sessions,
    customers,
    subscriptions,
    events,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    page,
    reset() {
      requests.length = 0;
      for (const m of [sessions, customers, subscriptions, portals, replays, made_, cancelled]) m.clear();
      events.length = 0;
      failures = { count: 0, status: 500 };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
