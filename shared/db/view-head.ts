import type { Key } from './batch-get.ts';
import { conditionalUpdate, updateItem } from './items.ts';
import { setExpression } from './steps.ts';

/**
 * The head of a view derived from other items (an environment's topology snapshot): `seen` counts
 * the batches of changes its keeper has taken on (moved before it applies them), `version` the last
 * it applied. A head whose `seen` stays ahead of its `version` shows an update that was lost.
 */

/** Notes one more batch of changes taken on; answers the new `seen`. */
export async function noteSeen(key: Key, at: string): Promise<number> {
  const out = await updateItem(key, { ...setExpression({ seen_at: at }, { seen: 1 }), ReturnValues: 'ALL_NEW' });
  return Number(out?.seen ?? 0);
}

/** Sets the head's fields when its `version` is not past `fields.version` (a later keeper's answer is kept); answers whether it did. */
export async function settleHead(key: Key, fields: Record<string, unknown> & { version: number }): Promise<boolean> {
  const set = setExpression(fields);
  const out = await conditionalUpdate(key, {
    ...set,
    ConditionExpression: 'attribute_not_exists(#hv) OR #hv <= :hv',
    ExpressionAttributeNames: { ...set.ExpressionAttributeNames, '#hv': 'version' },
    ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':hv': fields.version },
  });
  return out.ok;
}
