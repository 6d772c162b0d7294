import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ensureWebBuild } from '../build/web-build.ts';
import { CatalogStack } from './stack.ts';

// The stack deploys the built dashboard (web/dist): build it first when its sources changed (a no-op otherwise).
await ensureWebBuild({ say: (line) => console.error(line) });

const app = new App();
// Environment-agnostic (no env): synth needs no account/region lookups and stays offline.
new CatalogStack(app, 'InfraCatalog', {
  description:
    'Infrastructure Catalog: HTTP API, Lambda per route group, DynamoDB, SQS workers, S3, SES; the dashboard on CloudFront',
  appBaseUrl: app.node.tryGetContext('appBaseUrl'),
  mailFrom: app.node.tryGetContext('mailFrom'),
  allowedOrigins: app.node.tryGetContext('allowedOrigins'),
  // Optional first staff account: `cdk deploy -c bootstrapAdminSecretArn=<full secret ARN>` (or the env variable).
  bootstrapAdminSecretArn: app.node.tryGetContext('bootstrapAdminSecretArn') ?? process.env.BOOTSTRAP_ADMIN_SECRET_ARN,
  apiBaseUrl: app.node.tryGetContext('apiBaseUrl'),
  // The site (dashboard and API) under a custom domain: `-c siteDomainName=catalog.example.com -c siteCertificateArn=<ACM ARN in us-east-1>`.
  siteDomainName: app.node.tryGetContext('siteDomainName'),
  siteCertificateArn: app.node.tryGetContext('siteCertificateArn'),
  // Stripe as payment provider: `cdk deploy -c stripeSecretArn=<full secret ARN>` (secret: {"secret_key","webhook_secret"}).
  stripeSecretArn: app.node.tryGetContext('stripeSecretArn') ?? process.env.STRIPE_SECRET_ARN,
});
// cdk-nag 3 is a validation plugin: synth fails on any unacknowledged AwsSolutions finding.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
