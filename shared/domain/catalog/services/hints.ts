import { keys } from '#db/keys';
import type { TransactStep } from '#db/transact';
import type { Located } from '#domain/tenancy';
import { catalogLookupStep } from '../items.ts';
import { serviceEntity, type Service } from '../service-entity.ts';
import type { Key } from '#db/lookup';
import { serviceListing } from '../listings.ts';
import { existingSetStep, putNewStep } from '#db/steps';
import { referenceKeys } from './references.ts';

// Lookup hints: the service's lookup item also carries its floor, group and subgroup ids, so
// GET /services/{id} reads them with the service in round trip 2. They are hints (kept current on
// every write that changes them); a stale one costs a third read, never a wrong answer.

const hintsOf = (s: Pick<Service, 'service_floor_id' | 'group_id' | 'subgroup_id'>) => ({
  floor_id: s.service_floor_id ?? null,
  group_id: s.group_id ?? null,
  subgroup_id: s.subgroup_id ?? null,
});
export const hintedKeys = (l: Located) =>
  Object.values(
    referenceKeys(l.projectId, l.envId, {
      service_floor_id: l.refs.floor_id,
      group_id: l.refs.group_id,
      subgroup_id: l.refs.subgroup_id,
    }),
  ).filter((k): k is Key => Boolean(k));

/** Keeps a service's lookup hints current after its floor, group or subgroup changed (in the changing transaction). */
export const serviceHintsStep = (serviceId: string, s: Service): TransactStep =>
  existingSetStep(keys.idLookup(serviceId), hintsOf(s));

/** The writes that create a service (its item and its id lookup with hints); counters and reference guards are the caller's. */
export function newServiceSteps(service: Service): TransactStep[] {
  const key = keys.service(service.project_id, service.environment_id, service.id);
  return [
    putNewStep(serviceEntity.encode(key, service)),
    catalogLookupStep(service.id, service.project_id, service.environment_id, key, 'service', hintsOf(service)),
    ...serviceListing.steps(null, service),
  ];
}
