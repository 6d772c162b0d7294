import type { SQSEvent } from 'aws-lambda';
import { workerTable } from '../../functions/workers/index.ts';
import { recordById } from '#domain/impex';

/** Holds the next job the jobs worker is handed (of those `holds` picks) until `release`; every other job passes. */
export async function holdingFirstJob<T>(
  body: (release: () => void) => Promise<T>,
  holds: (e: SQSEvent) => Promise<boolean> = async () => true,
): Promise<T> {
  const jobs = workerTable.jobs!;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = false;
  const handler: typeof jobs.handler = async (e) => {
    // Checked again after the await: only one job is held.
    if (!held && (await holds(e)) && !held) {
      held = true;
      await gate;
    }
    return jobs.handler(e);
  };
  workerTable.jobs = { ...jobs, handler };
  try {
    return await body(release);
  } finally {
    release();
    workerTable.jobs = jobs;
  }
}
/** An import that writes (not a plan). */
export const writesItems = async (e: SQSEvent) => {
  const id = (JSON.parse(e.Records[0].body) as { record_id?: string }).record_id;
  return !!id && (await recordById(id))?.dry_run === false;
};
