import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  LOCAL_PAGES,
  localEventId,
  openToken,
  signLocalEvent,
  type LocalCheckout,
  type LocalPortal,
  type PaymentEvent,
} from '#domain/billing';
import { escapeHtml } from '#mail/html';
import { config } from '#shared/config';
import { systemClock, type Clock } from '#shared/context';
import { htmlPage as answer } from './page.ts';

/**
 * The local payment provider's pages (served by `npm start` only, never deployed): a checkout page
 * with a Pay button and a portal page with a Cancel button (or, without a paid subscription, a link to choose a plan). Submitting one delivers a signed event
 * to POST /billing/local/webhook over HTTP, exactly as Stripe delivers its own, so paying locally
 * runs the same webhook route and code the cloud runs.
 */
export async function localPaymentPage(
  req: IncomingMessage,
  res: ServerResponse,
  clock: Clock = systemClock,
): Promise<boolean> {
  const path = new URL(req.url ?? '/', 'http://local').pathname;
  const m = new RegExp(`^${LOCAL_PAGES}/(checkout|portal)/([^/]+)$`).exec(path);
  if (!m) return false;
  const [, page, token] = m;
  const post = req.method === 'POST';
  if (!post && req.method !== 'GET') return answer(res, 405, 'Method not allowed', '<p>Use GET or POST.</p>');
  if (page === 'checkout') {
    const c = await openToken<LocalCheckout>(token);
    if (!c) return answer(res, 404, 'Unknown checkout', '<p>This checkout link was not made by this server.</p>');
    const price = `${(c.plan.price_cents / 100).toFixed(2)} ${escapeHtml(c.plan.currency)} / ${c.plan.interval === 'annual' ? 'year' : 'month'}`;
    if (!post) {
      return answer(
        res,
        200,
        `Pay for ${c.plan.name}`,
        `<h1>${escapeHtml(c.plan.name)} plan</h1><p>${price}</p><p>Billed to ${escapeHtml(c.email)}</p>
<form method="post"><button type="submit">Pay ${price}</button></form><p><a href="${escapeHtml(c.cancelUrl)}">Cancel</a></p>
<p><small>Local payment provider: nothing is charged.</small></p>`,
      );
    }
    const event: PaymentEvent = {
      id: localEventId(),
      created: Math.floor(clock.now().getTime() / 1000),
      type: 'checkout.completed',
      accountId: c.accountId,
      subscriptionId: c.subscriptionId,
      customerId: c.customerId,
      providerSubscriptionId: `sub_local_${c.subscriptionId}`,
      amountCents: c.plan.price_cents,
      currency: c.plan.currency,
    };
    return deliver(
      res,
      event,
      clock,
      'Payment received',
      `<p>Your ${escapeHtml(c.plan.name)} plan is active.</p><p><a href="${escapeHtml(c.successUrl)}">Back to the app</a></p>`,
    );
  }
  const p = await openToken<LocalPortal>(token);
  if (!p) return answer(res, 404, 'Unknown portal', '<p>This portal link was not made by this server.</p>');
  if (!post) {
    // An account that never paid opens the portal too: nothing to cancel, a way back to the plans.
    const back = escapeHtml(p.returnUrl);
    const body = p.subscriptionId
      ? `<form method="post"><button type="submit">Cancel subscription</button></form><p><a href="${back}">Back to the app</a></p>`
      : `<p>No paid subscription.</p><p><a href="${back}">Choose a plan</a></p>`;
    return answer(res, 200, 'Billing', `<h1>Billing</h1><p>Customer ${escapeHtml(p.customerId)}</p>${body}`);
  }
  if (!p.subscriptionId) return answer(res, 400, 'Nothing to cancel', '<p>No paid subscription.</p>');
  const event: PaymentEvent = {
    id: localEventId(),
    created: Math.floor(clock.now().getTime() / 1000),
    type: 'subscription.status',
    accountId: p.accountId,
    subscriptionId: p.subscriptionId,
    status: 'cancelled',
  };
  return deliver(
    res,
    event,
    clock,
    'Subscription cancelled',
    `<p>Your subscription is cancelled.</p><p><a href="${escapeHtml(p.returnUrl)}">Back to the app</a></p>`,
  );
}

/** Sends the event to the webhook route as the provider would, then tells the payer how it went. */
async function deliver(
  res: ServerResponse,
  event: PaymentEvent,
  clock: Clock,
  title: string,
  done: string,
): Promise<boolean> {
  const { body, headers } = await signLocalEvent(event, clock.now());
  const hook = await fetch(`${config().API_BASE_URL.replace(/\/$/, '')}/billing/local/webhook`, {
    method: 'POST',
    body,
    headers,
  });
  if (!hook.ok)
    return answer(
      res,
      502,
      'Not delivered',
      `<p>The webhook answered ${hook.status}: ${escapeHtml(await hook.text())}</p>`,
    );
  return answer(res, 200, title, done);
}
