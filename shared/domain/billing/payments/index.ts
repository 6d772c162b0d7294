import { readSecret } from '#shared/clients';
import type { Config } from '#shared/config';
import { localProvider } from './local-provider.ts';
import type { PaymentProvider } from './provider.ts';

export * from './provider.ts';
export * from './local-provider.ts';

let stripe: Promise<PaymentProvider> | undefined;

/**
 * The configured payment provider; undefined when none is (paid plans cannot be bought, no portal).
 * The Stripe adapter (and the `stripe` package) is loaded on first use, so only the calls that pay
 * for it do; its keys come from Secrets Manager in the cloud, from the environment otherwise.
 */
export function paymentProvider(c: Config): Promise<PaymentProvider> | undefined {
  if (c.PAYMENT_PROVIDER === 'none') return undefined;
  if (c.PAYMENT_PROVIDER === 'local') return Promise.resolve(localProvider);
  stripe ??= loadStripe(c).catch((err) => {
    stripe = undefined;
    throw err;
  });
  return stripe;
}

async function loadStripe(c: Config): Promise<PaymentProvider> {
  let keys = { secretKey: c.STRIPE_SECRET_KEY, webhookSecret: c.STRIPE_WEBHOOK_SECRET };
  if (c.STRIPE_SECRET_ARN) {
    const parsed = JSON.parse((await readSecret(c.STRIPE_SECRET_ARN)) ?? '{}') as {
      secret_key?: string;
      webhook_secret?: string;
    };
    keys = { secretKey: parsed.secret_key, webhookSecret: parsed.webhook_secret };
  }
  if (!keys.secretKey || !keys.webhookSecret)
    throw new Error('Stripe is the payment provider but its secret key or webhook secret is missing');
  // The adapter and the SDK on first use; in the cloud the SDK ships beside the bundle, pre-bundled (infra/cdk/aliases.ts).
  const [{ stripeProvider }, { default: sdk }] = await Promise.all([import('./stripe-provider.ts'), import('stripe')]);
  return stripeProvider(
    { secretKey: keys.secretKey, webhookSecret: keys.webhookSecret, apiBase: c.STRIPE_API_BASE },
    sdk,
  );
}
