import { randomUUID } from 'node:crypto';
import { batchGet, keyId } from '#db/batch-get';
import { getItem } from '#db/items';
import { keys } from '#db/keys';
import { noteSeen, settleHead } from '#db/view-head';
import { changeOfKey, itemKeyOf, readRows, ROW_KINDS, rowOf, type TopologyChange } from './rows.ts';
import {
  bucketOf,
  bucketsFor,
  FORMAT,
  headOf,
  putRow,
  readBuckets,
  spread,
  writeBuckets,
  type SnapshotHead,
} from './store.ts';

/**
 * The snapshot's keeper: what the table stream (the local runtime's stand-in for it) says changed is
 * applied to the environment's snapshot, off the write's path. Each change names an item; the item is
 * read as it is now (a BatchGet), so a change delivered twice or late applies the present state, never
 * an older one. Per environment and batch: `seen` is moved first, then the changed rows' buckets are
 * rewritten, then `version` is set to that `seen`; a keeper that fails in between leaves the head
 * behind (`seen` > `version`), which the next read repairs by a rebuild (read.ts).
 */

/** Above this many changes of one environment in one batch (an import), a rebuild reads less than item by item. */
const REBUILD_FROM = 500;

/** The changes among the keys of written items (other items are ignored). */
export function topologyChangesOf(written: { PK?: unknown; SK?: unknown }[]): TopologyChange[] {
  const found = new Map<string, TopologyChange>();
  for (const k of written) {
    const change = changeOfKey(k.PK, k.SK);
    if (change) found.set(`${change.projectId}#${change.envId}#${change.kind}#${change.id}`, change);
  }
  return [...found.values()];
}

/** Applies a batch of changes, environment by environment. */
export async function applyTopologyChanges(changes: TopologyChange[], now: Date): Promise<void> {
  const byEnv = new Map<string, TopologyChange[]>();
  for (const c of changes) {
    const env = `${c.projectId}#${c.envId}`;
    const list = byEnv.get(env);
    if (list) list.push(c);
    else byEnv.set(env, [c]);
  }
  for (const list of byEnv.values()) await applyToEnvironment(list[0].projectId, list[0].envId, list, now);
}

async function applyToEnvironment(projectId: string, envId: string, changes: TopologyChange[], now: Date) {
  const headKey = keys.topologyHead(projectId, envId);
  const head = headOf(await getItem(headKey));
  const seen = await noteSeen(headKey, now.toISOString());
  if (!head || head.format !== FORMAT || changes.length > REBUILD_FROM) {
    await rebuild(projectId, envId, seen, now, head);
    return;
  }
  const items = await batchGet(changes.map(itemKeyOf));
  const buckets = await readBuckets(projectId, envId, [...new Set(changes.map((c) => bucketOf(c.id, head.buckets)))]);
  for (const c of changes)
    putRow(buckets.get(bucketOf(c.id, head.buckets))!, c.kind, c.id, rowOf(c.kind, items.get(keyId(itemKeyOf(c)))));
  await writeBuckets(projectId, envId, buckets);
  await settleHead(headKey, { version: seen });
}

/**
 * Builds the environment's snapshot afresh from its items (one parallel round of Queries): a new
 * generation at version `seen`. Its first read, a head left behind, an import's many changes.
 */
async function rebuild(projectId: string, envId: string, seen: number, now: Date, previous?: SnapshotHead) {
  const rows = await readRows(projectId, envId);
  const n = bucketsFor(ROW_KINDS.reduce((sum, kind) => sum + rows[kind].length, 0));
  const unused = previous && previous.buckets > n ? Array.from({ length: previous.buckets - n }, (_, i) => n + i) : [];
  await writeBuckets(projectId, envId, spread(rows, n), unused);
  const head: Omit<SnapshotHead, 'seen' | 'seen_at'> = {
    generation: randomUUID(),
    version: seen,
    built_at: now.toISOString(),
    buckets: n,
    format: FORMAT,
  };
  await settleHead(keys.topologyHead(projectId, envId), head);
}

/** Rebuilds an environment's snapshot now (its read when there is none, or when its head was left behind). */
export async function rebuildTopology(projectId: string, envId: string, now: Date): Promise<void> {
  const headKey = keys.topologyHead(projectId, envId);
  const head = headOf(await getItem(headKey));
  await rebuild(projectId, envId, head?.seen ?? 0, now, head);
}
