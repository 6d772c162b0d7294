import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';
import { jobProgressSchema } from '#shared/job-progress';

const extra = () => z.object({ kind: z.string(), id: z.string(), name: z.string() });
const report = () =>
  z.object({
    summary: z.object({ create: z.int(), update: z.int(), unchanged: z.int(), error: z.int() }),
    items: z.array(z.object({ kind: z.string(), name: z.string(), action: z.string(), detail: z.string().optional() })),
    errors: z.array(z.object({ path: z.string(), line: z.int().nullable(), message: z.string() })),
    /** A plan's: what it was made against (import/fingerprint.ts). */
    fingerprint: z.string().optional(),
    /** What the environment has that the document lacks (import/extras.ts), and what an import with `prune` deleted of it. */
    extras: z.array(extra()).optional(),
    deleted: z.array(extra()).optional(),
  });

/**
 * An export or import: queued → running → succeeded | failed | cancelled, with its progress, its link
 * (export) or report (import). A running job writes `heartbeat_at` while it lives (job-liveness.ts).
 */
export const impexRecordEntity = defineEntity('impex_record', () =>
  z.object({
    id: z.uuid(),
    job_id: z.uuid(),
    kind: z.enum(['export', 'import']),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    created_by: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable().default(null),
    /** Import: the uploaded file's name; `dry_run` plans without applying. */
    filename: z.string().nullable().default(null),
    dry_run: z.boolean().default(false),
    /** Import of a saved plan: the fingerprint the environment must still have (else nothing is written). */
    plan_fingerprint: z.string().nullable().default(null),
    /** Import: delete what the environment has and the document lacks (its plan's `extras`), in the job, under the lock. */
    prune: z.boolean().default(false),
    /** The document in the bucket (export: the result; import: the upload). */
    document_key: z.string().nullable().default(null),
    /** Export: the signed link and when it stops working. */
    download_url: z.string().nullable().default(null),
    link_expires_at: z.string().nullable().default(null),
    report: report().nullable().default(null),
    error: z.string().nullable().default(null),
    progress: jobProgressSchema(),
    /** When the running job last showed it lives (job-liveness.ts); a job silent for longer than its limit has stalled. */
    heartbeat_at: z.string().nullable().default(null),
    /** A cancel of a running job asked for (by whom): the job stops at its next chunk boundary (cancel.ts). */
    cancel_requested_by: z.string().nullable().default(null),
    /** Moves on every change: progress messages carry it, so a client orders them and drops stale ones. */
    seq: z.int().default(0),
  }),
);
export type ImpexRecord = z.infer<typeof impexRecordEntity.schema>;

export const impexRecordView = defineView(impexRecordEntity, {
  id: true,
  job_id: true,
  kind: true,
  status: true,
  project_id: true,
  environment_id: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  finished_at: true,
  filename: true,
  dry_run: true,
  plan_fingerprint: true,
  prune: true,
  download_url: true,
  link_expires_at: true,
  report: true,
  error: true,
  progress: true,
  cancel_requested_by: true,
});
