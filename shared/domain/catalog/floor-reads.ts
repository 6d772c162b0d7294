import { keys } from '#db/keys';
import { actorAccount, type AppContext } from '#shared/context';
import { atLocation, containsCi, equalsCi, hasAnyTag } from './items.ts';
import { floorEntity, floorView, type Floor, type FloorOut, type FloorType } from './floor-entity.ts';
import { queryPrefix } from '#db/query';
import { accessInEnvironment } from '#domain/tenancy';
import { byText } from '#shared/text';
import { visible, visibleFilter } from '#db/live';
import { floorListing, type FloorListing } from './listings.ts';
import { FORBIDDEN_VIEW } from './floor-refusals.ts';
import { accessToFloor } from './floor-access.ts';
import { matchesCustomFilters } from './custom-fields/values.ts';

/** Reading floors: an environment's list (filtered, in hostname order, a page at a time) and one floor. */

/** An environment's floors as stored (deleted and archived included), for a caller that already checked access. */
export const storedFloorsOf = async (projectId: string, envId: string): Promise<Floor[]> =>
  (await queryPrefix(projectId, keys.floorPrefix(envId))).map(floorEntity.decode);

export interface ListFloorsInput {
  project_id: string;
  environment_id: string;
  hostname?: string;
  tags?: string[];
  type?: FloorType;
  location?: string;
  zone?: string;
  updated_since?: string;
  /** `cf.<key>` filters: key → values (any). */
  cf?: Record<string, string[]>;
  /** Beyond SPEC: one page of the list (the whole list without `limit`). */
  offset?: number;
  limit?: number;
}

type FloorFilters = Pick<ListFloorsInput, 'hostname' | 'tags' | 'type' | 'location' | 'zone' | 'cf'>;
/** Whether a floor (or its listing item) passes GET /service-floors's filters (SPEC "Service floors"). */
export const matchesFloorFilters = (x: FloorListing, f: FloorFilters) =>
  (!f.hostname || containsCi(x.hostname, f.hostname)) &&
  (!f.tags?.length || hasAnyTag(x.tags, f.tags)) &&
  (!f.type || x.floor_type === f.type) &&
  (!f.location || atLocation(x, f.location)) &&
  (!f.zone || equalsCi(x.provider_zone, f.zone)) &&
  (!f.cf || matchesCustomFilters(x.custom_fields, f.cf));

/**
 * An environment's floors, filtered, by hostname, from `offset` (the whole list without `limit`):
 * the access check alongside the Query of the environment's listing items in hostname order
 * (listing.ts), which stops once the page is full, then one BatchGet of the page's floors. With
 * `updated_since` (a sync, deleted and archived floors included) the floors are read whole.
 */
export async function listFloors(ctx: AppContext, f: ListFloorsInput): Promise<FloorOut[]> {
  const { project_id: projectId, environment_id: envId, offset = 0, limit } = f;
  const filtered = Boolean(f.hostname || f.tags?.length || f.type || f.location || f.zone || f.cf);
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    f.updated_since
      ? null
      : floorListing.page<FloorListing>(projectId, envId, {
          offset,
          limit,
          keep: filtered ? (x) => matchesFloorFilters(x, f) : undefined,
        }),
  ]);
  access.require('floors.view', FORBIDDEN_VIEW, envId);
  const floors = page
    ? await floorListing.entities(projectId, envId, page)
    : visible(
        (await queryPrefix(projectId, keys.floorPrefix(envId), visibleFilter(f.updated_since))).map(floorEntity.decode),
        f.updated_since,
      )
        .filter((x) => matchesFloorFilters(x, f))
        .sort(byText((x) => x.hostname))
        .slice(offset, limit === undefined ? undefined : offset + limit);
  return floors.map((x) => floorView.project(x));
}

export async function getFloor(ctx: AppContext, { floor_id }: { floor_id: string }): Promise<FloorOut> {
  const { floor } = await accessToFloor(floor_id, actorAccount(ctx).id, { key: 'floors.view', detail: FORBIDDEN_VIEW });
  return floorView.project(floor);
}
