import type { DomainError } from '#shared/errors';
import * as z from 'zod';
import { defineEntity } from './entity.ts';
import type { Key } from './batch-get.ts';
import { getItem } from './items.ts';
import { keys } from './keys.ts';
import { putNewStep } from './steps.ts';
import type { TransactStep } from './transact.ts';

export type { Key } from './batch-get.ts';

/** The lookup item: where the item lives, plus any attributes its kind records (see catalogLookupStep). */
export interface LookupItem extends Record<string, unknown> {
  project_id: string;
  item_pk: string;
  item_sk: string;
  kind: string;
}

/**
 * The lookup item as an entity, for a reader that finds it among other items (a BatchGet): where the
 * item lives, and the one hint every environment-scoped kind records, its `environment_id`. Other
 * hints are read through `readLookup`, which answers the item whole.
 */
export const lookupEntity = defineEntity('lookup', () =>
  z.object({
    project_id: z.string(),
    item_pk: z.string(),
    item_sk: z.string(),
    kind: z.string(),
    environment_id: z.string().nullish(),
  }),
);
export type Lookup = z.infer<typeof lookupEntity.schema>;

/**
 * The write that lets a bare id (`/services/{id}`) find its item; part of the item's creation
 * transaction. `refs` are hints read with it (e.g. the item's `environment_id`).
 */
export function lookupStep(
  id: string,
  projectId: string,
  key: Key,
  kind: string,
  refs: Record<string, unknown> = {},
): TransactStep {
  return putNewStep({ ...keys.idLookup(id), project_id: projectId, item_pk: key.PK, item_sk: key.SK, kind, ...refs });
}

/** The lookup item of this id (one strongly consistent GetItem); an unknown id (or one of another kind) is `notFoundError`. */
export async function readLookup(id: string, kind: string, notFoundError: DomainError): Promise<LookupItem> {
  const item = await getItem<LookupItem>(keys.idLookup(id));
  if (!item || item.kind !== kind) throw notFoundError;
  return item;
}

/** Where the item with this id lives; an unknown id (or one of another kind) is `notFoundError`. */
export async function locate(
  id: string,
  kind: string,
  notFoundError: DomainError,
): Promise<{ projectId: string; key: Key }> {
  const item = await readLookup(id, kind, notFoundError);
  return { projectId: item.project_id, key: { PK: item.item_pk, SK: item.item_sk } };
}
