/** Key builders: the only place that knows how items are addressed (see docs/data-model.md). */
export const keys = {
  account: (userId: string) => ({ PK: `USER#${userId}`, SK: 'ACCOUNT' }),
  /** Uniqueness sentinel and login lookup: lower-cased e-mail → user id. */
  email: (email: string) => ({ PK: `EMAIL#${email.toLowerCase()}`, SK: 'EMAIL' }),
  session: (userId: string, sessionId: string) => ({ PK: `USER#${userId}`, SK: `SESSION#${sessionId}` }),
  sessionPrefix: 'SESSION#',
  subscription: (userId: string, subscriptionId: string) => ({ PK: `USER#${userId}`, SK: `SUB#${subscriptionId}` }),
  subscriptionPrefix: 'SUB#',
  plans: 'PLAN',
  plan: (rank: number, planId: string) => ({ PK: 'PLAN', SK: `PLAN#${String(rank).padStart(2, '0')}#${planId}` }),
  /** Staff listing (GSI1): every account under one partition, by e-mail. */
  accountsIndex: (email: string) => ({ GSI1PK: 'ACCOUNTS', GSI1SK: email.toLowerCase() }),
};

/** Strips the key attributes from an item before it leaves the data layer. */
const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'expires_at_epoch', 'type'];
export function stripKeys(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !KEY_ATTRIBUTES.includes(k)));
}
