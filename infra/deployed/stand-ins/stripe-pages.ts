import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json } from '../template.ts';
import { esc, html, now, readBody, redirect, token } from './stripe-http.ts';

/** The path under which the site serves the hosted pages (start:deployed's `pages`). */
export const STRIPE_PAGES = '/_stripe';

/** What a checkout session was given beside what it shows: its line items, subscription data and API version. */
export interface CheckoutGiven {
  items: Json[];
  subscriptionData: Json;
  apiVersion?: string;
}

/** The stand-in's state and the steps the hosted pages share with its API. */
export interface HostedState {
  sessions: Map<string, Json>;
  /** What each checkout session was given, by session id. */
  made_: Map<string, CheckoutGiven>;
  customers: Map<string, Json>;
  subscriptions: Map<string, Json>;
  portals: Map<string, Json>;
  /** Whether events go to a webhook (a failed delivery is then shown on the page). */
  webhook: boolean;
  customer(email: string | null, metadata: Json): Json;
  send(event: Json): Promise<number>;
  eventOf(type: string, object: Json, apiVersion?: string): Json;
}

/** The hosted checkout and portal pages: GET shows one, POST (its form) pays or cancels, sends the event, and goes back to the product. */
export function hostedPages(state: HostedState) {
  const { sessions, made_, customers, subscriptions, portals, webhook, customer, send, eventOf } = state;
  return async function page(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
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
      if (!session || !given)
        return html(res, 404, 'Unknown checkout', '<p>This checkout session was not made here.</p>');
      const item = given.items[0]?.price_data ?? {};
      const price = `${(session.amount_total / 100).toFixed(2)} ${String(session.currency ?? '').toUpperCase()} / ${item.recurring?.interval ?? 'once'}`;
      const name = String(item.product_data?.name ?? 'Subscription');
      if (session.status !== 'open')
        return html(
          res,
          post ? 409 : 200,
          'Paid',
          `<h1>Paid</h1><p>${esc(name)}: ${esc(price)}</p><p><a href="${esc(session.success_url ?? '/')}">Back</a></p>`,
        );
      if (!post) {
        const billed = session.customer
          ? (customers.get(session.customer)?.email ?? session.customer)
          : session.customer_email;
        return html(
          res,
          200,
          `Pay for ${name}`,
          `<h1>${esc(name)}</h1><p>${esc(price)}</p><p>Billed to ${esc(billed ?? '')}</p>
<form method="post"><button type="submit">Pay ${esc(price)}</button></form><p><a href="${esc(session.cancel_url ?? '/')}">Cancel</a></p>
<p><small>Stripe test mode (start:deployed's stand-in): nothing is charged.</small></p>`,
        );
      }
      const payer = session.customer ?? customer(session.customer_email, {}).id;
      const sub = {
        id: `sub_${token(24)}`,
        object: 'subscription',
        status: 'active',
        customer: payer,
        created: now(),
        livemode: false,
        canceled_at: null,
        metadata: given.subscriptionData.metadata ?? {},
        items: {
          object: 'list',
          data: given.items.map((i) => ({
            id: `si_${token(14)}`,
            object: 'subscription_item',
            quantity: Number(i.quantity ?? 1),
            price: { id: `price_${token(14)}`, ...i.price_data },
          })),
        },
      };
      subscriptions.set(sub.id, sub);
      Object.assign(session, { status: 'complete', payment_status: 'paid', customer: payer, subscription: sub.id });
      const status = await send(eventOf('checkout.session.completed', { ...session }, given.apiVersion));
      if (webhook && (status < 200 || status > 299))
        return html(res, 502, 'Not delivered', `<p>Paid, but the webhook answered ${status}.</p>`);
      return redirect(res, String(session.success_url ?? '/').replace('{CHECKOUT_SESSION_ID}', session.id));
    }
    const portal = portals.get(id);
    if (!portal) return html(res, 404, 'Unknown portal session', '<p>This portal session was not made here.</p>');
    const active = [...subscriptions.values()].filter((s) => s.customer === portal.customer && s.status === 'active');
    if (!post) {
      const list = active
        .map(
          (s) =>
            `<form method="post"><input type="hidden" name="subscription" value="${esc(s.id)}"><p>${esc(String(s.items.data[0]?.price?.product_data?.name ?? s.id))}</p><button type="submit">Cancel subscription</button></form>`,
        )
        .join('');
      return html(
        res,
        200,
        'Billing',
        `<h1>Billing</h1>${list || '<p>No active subscription.</p>'}<p><a href="${esc(portal.return_url ?? '/')}">Back</a></p>`,
      );
    }
    const sub = active.find((s) => s.id === form!.get('subscription'));
    if (!sub) return html(res, 400, 'Nothing to cancel', '<p>No such active subscription.</p>');
    Object.assign(sub, { status: 'canceled', canceled_at: now() });
    const status = await send(eventOf('customer.subscription.deleted', { ...sub }, portal.apiVersion));
    if (webhook && (status < 200 || status > 299))
      return html(res, 502, 'Not delivered', `<p>Cancelled, but the webhook answered ${status}.</p>`);
    return redirect(res, portal.return_url ?? '/');
  };
}
