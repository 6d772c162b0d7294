import type { ImportReport } from './import/index.ts';

/**
 * What a record keeps of a report: the whole summary, and the first REPORT_LIST_MAX items and
 * errors. A DynamoDB item holds 400 KB: the report of an import of 50,000 services (some 200,000
 * items) would not fit, and the job could never finish.
 */
const REPORT_LIST_MAX = 1000;
export const kept = <
  R extends Pick<ImportReport, 'summary'> & {
    items: unknown[];
    errors: unknown[];
    extras?: unknown[];
    deleted?: unknown[];
  },
>(
  report: R,
): R => {
  const first = <T>(list: T[] | undefined) => list?.slice(0, REPORT_LIST_MAX);
  return {
    ...report,
    items: first(report.items),
    errors: first(report.errors),
    ...(report.extras ? { extras: first(report.extras) } : {}),
    ...(report.deleted ? { deleted: first(report.deleted) } : {}),
  };
};
