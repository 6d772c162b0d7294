import * as z from 'zod';
import { lazySchema } from './lazy-schema.ts';

/**
 * Built at the first read of the configuration, not at import (some 60 fields, else built in
 * every function's cold import whether or not it is invoked; docs/cold-start.md).
 */
const schema = lazySchema(() => {
  /** Comma-separated list in an environment variable → trimmed, lower-cased, non-empty entries. */
  const csv = z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
    );
  const bool = z
    .enum(['true', 'false', '1', '0', ''])
    .default('')
    .transform((v) => v === 'true' || v === '1');

  const settings = z.object({
    STAGE: z.enum(['local', 'cloud']).default('local'),
    AWS_REGION: z.string().default('us-east-1'),
    TABLE_NAME: z.string().default('infra-catalog'),
    /** Set locally (DynamoDB Local); unset in the cloud. */
    DYNAMODB_ENDPOINT: z.string().optional(),
    /**
     * The access key this process presents to DynamoDB Local (infra/local/dynamo.ts `localDynamoCredentials`):
     * a test run's DynamoDB Local keeps one database per key, one per test worker.
     */
    DYNAMODB_LOCAL_ACCESS_KEY: z
      .string()
      .regex(/^[A-Za-z0-9]+$/, 'DynamoDB Local takes only letters and digits in an access key')
      .default('local'),
    /** The port `npm start` gives DynamoDB Local, so other tools (npm run admin, the AWS CLI) can reach its data. */
    DYNAMODB_LOCAL_PORT: z.coerce.number().int().min(1).max(65535).default(8000),
    S3_ENDPOINT: z.string().optional(),
    BUCKET_NAME: z.string().default('infra-catalog-documents'),
    JOBS_QUEUE_URL: z.string().default('local://jobs'),
    EVENTS_QUEUE_URL: z.string().default('local://events'),
    MAIL_QUEUE_URL: z.string().default('local://mail'),
    /** Local keys, mail outbox, DynamoDB Local's files. Inside a Lambda runtime (`sam local invoke`) only /tmp is writable. */
    LOCAL_DATA_DIR: z.string().default(() => (process.env.AWS_LAMBDA_FUNCTION_NAME ? '/tmp/infra-catalog' : '.local')),
    /** Secrets Manager secret holding the token signing key (cloud); locally a key file is used. */
    SIGNING_KEY_SECRET_ARN: z.string().optional(),
    JWT_ISSUER: z.string().default('infra-catalog'),
    JWT_AUDIENCE: z.string().default('infra-catalog-api'),
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().positive().default(900),
    REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().positive().default(30),
    /** A refresh token just rotated still answers, with the same new pair, for this long (several tabs refreshing at once); 0 turns it off. */
    REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().nonnegative().max(60).default(5),
    /** Fault injection, local stack only (shared/faults.ts): `<service>.<kind>:<probability>,…`; FAULTS_SEED replays a run. */
    FAULTS: z.string().default(''),
    FAULTS_SEED: z.coerce.number().int().default(1),
    REGISTRATION_MODE: z.enum(['open', 'invite-only', 'disabled']).default('open'),
    REGISTRATION_EMAIL_DOMAINS: csv,
    PASSWORD_MIN_LENGTH: z.coerce.number().int().min(8).default(8),
    PASSWORD_REQUIRE_MIXED: bool,
    /**
     * argon2id's cost: `standard` is OWASP's baseline (shared/auth/passwords.ts); `light` (1 MiB, 1 pass) is for test
     * stacks, which hash and check thousands of passwords, and is refused in the cloud (below).
     */
    PASSWORD_HASH_COST: z.enum(['standard', 'light']).default('standard'),
    MFA_REQUIRED: bool,
    /** KMS key that encrypts TOTP device secrets in the cloud; unset locally (a key file under LOCAL_DATA_DIR is used). */
    TOTP_KMS_KEY_ID: z.string().optional(),
    /** Issuer shown by authenticator apps next to the account name. */
    TOTP_ISSUER: z.string().default('Infrastructure Catalog'),
    /** How long an account's security-log entries are kept (DynamoDB TTL), whatever the plan: identity sits below billing. */
    SECURITY_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(365),
    /** Requests per minute per source address (SPEC "Rate limits"); overridable so test suites can sign in freely. */
    LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
    PASSWORD_RESET_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(5),
    /** Invitations and resends per hour (each sends a mail to an address the caller chose): per inviting account, across its projects. */
    INVITATION_RATE_LIMIT_PER_INVITER_PER_HOUR: z.coerce.number().int().positive().default(100),
    /** Invitations and resends per hour into one project, whoever sends them. */
    INVITATION_RATE_LIMIT_PER_PROJECT_PER_HOUR: z.coerce.number().int().positive().default(50),
    /** Mails of one invitation (its creation and each resend) per minute and per hour: the cooldown a recipient's mail service expects. */
    INVITATION_RATE_LIMIT_PER_INVITATION_PER_MINUTE: z.coerce.number().int().positive().default(1),
    INVITATION_RATE_LIMIT_PER_INVITATION_PER_HOUR: z.coerce.number().int().positive().default(5),
    /** Where POST /enterprise/request is mailed. */
    SALES_EMAIL: z.email().default('sales@infra-catalog.local'),
    ENTERPRISE_REQUEST_RATE_LIMIT_PER_HOUR: z.coerce.number().int().positive().default(5),
    /** Every password-reset request answers no sooner than this, whatever happened (no timing oracle). */
    PASSWORD_RESET_MIN_DURATION_MS: z.coerce.number().int().nonnegative().default(400),
    /** Secure cookies everywhere except plain-HTTP local serving. */
    COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
    APP_BASE_URL: z.string().default('http://localhost:3000'),
    /**
     * Origins (`https://app.example.com`) besides APP_BASE_URL's whose pages may send cookie-authenticated
     * writes (POST/PUT/PATCH/DELETE); a write carrying another `Origin` is refused (403).
     */
    ALLOWED_ORIGINS: csv.refine((list) => list.every((o) => /^https?:\/\/[^/?#\s]+$/.test(o.replace(/\/$/, ''))), {
      message: 'ALLOWED_ORIGINS: comma-separated origins such as https://app.example.com (scheme, host, optional port)',
    }),
    /**
     * Cloud: the value CloudFront adds as `x-origin-verify` to every request it forwards to the API. A request
     * carrying it came through the site, so its `CloudFront-Viewer-Address` is the caller's address (the rate
     * limits and logs key on it); without it, the address API Gateway saw is used.
     */
    ORIGIN_VERIFY_SECRET: z.string().min(16).optional(),
    /** The API's own public address (invoice links, the local payment pages); the local runtime sets it to where it listens. */
    API_BASE_URL: z.string().default('http://localhost:3000'),
    /** Who takes payments: Stripe (cloud), the local stand-in (`npm start`), or none (paid plans cannot be bought; no portal). */
    PAYMENT_PROVIDER: z.enum(['stripe', 'local', 'none']).default('local'),
    /** Cloud: Secrets Manager secret `{ "secret_key", "webhook_secret" }` for Stripe. */
    STRIPE_SECRET_ARN: z.string().optional(),
    /** Stripe keys given directly (tests, self-hosting); the secret above wins when both are set. */
    STRIPE_SECRET_KEY: z.string().optional(),
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    /** Another Stripe API address (`http://127.0.0.1:12111`): tests point the client at a fake server. */
    STRIPE_API_BASE: z.string().optional(),
    /** Where clients open progress WebSockets (`wss://…/<stage>` in the cloud; the local server's `/ws/progress`). */
    WS_BASE_URL: z.string().default('ws://localhost:3000/ws/progress'),
    /** Cloud: the WebSocket API's management endpoint (`https://…/<stage>`) messages are posted through; unset locally. */
    WS_CALLBACK_URL: z.string().optional(),
    /** How long an export's signed download link works (hours). */
    IMPEX_LINK_TTL_HOURS: z.coerce.number().int().positive().default(168),
    /** The largest configuration document an import takes (bytes). */
    IMPEX_MAX_DOCUMENT_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    /** The largest document an upload URL takes (bytes): imports too big for a request go through one. */
    IMPEX_MAX_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    /** Discovery: the AWS regions scanned when a cloud account names none (comma-separated). */
    DISCOVERY_AWS_REGIONS: z.string().default('us-east-1,eu-west-1'),
    /** Discovery: the AWS account whose principal assumes customers' roles (the trust policy names it); unset: the deployment's own. */
    DISCOVERY_AWS_PRINCIPAL_ACCOUNT: z.string().optional(),
    /** Discovery: the token providers' API base URLs (point them at a stub locally). */
    HETZNER_API_BASE_URL: z.url().default('https://api.hetzner.cloud/v1'),
    DIGITALOCEAN_API_BASE_URL: z.url().default('https://api.digitalocean.com/v2'),
    /** SPEC "Rate limits": payment-provider webhooks per minute per source address. */
    PAYMENT_WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
    MAIL_FROM: z.string().default('no-reply@infra-catalog.local'),
    MAIL_TRANSPORT: z.enum(['outbox', 'ses']).default('outbox'),
    BETA_MODE: bool,
    BOOTSTRAP_ADMIN_EMAIL: z.email().optional(),
    BOOTSTRAP_ADMIN_PASSWORD: z.string().optional(),
    /** Cloud: Secrets Manager secret `{ "email", "password" }` the seeding function makes the first staff account from. */
    BOOTSTRAP_ADMIN_SECRET_ARN: z.string().optional(),
    PORT: z.coerce.number().int().min(0).default(3000),
    /** Local runtime: how often the deadline sweep runs (the cloud runs it every 15 minutes); 0 turns the timer off (tests sweep themselves). */
    LOCAL_DEADLINE_SWEEP_SECONDS: z.coerce.number().int().nonnegative().default(60),
    /** Local runtime: how often the outbox is read into the events queue (the cloud's table stream); 0 turns the timer off (tests drain the queues, which reads it). */
    LOCAL_OUTBOX_POLL_MS: z.coerce.number().int().nonnegative().default(500),
    /** The local stand-in of the table stream's reader (live changes): how often an idle stream is read again; 0 = off. */
    LOCAL_STREAM_POLL_MS: z.coerce.number().int().nonnegative().default(100),
    /**
     * Outbox items (events, mail) still in the table this long after their write (or their last resend)
     * are handed to their queue again by the resend sweep, which the webhook retry schedule runs every
     * minute: the stream gave up during a queue outage, or the message was dead-lettered.
     * Longer than a message's way to its dead-letter queue (5 receives of a 6-minute visibility timeout
     * is 30 minutes at worst; a resend before then only costs a message: consumers are idempotent).
     */
    OUTBOX_RESEND_AFTER_SECONDS: z.coerce.number().int().positive().default(900),
    /** Local runtime: how often due webhook retries are swept (the cloud sweeps every minute); 0 turns the timer off. */
    LOCAL_WEBHOOK_RETRY_SWEEP_SECONDS: z.coerce.number().int().nonnegative().default(5),
    /** Addresses (IPs or CIDRs, comma-separated) webhooks may deliver to although they are not public, over http too: local development and tests (127.0.0.1). Empty by default. */
    WEBHOOK_ALLOWED_ADDRESSES: z.string().default(''),
    /** Addresses (IPs or CIDRs, comma-separated) a single sign-on identity provider may be reached at although they are not public, over http too (the local IdP). Empty by default. */
    SSO_ALLOWED_ADDRESSES: z.string().default(''),
    /** DNS servers (`host:port`, comma-separated) that answer the SSO domains' TXT challenges; the system's resolver when empty. */
    SSO_DNS_SERVERS: z.string().default(''),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /** Observability: the service name on every log line and metric (the stack sets one per function). */
    POWERTOOLS_SERVICE_NAME: z.string().default('infra-catalog'),
    /** CloudWatch namespace of the EMF metrics. */
    POWERTOOLS_METRICS_NAMESPACE: z.string().default('InfraCatalog'),
    /** `true` prints no EMF metrics (tests by default; a test turns them on). */
    POWERTOOLS_METRICS_DISABLED: bool,
    /** X-Ray tracing of the AWS SDK clients; the stack turns it on, off locally and in tests. */
    POWERTOOLS_TRACE_ENABLED: bool,
  });
  return settings.refine((c) => c.STAGE !== 'cloud' || c.PASSWORD_HASH_COST === 'standard', {
    path: ['PASSWORD_HASH_COST'],
    message: 'the cloud hashes passwords at the standard cost only: unset PASSWORD_HASH_COST or set it to standard',
  });
});

export type Config = z.infer<ReturnType<typeof schema>>;
/** Every environment variable the service reads (the README documents each). */
export const configVariables = (): string[] => Object.keys(schema().shape);

let current: Config | undefined;

/** The configuration, parsed from the environment once per process. */
export function config(): Config {
  current ??= schema().parse(process.env);
  return current;
}

/** Re-reads the environment (local runtime and tests set variables before serving). */
export function reloadConfig(overrides: Record<string, string> = {}): Config {
  current = schema().parse({ ...process.env, ...overrides });
  return current;
}

export function cookiesSecure(c: Config = config()): boolean {
  return c.COOKIE_SECURE === 'auto' ? !c.APP_BASE_URL.startsWith('http://') : c.COOKIE_SECURE === 'true';
}
