import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from '#db/keys';
import { PLAN_CATALOGUE, listSubscriptions } from '#domain/billing';

/** Puts an account on a plan directly in the table (billing flows are tested separately). */
export async function setPlan(userId: string, planName: string, interval = 'monthly'): Promise<void> {
  const plan = PLAN_CATALOGUE.find(
    (p) => p.name === planName && (p.interval === interval || ['none', 'custom'].includes(p.interval)),
  )!;
  const TableName = config().TABLE_NAME;
  await cancelPlan(userId);
  const id = randomUUID();
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName,
      Item: {
        ...keys.subscription(userId, id),
        type: 'subscription',
        id,
        user_id: userId,
        plan_id: plan.id,
        status: 'active',
        period_start: now,
        period_end: null,
        created_at: now,
        updated_at: now,
      },
    }),
  );
}

/** Leaves the account without an active subscription (so with no plan features), directly in the table. */
export async function cancelPlan(userId: string): Promise<void> {
  const TableName = config().TABLE_NAME;
  for (const s of await listSubscriptions(userId)) {
    if (s.status === 'active')
      await ddb().send(
        new UpdateCommand({
          TableName,
          Key: keys.subscription(userId, s.id),
          UpdateExpression: 'SET #s = :c',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':c': 'cancelled' },
        }),
      );
  }
}
