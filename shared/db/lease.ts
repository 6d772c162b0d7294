import type { Key } from './batch-get.ts';
import { conditionParams, type Condition } from './condition.ts';
import { conditionalDelete, conditionalPut, conditionalUpdate, getItem } from './items.ts';

/**
 * A lease: an item one owner holds until it lets go or its lease runs out (a holder that died
 * blocks nobody for longer than its lease). Taken by a conditional put (free, expired, or already
 * this owner's), renewed and released only by its owner. The item also carries the table's TTL
 * attribute, so an abandoned one disappears by itself.
 */
export interface Lease {
  /** Who holds it, for the refusal others get (e.g. an email address). */
  holder: string;
  /** What holds it (e.g. a job id): only it renews or releases the lease. */
  owner: string;
  since: string;
  expires_at: string;
}

const ownedBy = (owner: string): Condition => ({
  expression: '#owner = :owner',
  names: { '#owner': 'owner' },
  values: { ':owner': owner },
});
const expiry = (now: Date, ttlMs: number) => {
  const at = new Date(now.getTime() + ttlMs);
  return { expires_at: at.toISOString(), expires_at_epoch: Math.ceil(at.getTime() / 1000) };
};

/** Takes the lease at `key` for `ttlMs`; answers the lease another owner holds when it is not free. */
export async function takeLease(
  key: Key,
  lease: Pick<Lease, 'holder' | 'owner'>,
  now: Date,
  ttlMs: number,
): Promise<{ ok: true } | { ok: false; held: Lease }> {
  const free: Condition = {
    expression: '(attribute_not_exists(PK) OR #expires < :now OR #owner = :owner)',
    names: { '#expires': 'expires_at', '#owner': 'owner' },
    values: { ':now': now.toISOString(), ':owner': lease.owner },
  };
  const item = { ...key, type: 'lease', ...lease, since: now.toISOString(), ...expiry(now, ttlMs) };
  if (await conditionalPut(item, conditionParams(free))) return { ok: true };
  const held = await getItem<Lease>(key);
  // Let go between the put and the read: try once more.
  if (!held) return takeLease(key, lease, now, ttlMs);
  return {
    ok: false,
    held: { holder: held.holder, owner: held.owner, since: held.since, expires_at: held.expires_at },
  };
}

/** Moves the owner's lease on by `ttlMs`; false when it is no longer theirs. */
export async function renewLease(key: Key, owner: string, now: Date, ttlMs: number): Promise<boolean> {
  const { expires_at, expires_at_epoch } = expiry(now, ttlMs);
  const c = ownedBy(owner);
  const out = await conditionalUpdate(key, {
    UpdateExpression: 'SET #e = :e, #ttl = :ttl',
    ConditionExpression: c.expression,
    ExpressionAttributeNames: { ...c.names, '#e': 'expires_at', '#ttl': 'expires_at_epoch' },
    ExpressionAttributeValues: { ...c.values, ':e': expires_at, ':ttl': expires_at_epoch },
  });
  return out.ok;
}

/** Lets the owner's lease go (nothing when another owner holds it by now). */
export const releaseLease = (key: Key, owner: string): Promise<boolean> =>
  conditionalDelete(key, conditionParams(ownedBy(owner)));
