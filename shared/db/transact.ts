import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../clients';
import type { AppError } from '../http/errors';

type Item = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One write of a transaction, with the refusal to give when its condition is what failed. */
export type TransactStep = Item & { failWith?: AppError };

const MAX_CONFLICT_RETRIES = 3;

/**
 * Runs a TransactWriteItems. When a condition fails, the step's `failWith` is thrown
 * (the first failing step in order), so callers state each refusal next to the write it guards.
 * Real DynamoDB cancels with TransactionConflict under contention: that is retried.
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
      if (failed >= 0 && steps[failed]?.failWith) throw steps[failed].failWith;
      if (failed >= 0) throw err;
      const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!conflict || attempt >= MAX_CONFLICT_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));
    }
  }
}
