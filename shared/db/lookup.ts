import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/clients';
import { config } from '#shared/config';
import { keys } from './keys';
import type { TransactStep } from './transact';
import type { DomainError } from '#shared/errors';

export type Key = { PK: string; SK: string };

/** The lookup item: where the item lives, plus any attributes its kind records (see catalogLookupStep). */
export interface LookupItem extends Record<string, unknown> {
  project_id: string;
  item_pk: string;
  item_sk: string;
  kind: string;
}

/** The write that lets a bare id (`/services/{id}`) find its item; part of the item's creation transaction. */
export function lookupStep(id: string, projectId: string, key: Key, kind: string): TransactStep {
  return {
    Put: {
      Item: { ...keys.idLookup(id), project_id: projectId, item_pk: key.PK, item_sk: key.SK, kind },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The lookup item of this id (one strongly consistent GetItem); an unknown id (or one of another kind) is `notFoundError`. */
export async function readLookup(id: string, kind: string, notFoundError: DomainError): Promise<LookupItem> {
  const out = await ddb().send(new GetCommand({ TableName: config().TABLE_NAME, Key: keys.idLookup(id), ConsistentRead: true }));
  const item = out.Item as LookupItem | undefined;
  if (!item || item.kind !== kind) throw notFoundError;
  return item;
}

/** Where the item with this id lives; an unknown id (or one of another kind) is `notFoundError`. */
export async function locate(id: string, kind: string, notFoundError: DomainError): Promise<{ projectId: string; key: Key }> {
  const item = await readLookup(id, kind, notFoundError);
  return { projectId: item.project_id, key: { PK: item.item_pk, SK: item.item_sk } };
}
