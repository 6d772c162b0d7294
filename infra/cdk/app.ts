import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CatalogStack } from './stack';

const app = new App();
// Environment-agnostic (no env): synth needs no account/region lookups and stays offline.
new CatalogStack(app, 'InfraCatalog', {
  description: 'Infrastructure Catalog API: HTTP API, Lambda per route group, DynamoDB, SQS workers, S3, SES',
  appBaseUrl: app.node.tryGetContext('appBaseUrl'),
  mailFrom: app.node.tryGetContext('mailFrom'),
  allowedOrigins: app.node.tryGetContext('allowedOrigins'),
  // Optional first staff account: `cdk deploy -c bootstrapAdminSecretArn=<full secret ARN>` (or the env variable).
  bootstrapAdminSecretArn: app.node.tryGetContext('bootstrapAdminSecretArn') ?? process.env.BOOTSTRAP_ADMIN_SECRET_ARN,
  apiBaseUrl: app.node.tryGetContext('apiBaseUrl'),
  // Stripe as payment provider: `cdk deploy -c stripeSecretArn=<full secret ARN>` (secret: {"secret_key","webhook_secret"}).
  stripeSecretArn: app.node.tryGetContext('stripeSecretArn') ?? process.env.STRIPE_SECRET_ARN,
});
// cdk-nag 3 is a validation plugin: synth fails on any unacknowledged AwsSolutions finding.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
