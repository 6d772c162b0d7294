import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  body: Record<string, any>;
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

/** The path under which the site serves the hosted pages (start:deployed's `pages`). */
export const STRIPE_PAGES = '/_stripe';

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`, the adapter's `apiBase`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Checkout sessions made, by id (a replayed idempotency key makes none). */
  readonly sessions: Map<string, Record<string, any>>;
  /** Customers made, by id (a replayed idempotency key makes none). */
  readonly customers: Map<string, Record<string, any>>;
  /** Subscriptions a paid checkout made, by id. */
  readonly subscriptions: Map<string, Record<string, any>>;
  /** The events sent to the webhook, with the status it answered. */
  readonly events: { event: Record<string, any>; status: number }[];
  /** The next `count` requests fail with `status` before anything is made (to exercise the client's retries). */
  failNext(count: number, status?: number): void;
  /** A request for a hosted page (under STRIPE_PAGES) answered; false for any other path. */
  page(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  reset(): void;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };
type Obj = Record<string, any>;

/** The API version an event says it is rendered in when its session named none (the adapter's SDK sends its own). */
const DEFAULT_API_VERSION = '2026-01-28';

export async function startFakeStripe(opts: FakeStripeOptions = {}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, Obj>();
  const customers = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const portals = new Map<string, Obj>();
  /** A checkout session's line items, subscription data and API version, by session id. */
  const made_ = new Map<string, { items: Obj[]; subscriptionData: Obj; apiVersion?: string }>();
  const events: { event: Obj; status: number }[] = [];
  const replays = new Map<string, { path: string; rawBody: string; answer: Answer }>();
  /** `sub_live…` ids (the adapter's tests) are active until cancelled; any other id not made here is unknown. */
  const cancelled = new Set<string>();
  let failures = { count: 0, status: 500 };
  const log = opts.log ?? (() => {});
  const hosted = (kind: 'checkout' | 'portal', id: string, stripeHost: string) => (opts.pages ? `${opts.pages.replace(/\/$/, '')}/${kind}/${id}` : `${stripeHost}/${id}`);

  /** Signs `event` as Stripe does (Stripe-Signature, with the package's own signer) and POSTs it to the webhook; the status it answered. */
  async function send(event: Obj): Promise<number> {
    if (!opts.webhook) return 0;
    const payload = JSON.stringify(event);
    const { default: Stripe } = await import('stripe');
    const signature = new Stripe(opts.secretKey ?? 'sk_test_unused').webhooks.generateTestHeaderString({ payload, secret: opts.webhook.secret });
    let status: number;
    try {
      const res = await fetch(opts.webhook.url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' } });
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
    id: `evt_${token(24)}`, object: 'event', api_version: apiVersion ?? DEFAULT_API_VERSION, created: now(), livemode: false, pending_webhooks: 1,
    request: { id: null, idempotency_key: null }, type, data: { object },
  });

  function route(method: string, path: string, body: Obj, stripeVersion: string | undefined): Answer {
    const created = now();
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    const made = subscription ? subscriptions.get(subscription) : undefined;
    if (made) {
      if (method === 'GET') return { status: 200, body: made };
      if (method === 'POST') {
        if (body.items) made.items = { object: 'list', data: (body.items as Obj[]).map((item) => ({ id: item.id ?? `si_${token(14)}`, object: 'subscription_item', price: { id: `price_${token(14)}`, ...item.price_data } })) };
        return { status: 200, body: made };
      }
      if (method === 'DELETE') {
        if (made.status === 'canceled') return { status: 400, body: stripeError('invalid_request_error', 'This subscription has already been canceled.') };
        made.status = 'canceled';
        made.canceled_at = created;
        const event = eventOf('customer.subscription.deleted', { ...made }, stripeVersion);
        setImmediate(() => void send(event));
        return { status: 200, body: made };
      }
    }
    if (method === 'GET' && subscription?.startsWith('sub_live')) {
      return { status: 200, body: { id: subscription, object: 'subscription', status: 'active', items: { object: 'list', data: [{ id: `si_${subscription}`, object: 'subscription_item', price: { id: 'price_old', product: 'prod_old' } }] } } };
    }
    if (method === 'POST' && subscription?.startsWith('sub_live')) {
      return { status: 200, body: { id: subscription, object: 'subscription', status: 'active', items: { object: 'list', data: body.items ?? [] } } };
    }
    if (method === 'POST' && path === '/v1/customers') return { status: 200, body: customer(body.email ?? null, body.metadata ?? {}) };
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
        url: hosted('checkout', id, 'https://checkout.stripe.com/c/pay'),
      };
      // Kept beside the session, not shown in it (as Stripe keeps them): what the subscription a payment makes is given.
      sessions.set(id, session);
      made_.set(id, { items, subscriptionData: body.subscription_data ?? {}, apiVersion: stripeVersion });
      return { status: 200, body: session };
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!body.customer) return { status: 400, body: stripeError('invalid_request_error', 'Missing required param: customer.', 'customer') };
      const id = `bps_${token(24)}`;
      const portal = { id, object: 'billing_portal.session', created, customer: body.customer, livemode: false, return_url: body.return_url ?? null, url: hosted('portal', `test_${id}`, 'https://billing.stripe.com/p/session') };
      portals.set(`test_${id}`, { ...portal, apiVersion: stripeVersion });
      return { status: 200, body: portal };
    }
    return { status: 404, body: stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
  }

  function customer(email: string | null, metadata: Obj): Obj {
    const c = { id: `cus_${token(14)}`, object: 'customer', created: now(), email, livemode: false, metadata };
    customers.set(c.id, c);
    return c;
  }

  /** The hosted checkout and portal pages: GET shows one, POST (its form) pays or cancels, sends the event, and goes back to the product. */
  async function page(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const m = new RegExp(`^${STRIPE_PAGES}/(checkout|portal)/([^/]+)$`).exec(path);
    if (!m) return false;
    const [, kind, id] = m;
    const post = req.method === 'POST';
    const form = post ? new URLSearchParams(await readBody(req)) : undefined;
    if (!post && req.method !== 'GET') return html(res, 405, 'Method not allowed', '<p>Use GET or POST.</p>');
    if (kind === 'checkout') {
      const session = sessions.get(id);
      const given = made_.get(id);
      if (!session || !given) return html(res, 404, 'Unknown checkout', '<p>This checkout session was not made here.</p>');
      const item = given.items[0]?.price_data ?? {};
      const price = `${(session.amount_total / 100).toFixed(2)} ${String(session.currency ?? '').toUpperCase()} / ${item.recurring?.interval ?? 'once'}`;
      const name = String(item.product_data?.name ?? 'Subscription');
      if (session.status !== 'open') return html(res, post ? 409 : 200, 'Paid', `<h1>Paid</h1><p>${esc(name)}: ${esc(price)}</p><p><a href="${esc(session.success_url ?? '/')}">Back</a></p>`);
      if (!post) {
        const billed = session.customer ? customers.get(session.customer)?.email ?? session.customer : session.customer_email;
        return html(res, 200, `Pay for ${name}`, `<h1>${esc(name)}</h1><p>${esc(price)}</p><p>Billed to ${esc(billed ?? '')}</p>
