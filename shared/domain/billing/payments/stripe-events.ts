import type Stripe from 'stripe';
import type { PaymentEvent, ProviderSubscriptionStatus } from './provider.ts';

/**
 * Stripe's webhook events read as `PaymentEvent`s: which events matter, where each carries our
 * subscription and account ids (the metadata we set on every object), and Stripe's subscription
 * states onto ours. An event that is not ours, or that changes nothing, maps to `ignored`.
 */

/**
 * Stripe's subscription states onto SPEC's three. past_due stays active: Stripe is still retrying the
 * payment, and its final failure arrives as `invoice.payment_failed` without a next attempt. A state
 * not listed here (one Stripe adds later) changes nothing: the event is ignored.
 */
export const STRIPE_STATUS: Readonly<Record<string, ProviderSubscriptionStatus>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'active',
  incomplete: 'pending',
  canceled: 'cancelled',
  unpaid: 'cancelled',
  incomplete_expired: 'cancelled',
  paused: 'cancelled',
};

type Ours = { subscriptionId: string; accountId: string };

/** Our ids from a Stripe metadata object, or null when it is not one of ours. */
function ours(metadata: Stripe.Metadata | null | undefined): Ours | null {
  const subscriptionId = metadata?.subscription_id;
  const accountId = metadata?.account_id;
  return subscriptionId && accountId ? { subscriptionId, accountId } : null;
}

const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  typeof ref === 'string' ? ref : (ref?.id ?? null);

/**
 * Where an invoice carries its subscription's metadata: `parent.subscription_details.metadata` since
 * API version 2025-03-31 (the package's 2026 types); `subscription_details.metadata` on the invoice
 * itself before that; and, in every version, the metadata of its subscription line items.
 */
function invoiceOwner(invoice: Stripe.Invoice): Ours | null {
  const legacy = invoice as Stripe.Invoice & { subscription_details?: { metadata?: Stripe.Metadata | null } | null };
  return (
    ours(invoice.parent?.subscription_details?.metadata) ??
    ours(legacy.subscription_details?.metadata) ??
    (invoice.lines?.data ?? []).map((line) => ours(line.metadata)).find((found) => found !== null) ??
    null
  );
}

const upper = (currency: string | null | undefined) => (currency ?? '').toUpperCase();

export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = { id: event.id, created: event.created };
  const ignored: PaymentEvent = { ...base, type: 'ignored', providerType: event.type };

  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      if (session.mode !== 'subscription') return ignored;
      if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') return ignored;
      const accountId = session.metadata?.account_id;
      const subscriptionId = session.client_reference_id ?? session.metadata?.subscription_id;
      if (!accountId || !subscriptionId) return ignored;
      return {
        ...base,
        type: 'checkout.completed',
        accountId,
        subscriptionId,
        customerId: idOf(session.customer),
        providerSubscriptionId: idOf(session.subscription),
        amountCents: session.amount_total ?? 0,
        currency: upper(session.currency),
      };
    }

    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      const owner = ours(subscription.metadata);
      const status = event.type === 'customer.subscription.deleted' ? 'cancelled' : STRIPE_STATUS[subscription.status];
      if (!owner || !status) return ignored;
      return { ...base, type: 'subscription.status', ...owner, status };
    }

    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      const owner = invoiceOwner(invoice);
      // Stripe retries on its schedule; only the last failure (no next attempt) ends the subscription.
      if (!owner || invoice.next_payment_attempt !== null) return ignored;
      return { ...base, type: 'subscription.status', ...owner, status: 'cancelled' };
    }

    case 'invoice.paid': {
      const invoice = event.data.object;
      const owner = invoiceOwner(invoice);
      // The first invoice (subscription_create) is the checkout's own payment: checkout.completed covers it.
      if (!owner || invoice.billing_reason !== 'subscription_cycle') return ignored;
      return {
        ...base,
        type: 'renewal.paid',
        ...owner,
        amountCents: invoice.amount_paid,
        currency: upper(invoice.currency),
      };
    }

    default:
      return ignored;
  }
}
