import * as z from 'zod';
import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { isLive } from '#db/live';
import { deleteStep, putNewStep, putWhenStep, setWhenStep } from '#db/steps';
import { transact, retryWhenStale, CASCADE_STALE, type TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import { enqueue } from '#shared/queue';
import { errorFields, log } from '#shared/log';
import { lazySchema } from '#shared/lazy-schema';
import { actorAccount, type AppContext } from '#shared/context';
import { accessToProject, retentionOfProject } from '#domain/tenancy';
import { floorListing, networkListing, serviceListing } from '../listings.ts';
import { customFieldEntity, type CustomFieldKind, type CustomValues } from './definition-entity.ts';
import { catalogueMoveStep, readCatalogue } from './catalogue.ts';
import { projectItemValues, type ItemValues } from './breakage.ts';
import { customFieldJobEntity, type CustomFieldJob } from './job-entity.ts';
import { CUSTOM_FIELD_NOT_FOUND } from './definitions.ts';
import { definitionChangeAudit } from './definition-audit.ts';

/**
 * Deleting a definition: at once it is marked `deleting` (no write may set it, its key stays taken),
 * and a job on the jobs queue takes its value off every item, then removes the definition. The job
 * has its record (`CFJOB#<id>`), read with GET /projects/{id}/custom-fields/jobs/{job_id}. A DELETE
 * of a definition already being deleted queues a new job (the job is idempotent).
 */

export const JOB_NOT_FOUND = 'Job not found';

export const customFieldJobMessage = lazySchema(() =>
  z.object({ kind: z.literal('custom-field-delete'), project_id: z.string().min(1), job_id: z.string().min(1) }),
);
type CustomFieldJobMessage = z.infer<ReturnType<typeof customFieldJobMessage>>;

const jobKey = (j: Pick<CustomFieldJob, 'project_id' | 'id'>) => keys.customFieldJob(j.project_id, j.id);

export const deleteCustomField = (ctx: AppContext, input: { project_id: string; key: string }) =>
  retryWhenStale(() => deleteOnce(ctx, input));

async function deleteOnce(ctx: AppContext, input: { project_id: string; key: string }) {
  const [access, catalogue] = await Promise.all([
    accessToProject(input.project_id, actorAccount(ctx).id),
    readCatalogue(input.project_id),
  ]);
  access.requireOwnerRight('project.manage');
  const def = catalogue.definitions.find((d) => d.key === input.key);
  if (!def) throw notFound(CUSTOM_FIELD_NOT_FOUND);
  const now = ctx.clock.now().toISOString();
  const job = customFieldJobEntity.create({
    id: ctx.ids.newId(),
    project_id: def.project_id,
    key: def.key,
    status: 'queued',
    created_by: access.userId,
    created_at: now,
    updated_at: now,
  });
  // The deletion's entry is written when it starts (a DELETE again, of one being deleted, only queues a job anew).
  const audit =
    def.status === 'active'
      ? definitionChangeAudit(ctx, 'delete', def, null, await retentionOfProject(access.project))
      : undefined;
  await transact([
    putWhenStep(
      customFieldEntity.encode(keys.customField(def.project_id, def.key), {
        ...def,
        status: 'deleting',
        updated_at: now,
        audit_head: audit?.head ?? def.audit_head,
      }),
      { updated_at: def.updated_at },
      CASCADE_STALE,
    ),
    catalogueMoveStep(catalogue, 0),
    putNewStep(customFieldJobEntity.encode(jobKey(job), job)),
    ...(audit?.steps ?? []),
  ]);
  try {
    await enqueue('jobs', {
      kind: 'custom-field-delete',
      project_id: job.project_id,
      job_id: job.id,
    } satisfies CustomFieldJobMessage);
  } catch (err) {
    log.error('custom field job not queued', { job_id: job.id, ...errorFields(err) });
    const failed = { ...job, status: 'failed' as const, error: 'The job could not be queued. Please try again.' };
    await moveJob(job, failed);
    return failed;
  }
  return job;
}

/** GET /projects/{id}/custom-fields/jobs/{job_id}: any member. */
export async function getCustomFieldJob(ctx: AppContext, input: { project_id: string; job_id: string }) {
  const [, item] = await Promise.all([
    accessToProject(input.project_id, actorAccount(ctx).id),
    getItem(keys.customFieldJob(input.project_id, input.job_id)),
  ]);
  const job = customFieldJobEntity.decodeFound(item);
  if (!job) throw notFound(JOB_NOT_FOUND);
  return job;
}

const moveJob = (from: CustomFieldJob, to: CustomFieldJob) =>
  transact([
    putWhenStep(customFieldJobEntity.encode(jobKey(to), to), { status: from.status, updated_at: from.updated_at }),
  ]);

const LISTINGS = { service: serviceListing, service_floor: floorListing, network: networkListing } as const;

/** The write that takes `key` off one item as read now (its listing too while it is live). */
async function removeValue(ctx: AppContext, found: ItemValues, key: string): Promise<boolean> {
  const raw = await getItem(found.key);
  if (!raw) return false;
  const listing = LISTINGS[found.kind as CustomFieldKind];
  const item = listing.decode(raw) as { custom_fields?: CustomValues; updated_at: string };
  if (!item.custom_fields || !(key in item.custom_fields)) return false;
  const { [key]: _gone, ...rest } = item.custom_fields;
  const fields = { custom_fields: rest, updated_at: ctx.clock.now().toISOString() };
  const step: TransactStep[] = isLive(raw)
    ? listing.change(found.key, listing.decode(raw), fields as never, CASCADE_STALE)
    : [setWhenStep(found.key, fields, { updated_at: item.updated_at }, CASCADE_STALE)];
  await transact(step);
  return true;
}

/** The job (idempotent): every item's value of the key taken off, then the definition removed and the record finished. */
export async function runCustomFieldJob(
  ctx: AppContext,
  input: { project_id: string; job_id: string; lastAttempt: boolean },
) {
  const queued = customFieldJobEntity.decodeFound(await getItem(keys.customFieldJob(input.project_id, input.job_id)));
  if (!queued || queued.status === 'succeeded' || queued.status === 'failed') return;
  let job = queued;
  if (job.status === 'queued') {
    const running = { ...job, status: 'running' as const, updated_at: ctx.clock.now().toISOString() };
    await moveJob(job, running);
    job = running;
  }
  try {
    let updated = 0;
    for (const found of await projectItemValues(job.project_id)) {
      if (!(job.key in found.custom_fields)) continue;
      if (await retryWhenStale(() => removeValue(ctx, found, job.key))) updated++;
    }
    await retryWhenStale(async () => {
      const catalogue = await readCatalogue(job.project_id);
      const def = catalogue.definitions.find((d) => d.key === job.key);
      const now = ctx.clock.now().toISOString();
      const done = { ...job, status: 'succeeded' as const, items_updated: updated, updated_at: now, finished_at: now };
      await transact([
        ...(def?.status === 'deleting'
          ? [deleteStep(keys.customField(job.project_id, job.key)), catalogueMoveStep(catalogue, -1)]
          : []),
        putWhenStep(customFieldJobEntity.encode(jobKey(done), done), {
          status: job.status,
          updated_at: job.updated_at,
        }),
      ]);
    });
  } catch (err) {
    if (!input.lastAttempt) throw err;
    log.error('custom field job failed', { job_id: job.id, ...errorFields(err) });
    const now = ctx.clock.now().toISOString();
    await moveJob(job, {
      ...job,
      status: 'failed',
      error: 'The job failed. Please try again.',
      updated_at: now,
      finished_at: now,
    });
  }
}
