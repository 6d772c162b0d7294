import { keys } from '#db/keys';
import { undoStagedWrites } from '#db/staged-write';
import { concurrentChange } from '#db/transact';
import type { AppContext } from '#shared/context';
import type { ImportPlan } from './plan.ts';
import { summarize, type ImportReport } from './report.ts';
import type { ImportAudit } from './unit-writes.ts';
import { walk } from './walk.ts';
import { STAGED_ITEMS, Writer } from './writer.ts';

/**
 * Undoes the staged chunks an interrupted run of import `importId` left in its environment (its
 * retry runs this before planning again), and stale ones any stopped import left there.
 */
export const undoInterruptedImport = (projectId: string, envId: string, importId: string, now: Date) =>
  undoStagedWrites(projectId, keys.stagedWritePrefix(envId), importId, now);

/**
 * Thrown by `applyImport` when a chunk was refused because the custom field definitions changed since
 * the plan checked the document's values against them: what committed before stays (it was written
 * under the definitions the plan read), the refused chunk is undone, and the import plans again.
 */
export const DEFINITIONS_CHANGED = concurrentChange();

/**
 * Applies a plan without errors: its units in order, in chunks; the service counters of each chunk
 * moved with the plan's limit before its items are written (so concurrent creates can never take
 * the import past the limit: the chunk is refused and the import stops with the limit's message).
 * A chunk of updates is one transaction; a chunk of creates is a staged write (db/staged-write.ts):
 * its counters and claims committed with a journal, its new items by BatchWriteItem, its guards
 * checked again as it closes, and the whole undone if anything refuses or fails in between. A chunk
 * that writes custom values holds on the definitions' version the plan read (DEFINITIONS_CHANGED).
 * `onProgress(done, total)` follows each committed chunk; `halt()` true stops it at a chunk boundary. What was committed stays (each chunk is
 * whole); planning again and applying finishes the work, as everything is matched by name. A plan
 * with errors writes nothing.
 *
 * The units are planned again from the plan's source a slice at a time and written as they come,
 * never all held at once (a 50,000-service import plans some 200,000 of them).
 */
export async function applyImport(
  plan: ImportPlan,
  ctx: AppContext,
  onProgress?: (done: number, total: number) => void | Promise<void>,
  audit?: ImportAudit,
  /** Items a chunk of creates writes by BatchWriteItem at most (tests make chunks small). */
  stagedItems = STAGED_ITEMS,
  /** Asked at each chunk boundary: true stops the import there (a cancel); a chunk in flight is undone. */
  halt?: () => boolean,
): Promise<ImportReport> {
  if (plan.report.errors.length || !plan.source) return plan.report;
  await onProgress?.(0, plan.total);
  const writer = new Writer(plan, ctx, onProgress, audit, stagedItems, halt);
  let item = 0;
  const { document: doc, env, serviceLimit } = plan.source;
  await walk({ projectId: plan.projectId, envId: plan.environmentId, doc, env, serviceLimit }, ctx, {
    record: () => item++,
    error: () => {},
    units: (units) => writer.units(units),
    close: (phase) => writer.close(phase),
  });
  await writer.finish();
  if (writer.definitionsChanged) throw DEFINITIONS_CHANGED;
  if (!writer.stopped) return plan.report;
  const detail = writer.halted ? 'not applied: the import was cancelled' : 'not applied: the import stopped';
  const items = plan.report.items.map((i, n) =>
    writer.notApplied.has(n) ? { ...i, action: 'error' as const, detail } : i,
  );
  return { summary: summarize(items, writer.errors), items, errors: writer.errors };
}
