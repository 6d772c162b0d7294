import { keys } from '#db/keys';
import { transact, type TransactStep, concurrentChange } from '#db/transact';
import { invalid, type DomainError } from '#shared/errors';
import { ENV_NOT_IN_PROJECT, type Environment } from '#domain/tenancy';
import type { Connection } from '../connection-entity.ts';
import { isLive, setFieldsStep } from '#db/live';
import { countIs } from '#db/counter-moves';
import { getItem } from '#db/items';
import { onContention } from '#db/retry';
import { forEachAtMost } from '#shared/concurrency';
import { connectionListing } from '../listings.ts';
import { DUPLICATE_CONNECTION } from './limits-and-refusals.ts';
import type { ConnectionSpec } from './items.ts';

/**
 * What makes two connections duplicates: the same two ends and the same effective direction
 * (a→b `a_to_b` is b→a `b_to_a`; `both` and `none` do not depend on which end is a).
 */
export function pairKey(c: Pick<ConnectionSpec, 'a_type' | 'a_id' | 'b_type' | 'b_id' | 'direction'>): string {
  const a = `${c.a_type}:${c.a_id}`;
  const b = `${c.b_type}:${c.b_id}`;
  if (c.direction === 'a_to_b') return `${a}>${b}`;
  if (c.direction === 'b_to_a') return `${b}>${a}`;
  return `${[a, b].sort().join('|')}|${c.direction}`;
}

type VersionedEnv = Environment & { connections_version?: number };

/** Thrown when another connection write in the environment committed between our read and our write: read again. */
const TOPOLOGY_CHANGED = concurrentChange();

/**
 * Writes that could make a duplicate (creating, changing a direction) take turns per environment:
 * the live connections are read with the environment's `connections_version`, the new pairs
 * checked against them (400 for a duplicate), and the transaction moves the version on, on
 * condition that it is still the one read and the environment still live. A concurrent write
 * makes it read again; a deleted environment is the usual 400.
 */
export async function withoutDuplicates(
  projectId: string,
  /** The environment as the caller's access read it: the first attempt's version (read before the list, as it must be). */
  readEnv: VersionedEnv,
  pairs: { specs: ConnectionSpec[]; replacing?: Set<string> },
  steps: (versionStep: TransactStep) => TransactStep[],
): Promise<void> {
  const envId = readEnv.id;
  await onContention(
    async (attempt) => {
      const envKey = keys.environment(projectId, envId);
      // The version first, then the connections: a write committed after the version was read moves
      // it on and fails ours; one committed before is in the list (read in parallel, the list could
      // predate a write the version already counts).
      const env = attempt === 1 ? readEnv : await getItem<VersionedEnv>(envKey);
      if (!isLive(env)) throw invalid(ENV_NOT_IN_PROJECT);
      const existing = await connectionsBetween(projectId, envId, pairs.specs);
      const taken = new Set(existing.filter((c) => !pairs.replacing?.has(c.id)).map(pairKey));
      for (const spec of pairs.specs) {
        const key = pairKey(spec);
        if (taken.has(key)) throw invalid(DUPLICATE_CONNECTION);
        taken.add(key);
      }
      await transact(steps(connectionsVersionStep(projectId, envId, env!.connections_version ?? 0, TOPOLOGY_CHANGED)));
    },
    (err) => err === TOPOLOGY_CHANGED,
  );
}

/** Listing ranges read at once by the duplicate check (a chain-wide change names up to 100 ends). */
const RANGES_IN_FLIGHT = 16;
/** The listings first read of each end: an end with fewer has been read whole. */
export const END_PROBE = 50;

type EndListing = { id: string; a_id?: string; b_id?: string };

/**
 * The live connections joining the two ends of one of `specs`, whatever their direction: the only
 * ones a duplicate can be. The first END_PROBE listings of each end are read; a pair is
 * then decided by an end read whole, whose listings name their other end, so a new connection to a
 * hub costs the quieter end's connections, not the hub's. Only when both ends of a pair have more
 * is one of them read on. A listing without its ends (written before they were held, until the
 * backfill) counts as joining. A live connection always has its listings (they commit with it or
 * before it).
 */
async function connectionsBetween(projectId: string, envId: string, specs: ConnectionSpec[]): Promise<Connection[]> {
  const read = (end: string, limit?: number) =>
    connectionListing.page<EndListing>(projectId, envId, { offset: 0, limit, place: end });
  const listed = new Map<string, EndListing[]>();
  await forEachAtMost([...new Set(specs.flatMap((s) => [s.a_id, s.b_id]))], RANGES_IN_FLIGHT, async (end) => {
    listed.set(end, await read(end, END_PROBE));
  });
  const whole = new Set([...listed].filter(([, l]) => l.length < END_PROBE).map(([end]) => end));
  const busy = new Set(specs.filter((s) => !whole.has(s.a_id) && !whole.has(s.b_id)).map((s) => s.a_id));
  await forEachAtMost([...busy], RANGES_IN_FLIGHT, async (end) => {
    listed.set(end, await read(end));
    whole.add(end);
  });
  const joining = new Set<string>();
  for (const s of specs) {
    const [end, other] = whole.has(s.a_id) ? [s.a_id, s.b_id] : [s.b_id, s.a_id];
    for (const l of listed.get(end)!) {
      if (l.a_id === undefined || l.b_id === undefined || (l.a_id === end ? l.b_id : l.a_id) === other)
        joining.add(l.id);
    }
  }
  return connectionListing.entities(
    projectId,
    envId,
    [...joining].map((id) => ({ id })),
  );
}

/**
 * The step every write that could make a duplicate commits with (see withoutDuplicates, and the
 * import): the environment's `connections_version` moves on from `version`, on condition that it
 * is still that and the environment live; otherwise `failWith`.
 */
export const connectionsVersionStep = (
  projectId: string,
  envId: string,
  version: number,
  failWith: DomainError,
): TransactStep =>
  // A version is never stored as 0 (it starts at 1), so countIs's "absent or 0" for 0 is "absent".
  setFieldsStep(
    keys.environment(projectId, envId),
    { connections_version: version + 1 },
    failWith,
    countIs('connections_version', version),
  );
