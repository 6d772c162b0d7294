import type { PaymentProvider } from './provider';

// Placeholder until the Stripe adapter lands (branch `stripe`).
export function stripeProvider(_keys: { secretKey: string; webhookSecret: string; apiBase?: string }): PaymentProvider {
  throw new Error('Stripe adapter not merged yet');
}
