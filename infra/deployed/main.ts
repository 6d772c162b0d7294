import { join, resolve } from 'node:path';
import { OPERATOR_ACCESS_KEY } from './iam.ts';
import { startDeployed } from './start.ts';
import { adminSecret, LOCAL_ADMIN_SECRET_ARN, LOCAL_STRIPE_SECRET_ARN, synthesizeUnlessCurrent } from './synth.ts';
import { stopOnSignals } from '../local/stop-on-signals.ts';
import { READY_MADE_USER } from '../local/idp.ts';
import { startSsoDns, startSsoIdp } from './sso-stand-ins.ts';

/**
 * `npm run start:deployed`: the product as deployed, on this machine (README, "The deployed shape").
 * `CDK_OUT=<dir>` serves an existing cloud assembly; otherwise the stack is synthesized first. Takes
 * `npm start`'s settings: PORT, LOCAL_DATA_DIR, DYNAMODB_LOCAL_PORT, DYNAMODB_ENDPOINT, APP_BASE_URL,
 * BOOTSTRAP_ADMIN_EMAIL/PASSWORD (through a local secret the seeding function reads, as in the cloud).
 */
const started = Date.now();
const env = process.env;
const dataDir = resolve(env.LOCAL_DATA_DIR ?? '.local');
const admin =
  env.BOOTSTRAP_ADMIN_EMAIL && env.BOOTSTRAP_ADMIN_PASSWORD
    ? adminSecret(env.BOOTSTRAP_ADMIN_EMAIL, env.BOOTSTRAP_ADMIN_PASSWORD)
    : undefined;

// The stack is synthesized into <dataDir>/cdk.out, again only when its sources changed; DynamoDB Local starts meanwhile.
const cdkOut = env.CDK_OUT
  ? Promise.resolve(resolve(env.CDK_OUT))
  : (async () => {
      const dir = join(dataDir, 'cdk.out');
      console.log(`Synthesizing the stack into ${dir} (unless it is current) ...`);
      // Stripe takes payments, as `cdk deploy -c stripeSecretArn=…` makes it: the run serves Stripe's API and pages itself.
      const synthesized = await synthesizeUnlessCurrent(dir, {
        ...(admin ? { BOOTSTRAP_ADMIN_SECRET_ARN: LOCAL_ADMIN_SECRET_ARN } : {}),
        STRIPE_SECRET_ARN: LOCAL_STRIPE_SECRET_ARN,
      });
      console.log(
        synthesized
          ? `  synthesized (${((Date.now() - started) / 1000).toFixed(1)} s)`
          : '  current: not synthesized again',
      );
      return dir;
    })();
// Single sign-on's stand-ins, as `npm start` has them: the DNS server before the functions
// (its address reaches them as SSO_DNS_SERVERS, a tester override), the IdP once the site's address is known.
const dns = await startSsoDns(dataDir, env);
const deployed = await startDeployed({
  cdkOut,
  port: Number(env.PORT ?? 3000),
  dataDir,
  dynamoEndpoint: env.DYNAMODB_ENDPOINT,
  dynamoPort: env.DYNAMODB_LOCAL_PORT ? Number(env.DYNAMODB_LOCAL_PORT) : undefined,
  siteUrl: env.APP_BASE_URL,
  extraSecrets: admin ? { [LOCAL_ADMIN_SECRET_ARN]: admin } : {},
});
console.log(
  `Infrastructure Catalog (deployed shape, from ${await cdkOut}) is running at ${deployed.url} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
console.log(
  `  ${deployed.functions.length} functions, each in its own sandboxes; AWS stand-ins at ${deployed.awsEndpoint} (operator key ${OPERATOR_ACCESS_KEY}); mail: ${dataDir}/outbox/`,
);
if (deployed.stripe)
  console.log(
    `  payments: Stripe's API stand-in at ${deployed.stripe.url}; checkout and billing portal pages at ${deployed.url}/_stripe/ (test mode: nothing is charged)`,
  );

const idp = await startSsoIdp(deployed.url);
console.log(
  `  single sign-on: identity provider ${idp.issuer} (client_id ${idp.clientId}, client_secret ${idp.clientSecret}, user ${READY_MADE_USER.email})${dns ? `; DNS stand-in ${dns.server} (TXT records in ${dataDir}/dns-records.json)` : ''}`,
);

stopOnSignals(async () => {
  await Promise.allSettled([idp.stop(), dns?.stop()]);
  await deployed.stop();
});
