import * as z from 'zod';
import { defineEntity } from '#db/entity';
import { keys } from '#db/keys';
import { queryPrefix } from '#db/query';
import { isLive } from '#db/live';
import { DomainError } from '#shared/errors';
import type { CustomFieldDefinition, CustomFieldKind, CustomValues } from './definition-entity.ts';
import { matchersOf } from './patterns.ts';
import { checkValue } from './values.ts';
import { customValues } from '../custom-values.ts';

/**
 * What a definition change would break: the live items of the project whose value would no longer
 * be valid (a type change, a removed choice in use, a narrower pattern or range, a kind no longer
 * applied to), and, when it becomes required without a default, those that lack a value. Reads every
 * live service, floor and network of the project (their values only): a definition change is rare,
 * an item write never pays for it.
 */

const PREFIXES: Record<CustomFieldKind, string> = { service: 'SERVICE#', service_floor: 'FLOOR#', network: 'NETWORK#' };
const KEYS = { service: keys.service, service_floor: keys.floor, network: keys.network } as const;
const READ = ['id', 'environment_id', 'custom_fields', 'deleted_at', 'archived_at'];
/** What a definition change reads of an item. */
const valuesEntity = defineEntity('item_values', () =>
  z.object({
    id: z.string(),
    environment_id: z.string(),
    custom_fields: customValues().default({}),
    deleted_at: z.string().nullish(),
    archived_at: z.string().nullish(),
  }),
);

export interface ItemValues {
  kind: CustomFieldKind;
  id: string;
  environment_id: string;
  key: { PK: string; SK: string };
  custom_fields: CustomValues;
  live: boolean;
}

/** Every service, floor and network of the project with its values (deleted and archived ones too: `live` tells). */
export async function projectItemValues(projectId: string): Promise<ItemValues[]> {
  const kinds = Object.keys(PREFIXES) as CustomFieldKind[];
  const read = await Promise.all(kinds.map((k) => queryPrefix(projectId, PREFIXES[k], { projection: READ })));
  return kinds.flatMap((kind, i) =>
    read[i].map((raw) => {
      const item = valuesEntity.decode(raw);
      return { kind, ...item, key: KEYS[kind](projectId, item.environment_id, item.id), live: isLive(item) };
    }),
  );
}

/** How many live items `after` would break (see above). */
export async function breakingCount(
  after: Pick<
    CustomFieldDefinition,
    'key' | 'type' | 'applies_to' | 'required' | 'default' | 'choices' | 'pattern' | 'min' | 'max'
  >,
  items: ItemValues[],
): Promise<number> {
  const matchers = await matchersOf([after]);
  const def = { ...after, status: 'active' as const };
  return items.filter((item) => {
    if (!item.live) return false;
    const value = item.custom_fields[after.key];
    const applies = after.applies_to.includes(item.kind);
    if (value === undefined || value === null) return applies && after.required && after.default === null;
    return !applies || 'problem' in checkValue(def, value, matchers);
  }).length;
}

/** 409 with the count of items a definition change would break. */
export const wouldBreak = (count: number) =>
  new DomainError('conflict', `This change would break the values of ${count} item${count === 1 ? '' : 's'}`, {
    count,
  });
