import { ARCHIVABLE_KINDS, type ArchivableKind, type ArchiveReport } from './selection.ts';
import type { RunResult } from './archive-batch.ts';

/** What an archive or restore request answers: the units done, per kind, and those refused. */

/** What an archive or restore request did: counts and items per kind, and each resource refused after others were written. */
export interface ArchiveOutcome {
  counts: Record<ArchivableKind, number>;
  items: ArchiveReport;
  refused: { kind: ArchivableKind; id: string; detail: string }[];
}

const emptyReport = (): ArchiveReport =>
  Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, []])) as unknown as ArchiveReport;

export function outcomeOf(result: RunResult): ArchiveOutcome {
  const items = emptyReport();
  for (const unit of result.done) items[unit.kind].push({ id: unit.id, name: unit.name });
  const counts = Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, items[k].length])) as Record<
    ArchivableKind,
    number
  >;
  const refused = result.refused.map(({ unit, error }) => ({
    kind: unit.kind,
    id: unit.id,
    detail: String(error.detail),
  }));
  return { counts, items, refused };
}
