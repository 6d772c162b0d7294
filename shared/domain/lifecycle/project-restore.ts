import type { AppContext } from '#shared/context';
import { auditSteps, SERVICE_ACTOR } from '#shared/audit';
import { invalid } from '#shared/errors';
import { keys } from '#db/keys';
import { batchGet } from '#db/batch-get';
import { batchWrite } from '#db/batch-write';
import { queryPartition, queryPrefixPages } from '#db/query';
import { transact } from '#db/transact';
import { rebuildProjectListings } from '#domain/catalog';
import {
  isProjectItem,
  lookupKeys,
  restoreDiff,
  sideAccounts,
  sideItemPrefixes,
  type RestoreDiff,
  type StoredItem,
} from './project-restore-scope.ts';

/**
 * The copy step of the restore drill (docs/restore.md): one project's items from a restored copy of
 * the table (AWS point-in-time recovery into a new table) written back into the live table, the other
 * projects untouched. Reads the project's partition and its side items in both tables (Queries and
 * BatchGets, never a Scan), compares, and with `apply` writes the differences by BatchWriteItem,
 * rebuilds the project's listings and records one audit entry. The project should be left alone
 * while it runs (a change made meanwhile may be overwritten by the copy, or survive it).
 */

/** The audit action of a restore: not `project.restore` (that verb is an archived resource's return). */
export const PROJECT_RESTORE_ACTION = 'project.point_in_time_restore';
/** Writes sent per BatchWriteItem round of the copy (one progress step). */
const WRITE_CHUNK = 1_000;

export interface RestoreProgress {
  phase: 'read' | 'write' | 'listings';
  /** Items read from both tables so far. */
  read: number;
  /** Puts and deletes written so far, of `toWrite`. */
  written: number;
  toWrite: number;
}

export interface RestoreProjectInput {
  projectId: string;
  /** The restored copy (the PITR restore's new table). */
  fromTable: string;
  /** The point in time the copy was restored to, as the runbook's operator gives it (recorded in the audit entry). */
  restorePoint?: string | null;
  /** Without it, a dry run: the report of what would change, nothing written. */
  apply: boolean;
  onProgress?: (p: RestoreProgress) => void;
}

export interface RestoreReport {
  projectId: string;
  fromTable: string;
  applied: boolean;
  put: number;
  deleted: number;
  byKind: RestoreDiff['byKind'];
  /** Listing items the rebuild after the copy wrote or removed (0 and 0 when the copy was consistent). */
  listings?: { written: number; removed: number };
  auditEntryId?: string;
}

export const PROJECT_NOT_IN_COPY = (projectId: string, table: string) =>
  `Project ${projectId} is not in table ${table}: restore the table to a point in time when it existed.`;
export const PROJECT_GONE_LIVE = (projectId: string) =>
  `Project ${projectId} is not live in the live table: restore-project repairs a damaged project, it does not bring back a deleted one (docs/restore.md).`;

export async function restoreProject(ctx: AppContext, input: RestoreProjectInput): Promise<RestoreReport> {
  const { projectId, fromTable } = input;
  const progress = { phase: 'read' as RestoreProgress['phase'], read: 0, written: 0, toWrite: 0 };
  const tell = () => input.onProgress?.({ ...progress });

  const read = async (table?: string) => {
    const items: StoredItem[] = [];
    for await (const page of queryPrefixPages<StoredItem>(projectId, '', { table })) {
      items.push(...page);
      progress.read += page.length;
      tell();
    }
    return items;
  };
  const [restored, live] = await Promise.all([read(fromTable), read()]);
  const projectSK = keys.project(projectId).SK;
  if (!restored.some((i) => i.SK === projectSK)) throw invalid(PROJECT_NOT_IN_COPY(projectId, fromTable));
  const liveProject = live.find((i) => i.SK === projectSK);
  if (!liveProject || liveProject.deleted_at) throw invalid(PROJECT_GONE_LIVE(projectId));

  // Side items outside the partition, found from the partition's own items in either table.
  const partitions = [...restored, ...live];
  const side = async (table?: string) => {
    const found: StoredItem[] = [];
    const accounts = sideAccounts(projectId, partitions);
    const queried = await Promise.all(
      accounts.flatMap((userId) =>
        sideItemPrefixes(projectId).map((prefix) =>
          queryPartition<StoredItem>(keys.account(userId).PK, prefix, { table }),
        ),
      ),
    );
    found.push(...queried.flat().filter((i) => isProjectItem(projectId, i)));
    const lookups = await batchGet(lookupKeys(partitions), table);
    found.push(...([...lookups.values()] as StoredItem[]).filter((i) => isProjectItem(projectId, i)));
    progress.read += found.length;
    tell();
    return found;
  };
  const [restoredSide, liveSide] = await Promise.all([side(fromTable), side()]);

  const diff = restoreDiff(projectId, [...restored, ...restoredSide], [...live, ...liveSide]);
  const report: RestoreReport = {
    projectId,
    fromTable,
    applied: false,
    put: diff.puts.length,
    deleted: diff.deletes.length,
    byKind: diff.byKind,
  };
  if (!input.apply) return report;

  // Puts first, then deletes: a reader meanwhile sees at worst a leftover, never a restored item missing its lookup for long.
  const writes = [...diff.puts.map((put) => ({ put })), ...diff.deletes.map((key) => ({ delete: key }))];
  Object.assign(progress, { phase: 'write', toWrite: writes.length });
  tell();
  for (let i = 0; i < writes.length; i += WRITE_CHUNK) {
    await batchWrite(writes.slice(i, i + WRITE_CHUNK));
    progress.written += Math.min(WRITE_CHUNK, writes.length - i);
    tell();
  }

  progress.phase = 'listings';
  tell();
  const rebuilt = Object.values(await rebuildProjectListings(projectId));
  report.listings = {
    written: rebuilt.reduce((n, r) => n + r.written, 0),
    removed: rebuilt.reduce((n, r) => n + r.removed, 0),
  };

  const { steps, sk } = auditSteps(
    ctx,
    {
      action: PROJECT_RESTORE_ACTION,
      entity_type: 'project',
      entity_id: projectId,
      project_id: projectId,
      summary: {
        restore_point: input.restorePoint ?? null,
        restored_from: fromTable,
        put: report.put,
        deleted: report.deleted,
        listings: report.listings,
      },
    },
    { mode: 'creation' },
    { actor: SERVICE_ACTOR },
  );
  await transact(steps);
  report.auditEntryId = sk.split('#').at(-1);
  report.applied = true;
  return report;
}
