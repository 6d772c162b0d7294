import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { localKeyFile } from '#auth/local-key';
import { config } from '#shared/config';
import {
  WEBHOOK_TOLERANCE_SECONDS,
  WebhookRejected,
  type CheckoutRequest,
  type PaymentEvent,
  type PaymentProvider,
} from './provider.ts';

/**
 * The local payment provider (`npm start`): no account anywhere. Its checkout and portal are pages
 * of the local server (`infra/local/payments.ts`) whose address carries a signed token; paying or
 * cancelling there delivers a signed event to POST /billing/local/webhook, the route and code path
 * Stripe's events take. Events are signed like Stripe's: `local-signature: t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">`.
 */

export const LOCAL_PAGES = '/_local/pay';

const secret = () => localKeyFile(join(config().LOCAL_DATA_DIR, 'keys', 'payments-local.key'), 32);
const hmac = async (data: string) =>
  createHmac('sha256', await secret())
    .update(data)
    .digest();

/** What a checkout page's address says (signed, so a page cannot be made for another plan or price). */
export interface LocalCheckout {
  subscriptionId: string;
  accountId: string;
  email: string;
  plan: CheckoutRequest['plan'];
  customerId: string;
  successUrl: string;
  cancelUrl: string;
}
export interface LocalPortal {
  accountId: string;
  customerId: string;
  subscriptionId: string | null;
  returnUrl: string;
}

async function seal(value: object): Promise<string> {
  const body = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${body}.${(await hmac(body)).toString('base64url')}`;
}

/** The value of a page token; undefined when it was not made here. */
export async function openToken<T>(token: string): Promise<T | undefined> {
  const [body, mac] = token.split('.');
  if (!body || !mac) return undefined;
  const expected = await hmac(body);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
}

/** A signed event as the local provider delivers it: the body and its headers. */
export async function signLocalEvent(
  event: PaymentEvent,
  at: Date,
): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify(event);
  const t = Math.floor(at.getTime() / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'local-signature': `t=${t},v1=${(await hmac(`${t}.${body}`)).toString('hex')}`,
    },
  };
}

const base = () => `${config().API_BASE_URL.replace(/\/$/, '')}${LOCAL_PAGES}`;

/** The local provider keeps no customers: an account's is named after it (so one per account, however often asked). */
const localCustomer = (accountId: string) => `cus_local_${accountId}`;

export const localProvider: PaymentProvider = {
  name: 'local',
  async createCheckout(req) {
    const checkout: LocalCheckout = {
      subscriptionId: req.subscriptionId,
      accountId: req.accountId,
      email: req.email,
      plan: req.plan,
      customerId: req.customerId ?? localCustomer(req.accountId),
      successUrl: req.successUrl,
      cancelUrl: req.cancelUrl,
    };
    return { url: `${base()}/checkout/${await seal(checkout)}`, sessionId: `cs_local_${req.idempotencyKey}` };
  },
  async createCustomer({ accountId }) {
    return localCustomer(accountId);
  },
  async portalUrl({ customerId, accountId, subscriptionId, returnUrl }) {
    const portal: LocalPortal = { accountId, customerId, subscriptionId: subscriptionId ?? null, returnUrl };
    return `${base()}/portal/${await seal(portal)}`;
  },
  // Nothing to do for either: the local provider keeps no subscriptions of its own.
  async changeSubscriptionPlan() {},
  async cancelSubscription() {},
  async verifyWebhook(rawBody, headers, now) {
    const header = headers['local-signature'] ?? '';
    const t = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1]);
    const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
    if (!t || !v1) throw new WebhookRejected('missing or malformed signature header');
    const expected = await hmac(`${t}.${rawBody}`);
    if (!timingSafeEqual(Buffer.from(v1, 'hex'), expected)) throw new WebhookRejected('signature mismatch');
    if (Math.abs(Math.floor(now.getTime() / 1000) - t) > WEBHOOK_TOLERANCE_SECONDS)
      throw new WebhookRejected('timestamp outside the tolerance');
    const event = JSON.parse(rawBody) as PaymentEvent;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string') throw new WebhookRejected('not an event');
    return event;
  },
};

/** A fresh local event id (the provider's own, as Stripe's `evt_…`). */
export const localEventId = () => `evt_local_${randomUUID()}`;
