import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import { invalid } from '#shared/errors';
import type { ProjectAccess } from '#domain/tenancy';
import { referenceStep } from '#db/refs';
import type { Floor } from '../floor-entity.ts';
import type { serviceView, Service } from '../service-entity.ts';
import type { Key } from '#db/lookup';
import { batchGet, keyId } from '#db/batch-get';
import { liveItem, stillLiveStep } from '#db/live';

// References: floor, group, subgroup (same environment), responsible people (same project).

/** What a service shows that lives on other items: its floor's type and its group names. */
export type Resolved = Parameters<typeof serviceView.project>[1];

export const SERVERLESS = 'serverless';

/** The items a service points at, by key; `undefined` ids point at nothing. */
export function referenceKeys(
  projectId: string,
  envId: string,
  r: Partial<Pick<Service, 'service_floor_id' | 'group_id' | 'subgroup_id'>>,
) {
  return {
    floor: r.service_floor_id ? keys.floor(projectId, envId, r.service_floor_id) : undefined,
    group: r.group_id ? keys.group(projectId, envId, r.group_id) : undefined,
    subgroup: r.subgroup_id ? keys.subgroup(projectId, envId, r.subgroup_id) : undefined,
  };
}

const REF_DETAILS = {
  floor: 'Service floor not found in this environment',
  group: 'Group not found in this environment',
  subgroup: 'Subgroup not found in this environment',
  subgroupOfGroup: "Subgroup does not belong to the service's group",
  projectUser: 'Responsible project user not found in this project',
  member: 'Responsible user is not a member of this project',
};

/** Keys to read with the access check so the references a write sets can be validated without another round trip. */
export function keysToValidate(projectId: string, envId: string, set: Partial<Service>): Key[] {
  const r = referenceKeys(projectId, envId, set);
  return [
    r.floor,
    r.group,
    r.subgroup,
    set.responsible_project_user_id ? keys.projectUser(projectId, set.responsible_project_user_id) : undefined,
    set.responsible_user_id ? keys.member(projectId, set.responsible_user_id) : undefined,
  ].filter((k): k is Key => Boolean(k));
}

/**
 * Validates the references a write sets (400 with a clear detail) against what was read, and
 * returns the transaction guards that keep them valid until the write commits.
 */
export function validateReferences(
  access: ProjectAccess,
  envId: string,
  set: Partial<Service>,
  effective: Service,
): TransactStep[] {
  const projectId = access.project.id;
  const items = access.extra;
  const r = referenceKeys(projectId, envId, set);
  const guards: TransactStep[] = [];
  if (r.floor) {
    if (!liveItem(items, r.floor)) throw invalid(REF_DETAILS.floor);
    // The server's delete detaches the services it read on it: one set on it meanwhile fails that delete (db/refs.ts).
    guards.push(referenceStep(r.floor, invalid(REF_DETAILS.floor)));
  }
  if (r.group) {
    if (!liveItem(items, r.group)) throw invalid(REF_DETAILS.group);
    guards.push(stillLiveStep(r.group, invalid(REF_DETAILS.group)));
  }
  if (r.subgroup) {
    const subgroup = liveItem(items, r.subgroup);
    if (!subgroup) throw invalid(REF_DETAILS.subgroup);
    guards.push(stillLiveStep(r.subgroup, invalid(REF_DETAILS.subgroup)));
  }
  if (effective.subgroup_id && ('subgroup_id' in set || 'group_id' in set)) {
    // A subgroup nests under one group: the service's group must be that group.
    const groupOfSubgroup = items.get(keyId(keys.subgroup(projectId, envId, effective.subgroup_id)))?.group_id;
    if (groupOfSubgroup && groupOfSubgroup !== effective.group_id) throw invalid(REF_DETAILS.subgroupOfGroup);
  }
  // A person's delete (a project user's) or removal (a member's) clears the services it read naming them:
  // naming one moves their refs_version, so one named meanwhile fails that write (db/refs.ts).
  if (set.responsible_project_user_id) {
    const key = keys.projectUser(projectId, set.responsible_project_user_id);
    if (!liveItem(items, key)) throw invalid(REF_DETAILS.projectUser);
    guards.push(referenceStep(key, invalid(REF_DETAILS.projectUser)));
  }
  if (set.responsible_user_id) {
    const key = keys.member(projectId, set.responsible_user_id);
    if (!items.get(keyId(key))) throw invalid(REF_DETAILS.member);
    guards.push(referenceStep(key, invalid(REF_DETAILS.member)));
  }
  return guards;
}

/**
 * The floor type and group names of services. `items` holds what was already read and `requested`
 * which keys were asked for (so "asked and absent" is not fetched again); anything else is read
 * in one more BatchGet (only when a lookup hint was stale).
 */
export async function resolveAll(
  services: Service[],
  items: Map<string, Record<string, unknown>>,
  requested: Set<string>,
): Promise<Resolved[]> {
  const refs = services.map((s) => referenceKeys(s.project_id, s.environment_id, s));
  const missing = refs
    .flatMap((r) => [r.floor, r.group, r.subgroup])
    .filter((k): k is Key => Boolean(k) && !requested.has(keyId(k!)));
  if (missing.length) for (const [id, item] of await batchGet(missing)) items.set(id, item);
  return refs.map((r) => {
    const floor = r.floor && liveItem<Pick<Floor, 'floor_type'>>(items, r.floor);
    const group = r.group && liveItem<{ name: string }>(items, r.group);
    const subgroup = r.subgroup && liveItem<{ name: string }>(items, r.subgroup);
    return {
      type: floor ? floor.floor_type : SERVERLESS,
      group_name: group ? group.name : null,
      subgroup_name: subgroup ? subgroup.name : null,
    };
  });
}
