import { DomainError } from '#shared/errors';
import type { Key } from './batch-get.ts';
import { batchWrite } from './batch-write.ts';
import { conditionalPut, conditionalUpdate } from './items.ts';
import { queryPrefix } from './query.ts';
import { IF_ABSENT, IF_EXISTS, putNewStep } from './steps.ts';
import { concurrentChange, transact, type TransactStep } from './transact.ts';

/**
 * A write of many new items that would cost a transaction per 100 of them (an import's chunk):
 * its conditions are committed in small transactions around a BatchWriteItem of the items, and a
 * journal makes the whole undoable, so that it is never left half done.
 *
 * 1. open: the conditional steps that must hold before any item is seen (counters moved with their
 *    limits, name claims), committed with the journal: the keys it writes and the steps undoing `open`.
 * 2. the items, by BatchWriteItem (fresh keys, unconditional, idempotent).
 * 3. close: the conditions that must still hold once the items are there (what they refer to is
 *    live, the environment's connections did not change), committed with the journal's removal.
 *
 * A refused `open` wrote nothing. A refused `close` (or a failure after `open`) undoes the write:
 * its items and claims are deleted, `open`'s counters moved back, the journal removed, and the
 * refusal is thrown. A process that dies between 1 and 3 leaves the journal, which its owner's
 * retry (or anyone, once it is stale) undoes with `undoStagedWrites`. Until 3 commits, readers may
 * see some of the items (as they see an import progress); the counters count them from 1 on.
 */
export interface StagedWrite {
  /** Where the journal lives (its sort key under the prefix `undoStagedWrites` reads). */
  journal: Key;
  /** Who writes it (an import's id): its own retry undoes what it left. */
  owner: string;
  open: TransactStep[];
  items: Record<string, unknown>[];
  close: TransactStep[];
  /** Takes `open`'s counters back (each an Update that holds whenever `open` committed). */
  undo: TransactStep[];
  /** Awaited once the items are written, before closing (a writer's turn to close); what it throws undoes the write. */
  beforeClose?: () => Promise<void>;
}

interface Journal extends Key {
  type: 'staged_write';
  owner: string;
  created_at: string;
  /** Every key the write creates (`open`'s Puts and the items), deleted when it is undone: one string (see `packKeys`), cheap to write and read. */
  keys: string;
  /** The steps taking `open` back (their refusals left out). */
  undo: TransactStep[];
  undoing?: boolean;
}

/** Refusal of a close whose journal an undo has claimed meanwhile (a retry of the same owner, a stale write's recovery). */
const UNDONE = concurrentChange();

/** Keys as lines of `PK<tab>SK`, the journal's own partition key written `~` (most keys share it). */
const packKeys = (pk: string, keys: Key[]) =>
  keys.map((k) => `${k.PK.startsWith(pk) ? `~${k.PK.slice(pk.length)}` : k.PK}\t${k.SK}`).join('\n');
const unpackKeys = (pk: string, packed: string): Key[] =>
  packed
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [p, SK] = line.split('\t');
      return { PK: p.startsWith('~') ? pk + p.slice(1) : p, SK };
    });

/** A step without its refusal (what the journal keeps: DomainErrors are not data). */
const plain = ({ failWith: _f, beside: _b, ...step }: TransactStep): TransactStep => step;

export async function stagedWrite(write: StagedWrite, now: string): Promise<void> {
  const journal: Journal = {
    ...write.journal,
    type: 'staged_write',
    owner: write.owner,
    created_at: now,
    keys: packKeys(write.journal.PK, [
      ...write.open.flatMap((s) => (s.Put ? [s.Put.Item as Key] : [])),
      ...(write.items as Key[]),
    ]),
    undo: write.undo.map(plain),
  };
  // Nothing conditional to open with: the journal alone (no transaction needed for one item).
  if (write.open.length) await transact([...write.open, putNewStep(journal as never)]);
  else if (!(await conditionalPut(journal as never, IF_ABSENT))) throw new Error('A staged write opened twice');
  try {
    await batchWrite(write.items.map((put) => ({ put })));
    await write.beforeClose?.();
    await transact([
      ...write.close,
      {
        Delete: {
          Key: write.journal,
          ConditionExpression: `${IF_EXISTS.ConditionExpression} AND attribute_not_exists(undoing)`,
        },
        failWith: UNDONE,
      },
    ]);
  } catch (err) {
    // Undone whatever went wrong: a refusal (the answer stays the refusal) or an error (thrown again; a retry finds the journal if this undo fails too).
    await undoStagedWrite(write.journal).catch(() => {});
    throw err;
  }
}

/**
 * Undoes one staged write if its journal is still there: claims the journal (so a close can no
 * longer commit), deletes every key it lists, then moves `open`'s counters back with the journal's
 * removal (once: whoever removes the journal). Idempotent; answers whether there was one to undo.
 */
export async function undoStagedWrite(key: Key): Promise<boolean> {
  const claimed = await conditionalUpdate(key, {
    UpdateExpression: 'SET undoing = :yes',
    ...IF_EXISTS,
    ExpressionAttributeValues: { ':yes': true },
    ReturnValues: 'ALL_NEW',
  });
  if (!claimed.ok) return false;
  const journal = claimed.item as unknown as Journal;
  await batchWrite(unpackKeys(journal.PK, journal.keys).map((k) => ({ delete: k })));
  const removal: TransactStep = { Delete: { Key: key, ...IF_EXISTS } };
  try {
    await transact([...journal.undo, removal]);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // Another undo removed it first, or a counter's item is gone (its project deleted): the journal goes alone.
    await transact([removal]).catch((e) => {
      if (!(e instanceof DomainError)) throw e;
    });
  }
  return true;
}

/** Staged writes left by a process that stopped are stale after this: no Lambda runs longer (15 minutes). */
export const STAGED_STALE_MS = 15 * 60 * 1000;

/**
 * Undoes the staged writes under `prefix` of a project's partition that `owner` left (its retry) or
 * that are stale (their owner stopped without a retry). Answers how many it undid.
 */
export async function undoStagedWrites(projectId: string, prefix: string, owner: string, now: Date): Promise<number> {
  const journals = await queryPrefix<Journal>(projectId, prefix, { projection: ['PK', 'SK', 'owner', 'created_at'] });
  const left = journals.filter((j) => j.owner === owner || now.getTime() - Date.parse(j.created_at) > STAGED_STALE_MS);
  let undone = 0;
  for (const j of left) if (await undoStagedWrite({ PK: j.PK, SK: j.SK })) undone++;
  return undone;
}
