import { keys } from '#db/keys';
import { getItem } from '#db/items';
import { queryRange } from '#db/query';
import { advanceNumberStep } from '#db/sequence';
import { putStep } from '#db/steps';
import { concurrentChange, transact } from '#db/transact';
import { epochSeconds } from '#shared/context';
import type { EntityChange, LiveKind, LiveOp } from './changes.ts';

/**
 * An environment's changes, numbered (docs/decisions/0985): the stream's consumer gives each the next
 * `seq` of its environment, in stream order, in one transaction with the counter (moved from the value
 * it read, so two writers can never give one number twice, nor skip one), and keeps it 24 hours for a
 * client that resumes (`since`). The counter also keeps the last stream record it counted: a batch the
 * stream delivers again is not counted twice.
 */

/** What a follower receives for each change. */
export interface LiveMessage {
  seq: number;
  kind: LiveKind;
  id: string;
  op: LiveOp;
  at: string;
  item?: unknown;
}

/** Changes are kept this long: a `since` older than that answers "reload". */
export const KEPT_SECONDS = 24 * 3600;
/** Changes numbered per transaction (the counter's update is the hundredth write). */
const PER_TRANSACTION = 99;

/** The stream's record numbers grow within a shard; as numbers, not text (their lengths differ). */
const after = (a: string, b: string | undefined) => !b || BigInt(a) > BigInt(b);

/** An environment's counter: its last `seq` (0: none yet) and the last stream record it counted. */
export async function counterOf(envId: string): Promise<{ seq: number; lastSource?: string }> {
  const c = await getItem<{ seq?: number; last_source?: string }>(keys.liveSeq(envId));
  return { seq: Number(c?.seq ?? 0), lastSource: c?.last_source };
}

/** Numbers and keeps one environment's changes (in stream order); answers them as sent. */
export async function recordChanges(envId: string, changes: EntityChange[], now: Date): Promise<LiveMessage[]> {
  const counter = await counterOf(envId);
  let last = counter.seq;
  const fresh = changes.filter((c) => after(c.source, counter.lastSource));
  const out: LiveMessage[] = [];
  const expires = epochSeconds(now) + KEPT_SECONDS;
  for (let i = 0; i < fresh.length; i += PER_TRANSACTION) {
    const chunk = fresh.slice(i, i + PER_TRANSACTION);
    const messages = chunk.map(
      (c, j): LiveMessage => ({
        seq: last + j + 1,
        kind: c.kind,
        id: c.id,
        op: c.op,
        at: c.at,
        ...(c.item === undefined ? {} : { item: c.item }),
      }),
    );
    await transact([
      advanceNumberStep(
        keys.liveSeq(envId),
        'seq',
        last,
        chunk.length,
        { last_source: chunk.at(-1)!.source, project_id: chunk[0].projectId, type: 'live_seq' },
        concurrentChange(),
      ),
      ...messages.map((m) =>
        putStep({ ...keys.liveChange(envId, m.seq), type: 'live_change', message: m, expires_at_epoch: expires }),
      ),
    ]);
    last += chunk.length;
    out.push(...messages);
  }
  return out;
}

/**
 * The kept changes after `since` up to `upTo`, in order; undefined when they are no longer all kept
 * (older than 24 hours: the first one after `since` is gone), so the client must reload.
 */
export async function changesAfter(envId: string, since: number, upTo: number, now: Date) {
  if (since >= upTo) return [];
  const items = await queryRange<{ message: LiveMessage; expires_at_epoch: number }>(
    keys.livePK(envId),
    keys.liveChange(envId, since + 1).SK,
    keys.liveChange(envId, upTo).SK,
  );
  // TTL removes an expired item within a day or two, not at once: one past its time counts as gone.
  const kept = items.filter((i) => i.expires_at_epoch > epochSeconds(now)).map((i) => i.message);
  return kept.length === upTo - since && kept[0]?.seq === since + 1 ? kept : undefined;
}
