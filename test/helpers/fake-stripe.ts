import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small fake of Stripe's HTTP API on 127.0.0.1 (random port) for the Stripe adapter's tests: it
 * answers `POST /v1/customers`, `POST /v1/checkout/sessions` and `POST /v1/billing_portal/sessions` with plausible objects,
 * records every request (form body decoded into nested objects, as Stripe reads `a[b][0][c]=…`), and
 * replays the stored answer for a repeated Idempotency-Key, as Stripe does.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  stripeVersion: string | undefined;
  /** The form body decoded: nested objects, arrays for numeric indices, every leaf a string. */
  body: Record<string, any>;
}

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`, the adapter's `apiBase`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Checkout sessions made, by id (a replayed idempotency key makes none). */
  readonly sessions: Map<string, Record<string, any>>;
  /** Customers made, by id (a replayed idempotency key makes none). */
  readonly customers: Map<string, Record<string, any>>;
  /** The next `count` requests fail with `status` before anything is made (to exercise the client's retries). */
  failNext(count: number, status?: number): void;
  reset(): void;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, Record<string, any>>();
  const customers = new Map<string, Record<string, any>>();
  const replays = new Map<string, { path: string; rawBody: string; answer: Answer }>();
  let failures = { count: 0, status: 500 };

  const server = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const idempotencyKey = header(req, 'idempotency-key');
    const authorization = header(req, 'authorization');
    requests.push({ method: req.method ?? '', path, idempotencyKey, authorization, stripeVersion: header(req, 'stripe-version'), body: decodeForm(rawBody) });

    if (failures.count > 0) {
      failures.count -= 1;
      return send(res, { status: failures.status, body: stripeError('api_error', 'Simulated failure') });
    }
    if (!authorization?.startsWith('Bearer sk_')) return send(res, { status: 401, body: stripeError('invalid_request_error', 'Invalid API Key provided') });

    if (req.method === 'POST' && idempotencyKey) {
      const earlier = replays.get(idempotencyKey);
      if (earlier) {
        if (earlier.path !== path || earlier.rawBody !== rawBody) {
          return send(res, { status: 400, body: stripeError('idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.') });
        }
        return send(res, earlier.answer, { 'idempotent-replayed': 'true' });
      }
    }
    const answer = route(req.method ?? '', path, decodeForm(rawBody), sessions, customers);
    if (req.method === 'POST' && idempotencyKey && answer.status < 500) replays.set(idempotencyKey, { path, rawBody, answer });
    send(res, answer);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sessions,
    customers,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    reset() {
      requests.length = 0;
      sessions.clear();
      customers.clear();
      replays.clear();
      failures = { count: 0, status: 500 };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Subscriptions the fake knows: `sub_live…` ids are active until cancelled; any other id is unknown. */
const cancelled = new Set<string>();

function route(method: string, path: string, body: Record<string, any>, sessions: Map<string, Record<string, any>>, customers: Map<string, Record<string, any>>): Answer {
  const created = Math.floor(Date.now() / 1000);
  const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
  if (method === 'GET' && subscription?.startsWith('sub_live')) {
    return { status: 200, body: { id: subscription, object: 'subscription', status: 'active', items: { object: 'list', data: [{ id: `si_${subscription}`, object: 'subscription_item', price: { id: 'price_old', product: 'prod_old' } }] } } };
  }
  if (method === 'POST' && subscription?.startsWith('sub_live')) {
    return { status: 200, body: { id: subscription, object: 'subscription', status: 'active', items: { object: 'list', data: body.items ?? [] } } };
  }
  if (method === 'POST' && path === '/v1/customers') {
    const customer = { id: `cus_${token(14)}`, object: 'customer', created, email: body.email ?? null, livemode: false, metadata: body.metadata ?? {} };
    customers.set(customer.id, customer);
    return { status: 200, body: customer };
  }
  if (method === 'POST' && path === '/v1/products') return { status: 200, body: { id: `prod_${token(14)}`, object: 'product', name: body.name } };
  if (method === 'DELETE' && subscription) {
    if (!subscription.startsWith('sub_live')) return { status: 404, body: stripeError('invalid_request_error', `No such subscription: '${subscription}'`, 'id', 'resource_missing') };
    if (cancelled.has(subscription)) return { status: 400, body: stripeError('invalid_request_error', 'This subscription has already been canceled.') };
    cancelled.add(subscription);
    return { status: 200, body: { id: subscription, object: 'subscription', status: 'canceled' } };
  }
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    if (!body.mode) return { status: 400, body: stripeError('invalid_request_error', 'Missing required param: mode.', 'mode') };
    const id = `cs_test_${token(24)}`;
    const items: any[] = body.line_items ?? [];
    const amount = items.reduce((sum, item) => sum + Number(item.price_data?.unit_amount ?? 0) * Number(item.quantity ?? 1), 0);
    const session = {
      id,
      object: 'checkout.session',
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: body.cancel_url ?? null,
      client_reference_id: body.client_reference_id ?? null,
      created,
      currency: items[0]?.price_data?.currency ?? null,
      customer: body.customer ?? null,
      customer_email: body.customer_email ?? null,
      expires_at: created + 24 * 3600,
      livemode: false,
      metadata: body.metadata ?? {},
      mode: body.mode,
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: body.success_url ?? null,
      url: `https://checkout.stripe.com/c/pay/${id}`,
    };
    sessions.set(id, session);
    return { status: 200, body: session };
  }
  if (method === 'POST' && path === '/v1/billing_portal/sessions') {
    if (!body.customer) return { status: 400, body: stripeError('invalid_request_error', 'Missing required param: customer.', 'customer') };
    const id = `bps_${token(24)}`;
    return {
      status: 200,
      body: { id, object: 'billing_portal.session', created, customer: body.customer, livemode: false, return_url: body.return_url ?? null, url: `https://billing.stripe.com/p/session/test_${id}` },
    };
  }
  return { status: 404, body: stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
}

const token = (length: number) => randomBytes(length).toString('base64url').slice(0, length);

const stripeError = (type: string, message: string, param?: string, code?: string) => ({ error: { type, message, ...(param ? { param } : {}), ...(code ? { code } : {}) } });

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, { status, body }: Answer, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': `req_${token(14)}`, ...headers });
  res.end(text);
}

/** `a[b][0][c]=x&a[b][1][c]=y` → `{ a: { b: [{ c: 'x' }, { c: 'y' }] } }`. */
export function decodeForm(raw: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root;
    path.forEach((segment, i) => {
      if (i === path.length - 1) node[segment] = value;
      else node = node[segment] ??= {};
    });
  }
  return arrays(root);
}

/** Objects whose keys are exactly 0…n-1 become arrays. */
function arrays(node: any): any {
  if (node === null || typeof node !== 'object') return node;
  const keys = Object.keys(node);
  const converted = Object.fromEntries(keys.map((k) => [k, arrays(node[k])]));
  const indexed = keys.length > 0 && keys.every((k, i) => k === String(i));
  return indexed ? keys.map((k) => converted[k]) : converted;
}