<form method="post"><button type="submit">Pay ${esc(price)}</button></form><p><a href="${esc(session.cancel_url ?? '/')}">Cancel</a></p>
<p><small>Stripe test mode (start:deployed's stand-in): nothing is charged.</small></p>`);
      }
      const payer = session.customer ?? customer(session.customer_email, {}).id;
      const sub = {
        id: `sub_${token(24)}`, object: 'subscription', status: 'active', customer: payer, created: now(), livemode: false, canceled_at: null,
        metadata: given.subscriptionData.metadata ?? {},
        items: { object: 'list', data: given.items.map((i) => ({ id: `si_${token(14)}`, object: 'subscription_item', quantity: Number(i.quantity ?? 1), price: { id: `price_${token(14)}`, ...i.price_data } })) },
      };
      subscriptions.set(sub.id, sub);
      Object.assign(session, { status: 'complete', payment_status: 'paid', customer: payer, subscription: sub.id });
      const status = await send(eventOf('checkout.session.completed', { ...session }, given.apiVersion));
      if (opts.webhook && (status < 200 || status > 299)) return html(res, 502, 'Not delivered', `<p>Paid, but the webhook answered ${status}.</p>`);
      return redirect(res, String(session.success_url ?? '/').replace('{CHECKOUT_SESSION_ID}', session.id));
    }
    const portal = portals.get(id);
    if (!portal) return html(res, 404, 'Unknown portal session', '<p>This portal session was not made here.</p>');
    const active = [...subscriptions.values()].filter((s) => s.customer === portal.customer && s.status === 'active');
    if (!post) {
      const list = active.map((s) => `<form method="post"><input type="hidden" name="subscription" value="${esc(s.id)}"><p>${esc(String(s.items.data[0]?.price?.product_data?.name ?? s.id))}</p><button type="submit">Cancel subscription</button></form>`).join('');
      return html(res, 200, 'Billing', `<h1>Billing</h1>${list || '<p>No active subscription.</p>'}<p><a href="${esc(portal.return_url ?? '/')}">Back</a></p>`);
    }
    const sub = active.find((s) => s.id === form!.get('subscription'));
    if (!sub) return html(res, 400, 'Nothing to cancel', '<p>No such active subscription.</p>');
    Object.assign(sub, { status: 'canceled', canceled_at: now() });
    const status = await send(eventOf('customer.subscription.deleted', { ...sub }, portal.apiVersion));
    if (opts.webhook && (status < 200 || status > 299)) return html(res, 502, 'Not delivered', `<p>Cancelled, but the webhook answered ${status}.</p>`);
    return redirect(res, portal.return_url ?? '/');
  }

  const server = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const idempotencyKey = header(req, 'idempotency-key');
    const authorization = header(req, 'authorization');
    const stripeVersion = header(req, 'stripe-version');
    requests.push({ method: req.method ?? '', path, idempotencyKey, authorization, stripeVersion, body: decodeForm(rawBody) });

    if (failures.count > 0) {
      failures.count -= 1;
      return answer(res, { status: failures.status, body: stripeError('api_error', 'Simulated failure') });
    }
    const keyOk = opts.secretKey ? authorization === `Bearer ${opts.secretKey}` : authorization?.startsWith('Bearer sk_');
    if (!keyOk) return answer(res, { status: 401, body: stripeError('invalid_request_error', 'Invalid API Key provided') });

    if (req.method === 'POST' && idempotencyKey) {
      const earlier = replays.get(idempotencyKey);
      if (earlier) {
        if (earlier.path !== path || earlier.rawBody !== rawBody) {
          return answer(res, { status: 400, body: stripeError('idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.') });
        }
        return answer(res, earlier.answer, { 'idempotent-replayed': 'true' });
      }
    }
    const result = route(req.method ?? '', path, decodeForm(rawBody), stripeVersion);
    if (req.method === 'POST' && idempotencyKey && result.status < 500) replays.set(idempotencyKey, { path, rawBody, answer: result });
    answer(res, result);
  });

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

const now = () => Math.floor(Date.now() / 1000);

const token = (length: number) => randomBytes(length).toString('base64url').replace(/[-_]/g, '').slice(0, length);

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

function answer(res: ServerResponse, { status, body }: Answer, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': `req_${token(14)}`, ...headers });
  res.end(text);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A hosted page: never cached, and a CSP that allows nothing but its inline style and forms to itself. */
function html(res: ServerResponse, status: number, title: string, body: string): true {
  const text = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>`
    + `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em}button{font-size:1em;padding:.5em 1.5em}</style></head><body>${body}</body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text),
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'", 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff',
  });
  res.end(text);
  return true;
}

function redirect(res: ServerResponse, location: string): true {
  res.writeHead(303, { location, 'cache-control': 'no-store', 'content-length': '0' }).end();
  return true;
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
