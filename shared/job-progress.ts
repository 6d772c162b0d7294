import * as z from 'zod';
import { lazySchema } from './lazy-schema.ts';

/**
 * How far a job has come (an import, a discovery run): what its record shows and its progress messages carry. One
 * rule for every kind of job: its progress never goes back (decision 1026).
 */
export interface JobProgress {
  pct: number;
  done: number;
  total: number;
}

/** A job record's progress field, as its entity reads it (nothing yet: 0 of 0). */
export const jobProgressSchema = lazySchema(() =>
  z.object({ pct: z.int(), done: z.int(), total: z.int() }).default({ pct: 0, done: 0, total: 0 }),
);

/** The progress at `done` of `total` steps (a job with nothing to do is done). */
export const progressAt = (done: number, total: number): JobProgress => ({
  pct: total ? Math.floor((done / total) * 100) : 100,
  done,
  total,
});

/**
 * Whether writing `next` would send back the progress a job's record shows. A pass that starts over (an import
 * planned again, a job the queue tries again) writes nothing until it passes what was shown.
 */
export const goesBack = (shown: JobProgress, next: JobProgress): boolean => next.pct < shown.pct;
