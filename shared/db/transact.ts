import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { conflict, type AppError } from '#http/errors';

type Item = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One write of a transaction, with the refusal to give when its condition is what failed. */
export type TransactStep = Item & { failWith?: AppError };

/** Real DynamoDB cancels transactions that contend for an item; retried with jittered backoff. */
const MAX_CONFLICT_RETRIES = 6;
export const CONCURRENT_CHANGE = 'The request conflicted with a concurrent change. Please retry.';
/** The 409 for a write that lost a race; each caller keeps its own instance when a retry loop compares by identity. */
export const concurrentChange = () => conflict(CONCURRENT_CHANGE);

/**
 * Runs a TransactWriteItems. When a condition fails, the step's `failWith` is thrown
 * (the first failing step in order), so callers state each refusal next to the write it guards.
 * Real DynamoDB (unlike DynamoDB Local) cancels with TransactionConflict under contention: that
 * is retried, and answered 409 if it persists.
 */
export async function transact(steps: TransactStep[], token?: string): Promise<void> {
  const TransactItems = steps.map(({ failWith: _f, ...item }) => item as Item);
  for (let attempt = 0; ; attempt++) {
    try {
      await ddb().send(new TransactWriteCommand({ TransactItems, ClientRequestToken: token }));
      return;
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = err.CancellationReasons ?? [];
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      // A condition nobody attached a refusal to failed: the state changed under us.
      if (failed >= 0) throw steps[failed]?.failWith ?? concurrentChange();
      if (!reasons.some((r) => r.Code === 'TransactionConflict')) throw err;
      // Still contended after the retries: a 409 the client can retry, not a 500.
      if (attempt >= MAX_CONFLICT_RETRIES) throw concurrentChange();
      await new Promise((r) => setTimeout(r, Math.random() * 25 * 2 ** attempt));
    }
  }
}
