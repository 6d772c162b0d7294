import { notFound } from '#shared/errors';
import { accessToItem, type ItemRequest } from '#domain/tenancy';
import { floorEntity } from './floor-entity.ts';
import { FLOOR_NOT_FOUND, FORBIDDEN_MANAGE } from './floor-refusals.ts';

/** Access to one floor by id, for its reads, changes and delete. */

/** The permission a floor's change or delete requires. */
export const MANAGE = { key: 'floors.manage', detail: FORBIDDEN_MANAGE } as const;

/** The caller's access to one floor (2 round trips), the floor decoded; absent, deleted and foreign floors are the same 404. */
export async function accessToFloor(floorId: string, userId: string, permission: ItemRequest['permission']) {
  const { item, ...found } = await accessToItem<object>({
    id: floorId,
    kind: 'floor',
    userId,
    notFound: notFound(FLOOR_NOT_FOUND),
    permission,
  });
  return { ...found, floor: floorEntity.decode(item) };
}
