import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { jobProgressSchema } from '#shared/job-progress';
import { defineEntity, defineView } from '#db/entity';

/** The providers discovery can scan: AWS through a cross-account role, the others through an API token. */
export const DISCOVERY_PROVIDERS = ['aws', 'hetzner', 'digitalocean'] as const;
export const discoveryProvider = lazySchema(() => z.enum(DISCOVERY_PROVIDERS));
export type DiscoveryProvider = z.infer<ReturnType<typeof discoveryProvider>>;

/**
 * A cloud account connected to one environment of a project. AWS: the role to assume and the
 * external id the service generated; token providers: the API token sealed with the secret box
 * (`token_sealed`, never answered). `active_run_id` is the discovery running now (at most one).
 */
export const cloudAccountEntity = defineEntity('cloud_account', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    provider: discoveryProvider(),
    name: z.string(),
    status: z.enum(['pending', 'connected', 'failed']).default('pending'),
    last_error: z.string().nullable().default(null),
    last_checked_at: z.string().nullable().default(null),
    last_discovery_at: z.string().nullable().default(null),
    last_run_id: z.uuid().nullable().default(null),
    active_run_id: z.uuid().nullable().default(null),
    /** AWS only. */
    role_arn: z.string().nullable().default(null),
    external_id: z.string().nullable().default(null),
    regions: z.array(z.string()).default([]),
    /** Token providers only: the sealed API token. */
    token_sealed: z.string().nullable().default(null),
    created_by: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    /** The sort key of the account's latest audit entry. */
    audit_head: z.string().nullable().default(null),
  }),
);
export type CloudAccount = z.infer<typeof cloudAccountEntity.schema>;

/** What a client sees: never the token (sealed or not); the external id is not a secret (it goes into the customer's trust policy). */
export const cloudAccountView = defineView(cloudAccountEntity, {
  id: true,
  project_id: true,
  environment_id: true,
  provider: true,
  name: true,
  status: true,
  last_error: true,
  last_checked_at: true,
  last_discovery_at: true,
  last_run_id: true,
  active_run_id: true,
  role_arn: true,
  external_id: true,
  regions: true,
  created_at: true,
  updated_at: true,
});

const counts = () =>
  z.object({ found: z.int(), created: z.int(), updated: z.int(), unchanged: z.int(), missing: z.int() });
export type RunCounts = z.infer<ReturnType<typeof counts>>;

/** A discovery run: queued → running → succeeded | failed, with its progress and counts; its id is the job id. */
export const discoveryRunEntity = defineEntity('discovery_run', () =>
  z.object({
    id: z.uuid(),
    cloud_account_id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    provider: discoveryProvider(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    created_by: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable().default(null),
    progress: jobProgressSchema(),
    counts: counts().default({ found: 0, created: 0, updated: 0, unchanged: 0, missing: 0 }),
    /** Regions (or the provider's one listing) that could not be read: nothing in them was flagged missing. */
    failed_regions: z.array(z.string()).default([]),
    error: z.string().nullable().default(null),
    /** Moves on every change: progress messages carry it, so a client orders them and drops stale ones. */
    seq: z.int().default(0),
  }),
);
export type DiscoveryRun = z.infer<typeof discoveryRunEntity.schema>;

export const discoveryRunView = defineView(discoveryRunEntity, {
  id: true,
  cloud_account_id: true,
  project_id: true,
  environment_id: true,
  provider: true,
  status: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  finished_at: true,
  progress: true,
  counts: true,
  failed_regions: true,
  error: true,
});
