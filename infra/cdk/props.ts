import type { StackProps } from 'aws-cdk-lib';

/** The stack's settings (infra/cdk/app.ts reads them from the context and the environment). */
export interface CatalogStackProps extends StackProps {
  /** Public base URL used in links (e-mails, redirects) and the origin allowed to send cookie-authenticated writes; defaults to the site's (the distribution serving the dashboard and the API). */
  appBaseUrl?: string;
  /** A custom domain for the site (dashboard and API), with its ACM certificate's ARN in us-east-1; else CloudFront's own domain. */
  siteDomainName?: string;
  siteCertificateArn?: string;
  /** The built dashboard; defaults to web/dist (infra/cdk/app.ts builds it before synthesizing). */
  webDist?: string;
  /** SES-verified sender address. */
  mailFrom?: string;
  /** Comma-separated origins (besides the app's own) allowed to send cookie-authenticated writes. */
  allowedOrigins?: string;
  /**
   * Full ARN (with its 6-character suffix) of a Secrets Manager secret `{ "email", "password" }`: the
   * seeding function makes the first staff superuser from it on deploy. Unset: plans only.
   */
  bootstrapAdminSecretArn?: string;
  /** The API's public base URL (invoice and download links); defaults to the site's, where the API is served beside the dashboard. */
  apiBaseUrl?: string;
  /**
   * Full ARN of a Secrets Manager secret `{ "secret_key", "webhook_secret" }`: Stripe becomes the payment
   * provider (its webhook: POST /billing/stripe/webhook). Unset: no payment provider (paid plans and the portal are refused).
   */
  stripeSecretArn?: string;
}
