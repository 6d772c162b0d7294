import { randomUUID } from 'node:crypto';
import { TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { conflict, DomainError } from '#shared/errors';
import { onContention, retry } from './retry.ts';
import { isOutage } from '#shared/outage';

type Write = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Op = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/**
 * One write of a transaction (the table is this layer's business), with the refusal to give when its
 * condition is what failed. `beside` marks an unconditional Put that may commit before the others
 * (and a Delete after them) when the whole does not fit one transaction: index items whose readers
 * skip an entry whose entity is absent (connection listings, catalog/listing.ts).
 */
export type TransactStep = { [K in Op]?: Omit<NonNullable<Write[K]>, 'TableName'> } & {
  failWith?: DomainError;
  beside?: 'before' | 'after';
  headMove?: HeadMove;
};

/**
 * On an entry that becomes its entity's latest (shared/audit.ts): the entity's write in the same
 * transaction stores `head` as its `audit_head`, replacing `previous` (the head it read), whose TTL
 * the same transaction sets. `transact` conditions that write on the head still being `previous`:
 * of two updates that read one head, the second would otherwise replace the first's entry as the
 * head with nothing ever setting that entry's TTL. When only heads moved, the transaction is tried
 * again re-targeted at the head now there (`HeadMoved`), up to HEAD_ROUNDS times, then refused with
 * CASCADE_STALE (re-run from a new read); any other failed condition keeps its step's refusal.
 */
export interface HeadMove {
  head: string;
  previous: string | null;
}
const HEAD_FIELD = 'audit_head';

export const CONCURRENT_CHANGE = 'The request conflicted with a concurrent change. Please retry.';
/** Seconds a client waits before retrying a lost race (`Retry-After`): by then its contenders are done. */
const LOST_RACE_RETRY_AFTER = 1;
/**
 * The 409 for a write that lost a race (its retries spent, `onContention`), with `Retry-After`: the
 * same request again may well succeed, and clients retry it as they retry a 503. Each
 * caller keeps its own instance when a retry loop compares by identity.
 */
export const concurrentChange = () => conflict(CONCURRENT_CHANGE, LOST_RACE_RETRY_AFTER);

/** Real DynamoDB cancels transactions that contend for an item (DynamoDB Local never does). */
class Contended extends Error {}

/** The steps as TransactWriteItems for the one table. */
export const toTransactItems = (steps: TransactStep[]): Write[] => {
  const TableName = config().TABLE_NAME;
  return steps.map(
    ({ failWith: _f, beside: _b, headMove: _h, ...ops }) =>
      Object.fromEntries(Object.entries(ops).map(([op, body]) => [op, { TableName, ...body }])) as Write,
  );
};

/**
 * Runs a TransactWriteItems. When a condition fails, the step's `failWith` is thrown (the first
 * failing step in order), so callers state each refusal next to the write it guards; a failed
 * condition without one is a 409. A TransactionConflict is retried as a lost race (`onContention`),
 * and answered 409 with Retry-After if it persists. An outage (throttled, failed, timed out: `isOutage`) is retried a
 * little longer with the same token: the transaction may have taken effect, and DynamoDB answers
 * the same call "done" then, so the caller learns what happened instead of failing a write that
 * was made (a client's retry would make it twice: a second item, or a misleading refusal).
 */
export async function transact(given: TransactStep[], token?: string): Promise<void> {
  if (given.length > TRANSACTION_LIMIT && given.some((s) => s.beside)) return transactBeside(given, token);
  let steps = given;
  for (let round = 1; ; round++) {
    try {
      // A re-targeted try is another transaction: a token of its own (the refused one did nothing).
      return await transactOnce(steps, round === 1 ? token : undefined);
    } catch (err) {
      if (!(err instanceof HeadMoved)) throw err;
      if (round >= HEAD_ROUNDS) throw CASCADE_STALE;
      steps = err.retargeted;
    }
  }
}

/**
 * Only audit heads moved under the transaction (a concurrent audited change of the same entity
 * committed between its read and its write): nothing else it read is stale, so it is tried again
 * as the change after that one, its entry replacing the head now there (whose TTL it sets) rather
 * than the one read. Last writer wins, as the fields themselves do; every replaced entry expires.
 */
class HeadMoved extends Error {
  readonly retargeted: TransactStep[];

  constructor(retargeted: TransactStep[]) {
    super('audit head moved');
    this.retargeted = retargeted;
  }
}
/** Tries of one transaction re-targeted at a moved head before it is refused as stale (re-run from a new read). */
const HEAD_ROUNDS = 6;

async function transactOnce(given: TransactStep[], token?: string): Promise<void> {
  const { steps, heads } = guardHeads(given);
  const TransactItems = toTransactItems(steps);
  // Always a token. Once a try may have taken effect, every later try keeps its token: DynamoDB
  // answers it "done" if it did (a try refused by a conflict did nothing, and the next gets a new one).
  let ClientRequestToken = token ?? randomUUID();
  let mayHaveTakenEffect = false;
  const send = async () => {
    try {
      await ddb().send(new TransactWriteCommand({ TransactItems, ClientRequestToken }));
    } catch (err) {
      if (inDoubt(err)) mayHaveTakenEffect = true;
      throw err;
    }
  };
  try {
    await onContention(
      async (attempt) => {
        if (attempt > 1 && !mayHaveTakenEffect && !token) ClientRequestToken = randomUUID();
        try {
          await retry(send, { attempts: OUTAGE_ATTEMPTS, when: inDoubt, baseMs: 100 });
        } catch (err) {
          if (!(err instanceof TransactionCanceledException)) throw err;
          const reasons = err.CancellationReasons ?? [];
          const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
          if (failed.length) {
            const moved = failed.map((i) => movedHead(heads.get(i), reasons[i].Item));
            if (moved.every((h) => h !== undefined))
              throw new HeadMoved(
                retarget(
                  given,
                  failed.map((i, n) => [heads.get(i)!.move, moved[n]!] as const),
                ),
              );
            throw steps[failed[0]]?.failWith ?? concurrentChange();
          }
          if (reasons.some((r) => r.Code === 'TransactionConflict')) throw new Contended();
          throw err;
        }
      },
      (err) => err instanceof Contended,
    );
  } catch (err) {
    if (err instanceof Contended) throw concurrentChange();
    throw err;
  }
}

/**
 * The head a guarded write found (its old image) when it is not the one read and the item is still
 * there and not deleted (a deleted one is the write's own refusal); undefined otherwise.
 */
function movedHead(
  guard: { move: HeadMove } | undefined,
  old: Record<string, AttributeValue> | undefined,
): string | undefined {
  if (!guard || !old || (old.deleted_at && !old.deleted_at.NULL)) return undefined;
  const head = old[HEAD_FIELD] ? (unmarshall({ h: old[HEAD_FIELD] }).h as string | null) : null;
  return head && head !== guard.move.previous ? head : undefined;
}

/**
 * The steps with each moved head's entry re-targeted: the write guarded on the head now there, and
 * that head's TTL set by this transaction (as the entry's retention says: none without one).
 */
function retarget(steps: TransactStep[], moves: (readonly [HeadMove, string])[]): TransactStep[] {
  const expiries: TransactStep[] = [];
  const out = steps.map((step) => {
    const found = moves.find(([m]) => step.headMove === m);
    if (!found) return step;
    const [, now] = found;
    const entry = step.Put!.Item!;
    const keep = entry.retain_until_epoch as number | undefined;
    if (keep !== undefined) expiries.push(expireEntryStep(entry.PK as string, now, keep));
    return { ...step, headMove: { ...found[0], previous: now } };
  });
  return [...out, ...expiries];
}

/** An audit entry replaced as its entity's latest starts expiring (shared/audit.ts): its TTL becomes the expiry kept when it was written, else `fallback`. */
export function expireEntryStep(pk: string, sk: string, fallback: number): TransactStep {
  return {
    Update: {
      Key: { PK: pk, SK: sk },
      UpdateExpression: 'SET #ttl = if_not_exists(#keep, :fallback)',
      // A latest entry has no TTL, so it is there; the condition keeps a stray key from creating an item.
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#ttl': 'expires_at_epoch', '#keep': 'retain_until_epoch' },
      ExpressionAttributeValues: { ':fallback': fallback },
    },
    failWith: concurrentChange(),
  };
}

/**
 * The steps with each entity write that stores a new audit head (a `headMove` of the same
 * transaction names it) conditioned on its head as read, and which steps those are (their index →
 * the head read). The write is found by the value it stores: an entry's sort key (time and a new
 * id) is written nowhere else.
 */
function guardHeads(steps: TransactStep[]): { steps: TransactStep[]; heads: Map<number, { move: HeadMove }> } {
  const heads = new Map<number, { move: HeadMove }>();
  const moves = steps.flatMap((s) => (s.headMove ? [s.headMove] : []));
  if (!moves.length) return { steps, heads };
  const out = steps.map((step, i) => {
    const move = moves.find(
      (m) =>
        (step.Update && Object.values(step.Update.ExpressionAttributeValues ?? {}).includes(m.head)) ||
        step.Put?.Item?.[HEAD_FIELD] === m.head,
    );
    if (!move) return step;
    heads.set(i, { move });
    const op = step.Update ? 'Update' : 'Put';
    const body = step[op]!;
    const asRead =
      move.previous === null
        ? '(attribute_not_exists(#auditHead) OR #auditHead = :auditHeadRead)'
        : '#auditHead = :auditHeadRead';
    return {
      ...step,
      [op]: {
        ...body,
        ConditionExpression: body.ConditionExpression ? `(${body.ConditionExpression}) AND ${asRead}` : asRead,
        ExpressionAttributeNames: { ...body.ExpressionAttributeNames, '#auditHead': HEAD_FIELD },
        ExpressionAttributeValues: { ...body.ExpressionAttributeValues, ':auditHeadRead': move.previous },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
  });
  return { steps: out, heads };
}

/** Tries of one transaction through outages (each with the SDK's own attempts). */
const OUTAGE_ATTEMPTS = 4;
/** An outage that may have left the transaction done or not (a cancelled one did nothing: its reasons say why). */
const inDoubt = (err: unknown) => isOutage(err) && !(err instanceof TransactionCanceledException);

const TRANSACTION_LIMIT = 100;

/**
 * A transaction too large for DynamoDB's 100 items, made to fit by moving its `beside` steps out:
 * their Puts commit first, then the rest as one transaction, then their Deletes. When the rest is
 * refused (a condition failed: nothing of it committed), the Puts are taken back. Whatever happens
 * in between (a crash, a concurrent read) leaves only index items without a live entity, which
 * their readers skip; never a live entity without its index items.
 */
async function transactBeside(steps: TransactStep[], token?: string): Promise<void> {
  const before = steps.filter((s) => s.beside === 'before');
  if (before.some((s) => !s.Put || s.Put.ConditionExpression))
    throw new Error('Only unconditional Puts may commit before their transaction');
  await transactInChunks(before);
  try {
    await transact(
      steps.filter((s) => !s.beside),
      token,
    );
  } catch (err) {
    if (err instanceof DomainError)
      await transactInChunks(before.map((s) => ({ Delete: { Key: { PK: s.Put!.Item!.PK, SK: s.Put!.Item!.SK } } })));
    throw err;
  }
  await transactInChunks(steps.filter((s) => s.beside === 'after'));
}

/**
 * Runs `final` as one transaction, preceded by `cascade` steps (items removed along with the
 * subject). Everything is one transaction when it fits DynamoDB's 100-item limit; a larger cascade
 * is committed in chunks first, so the subject is deleted last and a retry finishes the work.
 */
export async function transactWithCascade(cascade: TransactStep[], final: TransactStep[]): Promise<void> {
  if (cascade.length + final.length <= TRANSACTION_LIMIT) return transact([...final, ...cascade]);
  const head = cascade.slice(0, cascade.length - (TRANSACTION_LIMIT - final.length));
  for (let i = 0; i < head.length; i += TRANSACTION_LIMIT) await transact(head.slice(i, i + TRANSACTION_LIMIT));
  await transact([...final, ...cascade.slice(head.length)]);
}

/** Writes in chunks of one transaction each (independent items, e.g. revoking every session). */
export async function transactInChunks(steps: TransactStep[]): Promise<void> {
  for (let i = 0; i < steps.length; i += TRANSACTION_LIMIT) await transact(steps.slice(i, i + TRANSACTION_LIMIT));
}

/** Thrown by a cascade step whose item changed between the read and the write; the operation is re-run. */
export const CASCADE_STALE = concurrentChange();

/**
 * Re-runs a read-then-write operation whose cascade went stale under a concurrent change, from a new
 * read, as a lost race (`onContention`: jittered waits, so writers racing for one item do not collide
 * again at once).
 */
export const retryWhenStale = <T>(fn: () => Promise<T>): Promise<T> => onContention(fn, (err) => err === CASCADE_STALE);
