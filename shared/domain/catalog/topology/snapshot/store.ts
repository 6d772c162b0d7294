import { gunzipSync, gzipSync } from 'node:zlib';
import { batchGet, keyId } from '#db/batch-get';
import { batchWrite } from '#db/batch-write';
import { keys } from '#db/keys';
import { ROW_KINDS, type RowKind, type Rows } from './rows.ts';

/**
 * Where the snapshot is kept: in the table, beside nothing else (its own partition per environment).
 * Its rows are spread over `buckets` items by a hash of their id (a change rewrites one small bucket,
 * not the whole environment); each bucket is its rows as gzipped JSON. The head says how many buckets
 * there are, which generation (a rebuild starts a new one) and which version they hold. A reader gets
 * the head with its access check, then every bucket in one round of BatchGets.
 */

export interface SnapshotHead {
  generation: string;
  version: number;
  seen: number;
  seen_at?: string;
  built_at: string;
  buckets: number;
  format: number;
}
/** The layout of what is stored: a snapshot of another format is rebuilt. */
export const FORMAT = 1;

/** Rows per bucket a rebuild aims at (a bucket of ~100 rows gzips to a few KB: a change writes a few capacity units). */
const ROWS_PER_BUCKET = 100;
const MAX_BUCKETS = 1024;

/** How many buckets a rebuild spreads this many rows over: a power of two, at least 1, at most MAX_BUCKETS. */
export function bucketsFor(rows: number): number {
  let n = 1;
  while (n < MAX_BUCKETS && n * ROWS_PER_BUCKET < rows) n *= 2;
  return n;
}

/** The bucket of a row's id (FNV-1a). */
export function bucketOf(id: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % buckets;
}

export const emptyRows = (): Rows => ({
  services: [],
  groups: [],
  floors: [],
  networks: [],
  connections: [],
  links: [],
});

/** The head as stored (undefined when there is none). */
export function headOf(item: Record<string, unknown> | undefined): SnapshotHead | undefined {
  if (!item || typeof item.generation !== 'string') return undefined;
  return {
    generation: item.generation,
    version: Number(item.version ?? 0),
    seen: Number(item.seen ?? 0),
    seen_at: typeof item.seen_at === 'string' ? item.seen_at : undefined,
    built_at: String(item.built_at ?? ''),
    buckets: Number(item.buckets ?? 1),
    format: Number(item.format ?? 0),
  };
}

const encode = (rows: Rows) => gzipSync(JSON.stringify(rows), { level: 6 });
function decode(item: Record<string, unknown> | undefined): Rows {
  const z = item?.z;
  if (!(z instanceof Uint8Array)) return emptyRows();
  const parsed: Partial<Rows> = JSON.parse(gunzipSync(z).toString('utf8'));
  return { ...emptyRows(), ...parsed };
}

/** The buckets given, read in one round of BatchGets: each bucket's rows. */
export async function readBuckets(projectId: string, envId: string, numbers: number[]): Promise<Map<number, Rows>> {
  const bucketKeys = numbers.map((n) => keys.topologyBucket(projectId, envId, n));
  const found = await batchGet(bucketKeys);
  return new Map(numbers.map((n, i) => [n, decode(found.get(keyId(bucketKeys[i])))]));
}

/** Every row of the snapshot (all its buckets, one round of BatchGets). */
export async function readAllRows(projectId: string, envId: string, head: SnapshotHead): Promise<Rows> {
  const buckets = await readBuckets(
    projectId,
    envId,
    Array.from({ length: head.buckets }, (_, n) => n),
  );
  const all = emptyRows();
  for (const rows of buckets.values()) for (const kind of ROW_KINDS) (all[kind] as unknown[]).push(...rows[kind]);
  return all;
}

/** Writes buckets (each whole); `drop` removes buckets a smaller rebuild no longer uses. */
export async function writeBuckets(projectId: string, envId: string, buckets: Map<number, Rows>, drop: number[] = []) {
  await batchWrite([
    ...[...buckets].map(([n, rows]) => ({ put: { ...keys.topologyBucket(projectId, envId, n), z: encode(rows) } })),
    ...drop.map((n) => ({ delete: keys.topologyBucket(projectId, envId, n) })),
  ]);
}

/** Rows spread over `n` buckets. */
export function spread(rows: Rows, n: number): Map<number, Rows> {
  const buckets = new Map<number, Rows>(Array.from({ length: n }, (_, i) => [i, emptyRows()]));
  for (const kind of ROW_KINDS)
    for (const row of rows[kind] as { id: string }[]) (buckets.get(bucketOf(row.id, n))![kind] as unknown[]).push(row);
  return buckets;
}

/** Replaces (or removes, `row` undefined) the row `id` of `kind` in a bucket's rows. */
export function putRow(rows: Rows, kind: RowKind, id: string, row: Record<string, unknown> | undefined) {
  const list = rows[kind] as { id: string }[];
  const at = list.findIndex((r) => r.id === id);
  if (at >= 0) list.splice(at, 1);
  if (row) list.push(row as { id: string });
}
