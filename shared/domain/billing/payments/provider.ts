/**
 * The payment-provider port: Stripe in the cloud, a local stand-in for `npm start` (a checkout page
 * served by the local server that pays by delivering a signed event to the same webhook route).
 * The domain speaks only this vocabulary; each adapter maps its provider's objects onto it.
 */

/** SPEC's three subscription states; each adapter maps its provider's states onto them (docs/decisions/0054-stripe-adapter.md). */
export type ProviderSubscriptionStatus = 'active' | 'pending' | 'cancelled';

export interface CheckoutRequest {
  /** Our pending subscription: the provider carries it back on every event (client_reference_id, metadata). */
  subscriptionId: string;
  accountId: string;
  email: string;
  plan: { id: string; name: string; interval: string; price_cents: number; currency: string };
  /** The provider's customer of this account, when an earlier payment made one. */
  customerId: string | null;
  /** Where the provider sends the payer afterwards (the dashboard). */
  successUrl: string;
  cancelUrl: string;
  /** The checkout job's id: repeated calls with the same key make one session (the provider's idempotency key). */
  idempotencyKey: string;
}

/** What the domain acts on, whichever provider sent it. `created` is the provider's event time (epoch seconds). */
export type PaymentEvent =
  | {
      id: string;
      created: number;
      type: 'checkout.completed';
      accountId: string;
      subscriptionId: string;
      customerId: string | null;
      providerSubscriptionId: string | null;
      amountCents: number;
      currency: string;
    }
  | {
      id: string;
      created: number;
      /** The provider's subscription changed state (cancelled, final payment failure, …). */
      type: 'subscription.status';
      accountId: string;
      subscriptionId: string;
      status: ProviderSubscriptionStatus;
    }
  | {
      id: string;
      created: number;
      /** A renewal was paid: one more paid invoice for the subscription's plan. */
      type: 'renewal.paid';
      accountId: string;
      subscriptionId: string;
      amountCents: number;
      currency: string;
    }
  /** A genuine, verified event of a type we do not act on (acknowledged, recorded, nothing changes). */
  | { id: string; created: number; type: 'ignored'; providerType: string };

/** A webhook whose signature, secret or timestamp does not verify: 400, nothing recorded. */
export class WebhookRejected extends Error {}

export interface PaymentProvider {
  readonly name: 'stripe' | 'local';
  createCheckout(req: CheckoutRequest): Promise<{ url: string; sessionId: string }>;
  /**
   * Makes the provider's customer for an account that has none yet (its portal opens before any
   * payment); answers its id. Calls with the same `idempotencyKey` make one customer.
   */
  createCustomer(input: { accountId: string; email: string; idempotencyKey: string }): Promise<string>;
  /** The provider's self-service page for an existing customer. */
  portalUrl(input: {
    customerId: string;
    accountId: string;
    returnUrl: string /** The paid subscription shown (the local page offers to cancel it). */;
    subscriptionId?: string | null;
  }): Promise<string>;
  /** Moves a subscription at the provider to another (smaller) plan from its next period on (a confirmed downgrade). */
  changeSubscriptionPlan(providerSubscriptionId: string, plan: CheckoutRequest['plan']): Promise<void>;
  /** Ends a subscription at the provider (the account moved to another plan here); done already is fine. */
  cancelSubscription(providerSubscriptionId: string): Promise<void>;
  /**
   * Verifies a webhook on its raw body (exactly the bytes received) and headers (lower-case names),
   * refusing timestamps older than the tolerance or more than 5 minutes in the future, and maps it.
   * Throws WebhookRejected when it does not verify.
   */
  verifyWebhook(rawBody: string, headers: Record<string, string | undefined>, now: Date): Promise<PaymentEvent>;
}

/** How far a webhook's signed timestamp may be from now, either way (seconds). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
