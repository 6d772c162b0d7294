import { keys } from '#db/keys';
import { actorAccount, type AppContext } from '#shared/context';
import { accessInEnvironment } from '#domain/tenancy';
import { atLocation, containsCi, equalsCi, hasAnyTag } from '../items.ts';
import type { Floor } from '../floor-entity.ts';
import { serviceEntity, serviceView, type ServiceOut } from '../service-entity.ts';
import type { Key } from '#db/lookup';
import { queryPrefix } from '#db/query';
import { byText } from '#shared/text';
import { serviceListing, type ServiceListing } from '../listings.ts';
import { batchGet, keyId } from '#db/batch-get';
import { visible, liveItem, isLive, LIFECYCLE_FIELDS, visibleFilter, type Lifecycle } from '#db/live';
import { FORBIDDEN_VIEW } from '../service-refusals.ts';
import { referenceKeys, resolveAll, SERVERLESS } from './references.ts';
import { matchesCustomFilters } from '../custom-fields/values.ts';

export interface ListServicesInput {
  project_id: string;
  environment_id: string;
  name?: string;
  tags?: string[];
  language?: string;
  location?: string;
  limit: number;
  offset: number;
  updated_since?: string;
  /** `cf.<key>` filters: key → values (any). */
  cf?: Record<string, string[]>;
}

/** Whether a service (or its listing item) passes GET /services's filters (SPEC "Services"). */
export const matchesServiceFilters = (
  s: ServiceListing,
  f: Omit<ListServicesInput, 'project_id' | 'environment_id' | 'limit' | 'offset'>,
) =>
  (!f.name || containsCi(s.name, f.name)) &&
  (!f.tags?.length || hasAnyTag(s.tags, f.tags)) &&
  (!f.language || equalsCi(s.programming_language, f.language)) &&
  (!f.location || atLocation(s, f.location)) &&
  (!f.cf || matchesCustomFilters(s.custom_fields, f.cf));

/**
 * An environment's services, filtered, by name, one page. The access check (one BatchGet, which
 * also proves the environment belongs to the project) runs alongside the Query of the
 * environment's listing items in name order (service-listing.ts), which stops once `offset +
 * limit` of them pass the filters; then one BatchGet reads the page's services with their floors,
 * groups and subgroups (for type and names): two round trips, reading what the page returns (and
 * what a filter passed over). With `updated_since` (a sync, deleted and archived services
 * included) the environment's services are read whole, as the list rule needs.
 */
export async function listServices(ctx: AppContext, f: ListServicesInput): Promise<ServiceOut[]> {
  if (f.updated_since) return listServicesSince(ctx, f as ListServicesInput & { updated_since: string });
  const { project_id: projectId, environment_id: envId } = f;
  const filtered = Boolean(f.name || f.tags?.length || f.language || f.location || f.cf);
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    serviceListing.page<ServiceListing>(projectId, envId, {
      offset: f.offset,
      limit: f.limit,
      keep: filtered ? (l) => matchesServiceFilters(l, f) : undefined,
    }),
  ]);
  access.require('services.view', FORBIDDEN_VIEW, envId);
  const serviceKeys = page.map((l) => keys.service(projectId, envId, l.id));
  const refKeys = page
    .flatMap((l) => Object.values(referenceKeys(projectId, envId, l)))
    .filter((k): k is Key => Boolean(k));
  const items = await batchGet([...serviceKeys, ...refKeys]);
  // A service deleted since its listing was read is left out, as a list read a moment later would.
  const services = serviceKeys
    .map((k) => liveItem<Record<string, unknown>>(items, k))
    .filter((i) => i !== undefined)
    .map(serviceEntity.decode);
  const resolved = await resolveAll(services, items, new Set(refKeys.map(keyId)));
  return services.map((s, i) => serviceView.project(s, resolved[i]));
}

/** GET /services with `updated_since`: every service of the environment changed since then, deleted and archived ones included, by name. */
type Named = Lifecycle & { id: string; name: string };
async function listServicesSince(
  ctx: AppContext,
  f: ListServicesInput & { updated_since: string },
): Promise<ServiceOut[]> {
  const { project_id: projectId, environment_id: envId } = f;
  const { access } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId);
  access.require('services.view', FORBIDDEN_VIEW, envId);
  const named = ['id', 'name', ...LIFECYCLE_FIELDS];
  const [services, floors, groups, subgroups] = await Promise.all([
    queryPrefix(projectId, keys.servicePrefix(envId), visibleFilter(f.updated_since)),
    // Only live floors and groups name a service's type and groups: the others are not read back.
    queryPrefix<Pick<Floor, 'id' | 'floor_type'> & Lifecycle>(projectId, keys.floorPrefix(envId), {
      projection: ['id', 'floor_type', ...LIFECYCLE_FIELDS],
      ...visibleFilter(),
    }),
    queryPrefix<Named>(projectId, keys.groupPrefix(envId), { projection: named, ...visibleFilter() }),
    queryPrefix<Named>(projectId, keys.subgroupPrefix(envId), { projection: named, ...visibleFilter() }),
  ]);
  const live = <T extends Lifecycle>(xs: T[]) => xs.filter(isLive);
  const floorType = new Map(live(floors).map((x) => [x.id, x.floor_type]));
  const groupName = new Map(live(groups).map((x) => [x.id, x.name]));
  const subgroupName = new Map(live(subgroups).map((x) => [x.id, x.name]));
  return visible(services.map(serviceEntity.decode), f.updated_since)
    .filter((s) => matchesServiceFilters(s, f))
    .sort(byText((s) => s.name))
    .slice(f.offset, f.offset + f.limit)
    .map((s) =>
      serviceView.project(s, {
        type: (s.service_floor_id && floorType.get(s.service_floor_id)) || SERVERLESS,
        group_name: (s.group_id && groupName.get(s.group_id)) || null,
        subgroup_name: (s.subgroup_id && subgroupName.get(s.subgroup_id)) || null,
      }),
    );
}
