import { randomUUID } from 'node:crypto';
import { TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { conflict, DomainError } from '#shared/errors';
import { retry } from './retry';
import { isOutage } from '#shared/outage';

type Write = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Op = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/**
 * One write of a transaction (the table is this layer's business), with the refusal to give when its
 * condition is what failed. `beside` marks an unconditional Put that may commit before the others
 * (and a Delete after them) when the whole does not fit one transaction: index items whose readers
 * skip an entry whose entity is absent (connection listings, catalog/listing.ts).
 */
export type TransactStep = { [K in Op]?: Omit<NonNullable<Write[K]>, 'TableName'> } & { failWith?: DomainError; beside?: 'before' | 'after'; headMove?: HeadMove };

/**
 * On an entry that becomes its entity's latest (shared/audit.ts): the entity's write in the same
 * transaction stores `head` as its `audit_head`, replacing `previous` (the head it read), whose TTL
 * the same transaction sets. `transact` conditions that write on the head still being `previous`:
 * of two updates that read one head, the second would otherwise replace the first's entry as the
 * head with nothing ever setting that entry's TTL. Such a write is refused with CASCADE_STALE
 * (re-run from a new read) when the head moved, its own refusal otherwise.
 */
export interface HeadMove {
  head: string;
  previous: string | null;
}
const HEAD_FIELD = 'audit_head';

export const CONCURRENT_CHANGE = 'The request conflicted with a concurrent change. Please retry.';
/** The 409 for a write that lost a race; each caller keeps its own instance when a retry loop compares by identity. */
export const concurrentChange = () => conflict(CONCURRENT_CHANGE);

/** Real DynamoDB cancels transactions that contend for an item (DynamoDB Local never does). */
class Contended extends Error {}

/** The steps as TransactWriteItems for the one table. */
export const toTransactItems = (steps: TransactStep[]): Write[] => {
  const TableName = config().TABLE_NAME;
  return steps.map(({ failWith: _f, beside: _b, headMove: _h, ...ops }) => Object.fromEntries(Object.entries(ops).map(([op, body]) => [op, { TableName, ...body }])) as Write);
};

/**
 * Runs a TransactWriteItems. When a condition fails, the step's `failWith` is thrown (the first
 * failing step in order), so callers state each refusal next to the write it guards; a failed
 * condition without one is a 409. A TransactionConflict is retried with jittered backoff, and
 * answered 409 if it persists. An outage (throttled, failed, timed out: `isOutage`) is retried a
 * little longer with the same token: the transaction may have taken effect, and DynamoDB answers
 * the same call "done" then, so the caller learns what happened instead of failing a write that
 * was made (a client's retry would make it twice: a second item, or a misleading refusal).
 */
export async function transact(given: TransactStep[], token?: string): Promise<void> {
  if (given.length > TRANSACTION_LIMIT && given.some((s) => s.beside)) return transactBeside(given, token);
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
    await retry(
      async (attempt) => {
        if (attempt > 1 && !mayHaveTakenEffect && !token) ClientRequestToken = randomUUID();
        try {
          await retry(send, { attempts: OUTAGE_ATTEMPTS, when: inDoubt, baseMs: 100 });
        } catch (err) {
          if (!(err instanceof TransactionCanceledException)) throw err;
          const reasons = err.CancellationReasons ?? [];
          const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
          if (failed >= 0) throw headMoved(heads.get(failed), reasons[failed].Item) ? CASCADE_STALE : (steps[failed]?.failWith ?? concurrentChange());
          if (reasons.some((r) => r.Code === 'TransactionConflict')) throw new Contended();
          throw err;
        }
      },
      { attempts: 7, when: (err) => err instanceof Contended, baseMs: 25 },
    );
  } catch (err) {
    if (err instanceof Contended) throw concurrentChange();
    throw err;
  }
}

/** Whether the item a guarded write found (its old image) holds another head than the one read. */
function headMoved(previous: string | null | undefined, old: Record<string, AttributeValue> | undefined): boolean {
  if (previous === undefined || !old) return false;
  const head = old[HEAD_FIELD] ? unmarshall({ h: old[HEAD_FIELD] }).h : null;
  return (head ?? null) !== previous;
}

/**
 * The steps with each entity write that stores a new audit head (a `headMove` of the same
 * transaction names it) conditioned on its head as read, and which steps those are (their index →
 * the head read). The write is found by the value it stores: an entry's sort key (time and a new
 * id) is written nowhere else.
 */
function guardHeads(steps: TransactStep[]): { steps: TransactStep[]; heads: Map<number, string | null> } {
  const heads = new Map<number, string | null>();
  const moves = steps.flatMap((s) => (s.headMove ? [s.headMove] : []));
  if (!moves.length) return { steps, heads };
  const out = steps.map((step, i) => {
    const move = moves.find((m) => (step.Update && Object.values(step.Update.ExpressionAttributeValues ?? {}).includes(m.head)) || step.Put?.Item?.[HEAD_FIELD] === m.head);
    if (!move) return step;
    heads.set(i, move.previous);
    const op = step.Update ? 'Update' : 'Put';
    const body = step[op]!;
    const asRead = move.previous === null ? '(attribute_not_exists(#auditHead) OR #auditHead = :auditHeadRead)' : '#auditHead = :auditHeadRead';
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
  if (before.some((s) => !s.Put || s.Put.ConditionExpression)) throw new Error('Only unconditional Puts may commit before their transaction');
  await transactInChunks(before);
  try {
    await transact(steps.filter((s) => !s.beside), token);
  } catch (err) {
    if (err instanceof DomainError) await transactInChunks(before.map((s) => ({ Delete: { Key: { PK: s.Put!.Item!.PK, SK: s.Put!.Item!.SK } } })));
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
 * Re-runs a read-then-write operation whose cascade went stale under a concurrent change, after a
 * short jittered wait (writers racing for one item would otherwise collide again at once).
 */
export const retryWhenStale = <T>(fn: () => Promise<T>, attempts = 4): Promise<T> => retry(fn, { attempts, baseMs: 10, when: (err) => err === CASCADE_STALE });
