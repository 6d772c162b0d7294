import type { Json } from '../template.ts';
import { now, stripeError, token, type Answer } from './stripe-http.ts';
import type { CheckoutGiven } from './stripe-pages.ts';

type Obj = Json;

/** The stand-in's state and the steps its API shares with the hosted pages. */
export interface ApiState {
  sessions: Map<string, Json>;
  /** What each checkout session was given, by session id. */
  made_: Map<string, CheckoutGiven>;
  subscriptions: Map<string, Json>;
  portals: Map<string, Json>;
  /** `sub_live…` ids (the adapter's tests) cancelled here: they are active until then. */
  cancelled: Set<string>;
  /** A session's `url`: a hosted page on the product's origin, or Stripe's own host. */
  hosted(kind: 'checkout' | 'portal', id: string, stripeHost: string): string;
  customer(email: string | null, metadata: Json): Json;
  send(event: Json): Promise<number>;
  eventOf(type: string, object: Json, apiVersion?: string): Json;
}

/**
 * Stripe's API routes: customers, products, checkout and portal sessions, a subscription's read, update
 * and cancel (a cancel sends `customer.subscription.deleted`), anything else Stripe's 404.
 */
export function stripeApi({
  sessions,
  made_,
  subscriptions,
  portals,
  cancelled,
  hosted,
  customer,
  send,
  eventOf,
}: ApiState) {
  return route;

  function route(method: string, path: string, body: Obj, stripeVersion: string | undefined): Answer {
    const created = now();
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    const made = subscription ? subscriptions.get(subscription) : undefined;
    if (made) {
      if (method === 'GET') return { status: 200, body: made };
      if (method === 'POST') {
        if (body.items)
          made.items = {
            object: 'list',
            data: (body.items as Obj[]).map((item) => ({
              id: item.id ?? `si_${token(14)}`,
              object: 'subscription_item',
              price: { id: `price_${token(14)}`, ...item.price_data },
            })),
          };
        return { status: 200, body: made };
      }
      if (method === 'DELETE') {
        if (made.status === 'canceled')
          return {
            status: 400,
            body: stripeError('invalid_request_error', 'This subscription has already been canceled.'),
          };
        made.status = 'canceled';
        made.canceled_at = created;
        const event = eventOf('customer.subscription.deleted', { ...made }, stripeVersion);
        setImmediate(() => void send(event));
        return { status: 200, body: made };
      }
    }
    if (method === 'GET' && subscription?.startsWith('sub_live')) {
      return {
        status: 200,
        body: {
          id: subscription,
          object: 'subscription',
          status: 'active',
          items: {
            object: 'list',
            data: [
              {
                id: `si_${subscription}`,
                object: 'subscription_item',
                price: { id: 'price_old', product: 'prod_old' },
              },
            ],
          },
        },
      };
    }
    if (method === 'POST' && subscription?.startsWith('sub_live')) {
      return {
        status: 200,
        body: {
          id: subscription,
          object: 'subscription',
          status: 'active',
          items: { object: 'list', data: body.items ?? [] },
        },
      };
    }
    if (method === 'POST' && path === '/v1/customers')
      return { status: 200, body: customer(body.email ?? null, body.metadata ?? {}) };
    if (method === 'POST' && path === '/v1/products')
      return { status: 200, body: { id: `prod_${token(14)}`, object: 'product', name: body.name } };
    if (method === 'DELETE' && subscription) {
      if (!subscription.startsWith('sub_live'))
        return {
          status: 404,
          body: stripeError(
            'invalid_request_error',
            `No such subscription: '${subscription}'`,
            'id',
            'resource_missing',
          ),
        };
      if (cancelled.has(subscription))
        return {
          status: 400,
          body: stripeError('invalid_request_error', 'This subscription has already been canceled.'),
        };
      cancelled.add(subscription);
      return { status: 200, body: { id: subscription, object: 'subscription', status: 'canceled' } };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (!body.mode)
        return { status: 400, body: stripeError('invalid_request_error', 'Missing required param: mode.', 'mode') };
      const id = `cs_test_${token(24)}`;
      const items: Obj[] = body.line_items ?? [];
      const amount = items.reduce(
        (sum, item) => sum + Number(item.price_data?.unit_amount ?? 0) * Number(item.quantity ?? 1),
        0,
      );
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
      if (!body.customer)
        return {
          status: 400,
          body: stripeError('invalid_request_error', 'Missing required param: customer.', 'customer'),
        };
      const id = `bps_${token(24)}`;
      const portal = {
        id,
        object: 'billing_portal.session',
        created,
        customer: body.customer,
        livemode: false,
        return_url: body.return_url ?? null,
        url: hosted('portal', `test_${id}`, 'https://billing.stripe.com/p/session'),
      };
      portals.set(`test_${id}`, { ...portal, apiVersion: stripeVersion });
      return { status: 200, body: portal };
    }
    return {
      status: 404,
      body: stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`),
    };
  }
}
