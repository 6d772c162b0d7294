import * as z from 'zod';
import { keys } from '#db/keys';
import { transact, type TransactStep, retryWhenStale, transactWithCascade, concurrentChange } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import { name as nameSchema } from '#shared/schemas';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { auditSteps } from '#shared/audit';
import { type ProjectAccess, planOfProject, retentionOfProject, accessInEnvironment, accessToItem, type Located, type Environment, ENV_NOT_IN_PROJECT, serviceQuotaAddon } from '#domain/tenancy';
import { atLocation, catalogLookupStep, containsCi, edgeRemovalSteps, equalsCi, hasAnyTag } from './items';
import { END_DELETE_ATTEMPTS } from './topology/ends';
import { referenceStep } from '#db/refs';
import { ipAddress, nonNegativeInt, optionalText, provider, tags, urlWithScheme } from './fields';
import type { Floor } from './floor-entity';
import { serviceEntity, serviceView, type RepositoryDep, type Service, type ServiceOut } from './service-entity';
import type { Key } from '#db/lookup';
import { queryPrefix } from '#db/query';
import { byText } from '#shared/text';
import { serviceListing, type ServiceListing } from './listings';
import { batchGet, keyId } from '#db/batch-get';
import { visible, liveItem, stillLiveStep, whileLiveStep, isLive } from '#db/live';
import { getItem } from '#db/items';
import { counterStep, existingSetStep, putNewStep } from '#db/steps';
import { takeQuotaStep, SERVICES_QUOTA, quotaOf, quotaReached } from '#domain/billing';

/** Services: the applications and components of an environment (the entity: service-entity.ts). */


export const SERVICE_NOT_FOUND = 'Service not found';
export const SERVICE_FORBIDDEN = {
  create: 'Insufficient permissions to create service in this environment',
  manage: 'Insufficient permissions to manage services in this environment',
  view: 'Insufficient permissions to view services in this environment',
};
const { create: FORBIDDEN_CREATE, manage: FORBIDDEN_MANAGE, view: FORBIDDEN_VIEW } = SERVICE_FORBIDDEN;

/** A declared dependency on another repository, as a request sends it. */
export const repositoryDep = z.object({
  name: z.string().trim().min(1).max(200),
  repository_url: urlWithScheme(['https://', 'git://']).nullish(),
  version: optionalText(100),
});

/** The writable fields (all optional on create except name; null clears). */
export const serviceFields = {
  service_floor_id: z.uuid().nullish(),
  group_id: z.uuid().nullish(),
  subgroup_id: z.uuid().nullish(),
  category: optionalText(64),
  replicas: nonNegativeInt,
  provider: provider.nullish(),
  provider_region: optionalText(),
  provider_zone: optionalText(),
  tracker_project_key: optionalText(100),
  port: z.number().int().min(1).max(65535).nullish(),
  ip_address: ipAddress.nullish(),
  agent_id: z.uuid().nullish(),
  responsible_project_user_id: z.uuid().nullish(),
  responsible_user_id: z.uuid().nullish(),
  responsible_name: optionalText(200),
  programming_language: optionalText(100),
  programming_language_version: optionalText(100),
  repository_url: urlWithScheme(['https://', 'git://']).nullish(),
  version: optionalText(100),
  links: z.array(urlWithScheme(['http://', 'https://'])).max(50).nullish(),
  tags,
  repository_deps: z.array(repositoryDep).max(200).nullish(),
};
type Writable = keyof typeof serviceFields;
const LIST_FIELDS: Writable[] = ['links', 'tags', 'repository_deps'];

/** owner_user_id, type, group_name, subgroup_name and unknown fields in a body are ignored (zod strips them). */
export const createServiceBody = z.object({ name: nameSchema(), project_id: z.uuid(), environment_id: z.uuid(), ...serviceFields });
/** project_id and environment_id never change: sent in a PATCH body they are ignored, like the read-only fields. */
export const updateServiceBody = z.object({ name: nameSchema().optional(), ...serviceFields });
export type CreateServiceInput = z.output<typeof createServiceBody>;
export type UpdateServiceInput = z.output<typeof updateServiceBody>;

/** What a service shows that lives on other items: its floor's type and its group names. */
export type Resolved = Parameters<typeof serviceView.project>[1];

export const SERVERLESS = 'serverless';

/** What an audit entry records of a service: its stored fields as its readers see them (its networks are the attachments' entries). */
const audited = ({ network_ids: _n, audit_head: _h, ...rest }: Service) => rest;
const serviceAudit = (s: Service, action: 'create' | 'update' | 'delete') => ({
  action: `service.${action}`, entity_type: 'service', entity_id: s.id, project_id: s.project_id, environment_id: s.environment_id,
});

/** The data of service.* events (SPEC fixes service.created's: service_id, name, project_id, environment_id). */
export const serviceEventData = (s: Pick<Service, 'id' | 'name' | 'project_id' | 'environment_id'>) => ({
  service_id: s.id,
  name: s.name,
  project_id: s.project_id,
  environment_id: s.environment_id,
});

// ---------------------------------------------------------------------------------------------
// References: floor, group, subgroup (same environment), responsible people (same project).

/** The items a service points at, by key; `undefined` ids point at nothing. */
function referenceKeys(projectId: string, envId: string, r: Partial<Pick<Service, 'service_floor_id' | 'group_id' | 'subgroup_id'>>) {
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
function keysToValidate(projectId: string, envId: string, set: Partial<Service>): Key[] {
  const r = referenceKeys(projectId, envId, set);
  return [
    r.floor, r.group, r.subgroup,
    set.responsible_project_user_id ? keys.projectUser(projectId, set.responsible_project_user_id) : undefined,
    set.responsible_user_id ? keys.member(projectId, set.responsible_user_id) : undefined,
  ].filter((k): k is Key => Boolean(k));
}

/**
 * Validates the references a write sets (400 with a clear detail) against what was read, and
 * returns the transaction guards that keep them valid until the write commits.
 */
function validateReferences(access: ProjectAccess, envId: string, set: Partial<Service>, effective: Service): TransactStep[] {
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
    const subgroup = liveItem<{ group_id?: string | null }>(items, r.subgroup);
    if (!subgroup) throw invalid(REF_DETAILS.subgroup);
    guards.push(stillLiveStep(r.subgroup, invalid(REF_DETAILS.subgroup)));
  }
  if (effective.subgroup_id && ('subgroup_id' in set || 'group_id' in set)) {
    // A subgroup nests under one group: the service's group must be that group.
    const subgroup = items.get(keyId(keys.subgroup(projectId, envId, effective.subgroup_id))) as { group_id?: string | null } | undefined;
    if (subgroup?.group_id && subgroup.group_id !== effective.group_id) throw invalid(REF_DETAILS.subgroupOfGroup);
  }
  if (set.responsible_project_user_id) {
    const key = keys.projectUser(projectId, set.responsible_project_user_id);
    if (!liveItem(items, key)) throw invalid(REF_DETAILS.projectUser);
    guards.push(stillLiveStep(key, invalid(REF_DETAILS.projectUser)));
  }
  if (set.responsible_user_id && !items.get(keyId(keys.member(projectId, set.responsible_user_id)))) throw invalid(REF_DETAILS.member);
  return guards;
}

/**
 * The floor type and group names of services. `items` holds what was already read and `requested`
 * which keys were asked for (so "asked and absent" is not fetched again); anything else is read
 * in one more BatchGet (only when a lookup hint was stale).
 */
async function resolveAll(services: Service[], items: Map<string, Record<string, unknown>>, requested: Set<string>): Promise<Resolved[]> {
  const refs = services.map((s) => referenceKeys(s.project_id, s.environment_id, s));
  const missing = refs.flatMap((r) => [r.floor, r.group, r.subgroup]).filter((k): k is Key => Boolean(k) && !requested.has(keyId(k!)));
  if (missing.length) for (const [id, item] of await batchGet(missing)) items.set(id, item);
  return refs.map((r) => {
    const floor = r.floor && liveItem<Pick<Floor, 'floor_type'>>(items, r.floor);
    const group = r.group && liveItem<{ name: string }>(items, r.group);
    const subgroup = r.subgroup && liveItem<{ name: string }>(items, r.subgroup);
    return { type: floor ? floor.floor_type : SERVERLESS, group_name: group ? group.name : null, subgroup_name: subgroup ? subgroup.name : null };
  });
}

// ---------------------------------------------------------------------------------------------
// Lookup hints: the service's lookup item also carries its floor, group and subgroup ids, so
// GET /services/{id} reads them with the service in round trip 2. They are hints (kept current on
// every write that changes them); a stale one costs a third read, never a wrong answer.

const hintsOf = (s: Pick<Service, 'service_floor_id' | 'group_id' | 'subgroup_id'>) => ({
  floor_id: s.service_floor_id ?? null,
  group_id: s.group_id ?? null,
  subgroup_id: s.subgroup_id ?? null,
});
const hintedKeys = (l: Located) => Object.values(referenceKeys(l.projectId, l.envId, { service_floor_id: l.refs.floor_id, group_id: l.refs.group_id, subgroup_id: l.refs.subgroup_id })).filter((k): k is Key => Boolean(k));

/** Keeps a service's lookup hints current after its floor, group or subgroup changed (in the changing transaction). */
export const serviceHintsStep = (serviceId: string, s: Service): TransactStep => existingSetStep(keys.idLookup(serviceId), hintsOf(s));

/** The writes that create a service (its item and its id lookup with hints); counters and reference guards are the caller's. */
export function newServiceSteps(service: Service): TransactStep[] {
  const key = keys.service(service.project_id, service.environment_id, service.id);
  return [
    putNewStep(serviceEntity.encode(key, service)),
    catalogLookupStep(service.id, service.project_id, service.environment_id, key, 'service', hintsOf(service)),
    ...serviceListing.steps(null, service),
  ];
}

// ---------------------------------------------------------------------------------------------
// Create, read, list, update, delete. Every function a route calls takes (ctx, input): the caller
// is ctx.actor, and its access is loaded and checked here.

/** Request values → stored values: lists default to empty, the rest to null. */
function storedFields(input: Partial<Record<Writable | 'name', unknown>>): Partial<Service> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined || !(field in serviceFields || field === 'name')) continue;
    out[field] = LIST_FIELDS.includes(field as Writable) ? normalizeList(field, value) : value;
  }
  return out as Partial<Service>;
}
function normalizeList(field: string, value: unknown) {
  if (!value) return [];
  if (field !== 'repository_deps') return value;
  return (value as Partial<RepositoryDep>[]).map((d) => ({ name: d.name!, repository_url: d.repository_url ?? null, version: d.version ?? null }));
}


/**
 * Creates a service. Refusals in SPEC's order: 404 'Project not found', 400 environment not in
 * the project, 403 permission, then 400 for references, then 403 service limit. The limit is
 * enforced per project and per environment by counters in the creating transaction, so
 * concurrent creates can never exceed it.
 */
export async function createService(ctx: AppContext, input: CreateServiceInput): Promise<ServiceOut> {
  const userId = actorAccount(ctx).id;
  const set = storedFields(input);
  const { access, env } = await accessInEnvironment(input.project_id, userId, input.environment_id, keysToValidate(input.project_id, input.environment_id, set));
  access.require('services.manage', FORBIDDEN_CREATE, env.id);
  const now = ctx.clock.now().toISOString();
  const service = serviceEntity.create({
    ...set,
    id: ctx.ids.newId(), name: input.name, owner_user_id: userId, project_id: env.project_id, environment_id: env.id, created_at: now, updated_at: now,
  });
  const guards = validateReferences(access, env.id, set, service);
  const plan = await planOfProject(access.project);
  const addon = serviceQuotaAddon(access.project);
  const envKey = keys.environment(service.project_id, service.environment_id);
  // The environment's counter moves only while the environment is live (one step: a transaction
  // touches an item once), so a create racing the environment's delete never leaves an invisible
  // service holding a slot. That step fails for either reason; a read tells which.
  const envStepFailed = concurrentChange();
  try {
    await transact([
      takeQuotaStep(keys.project(service.project_id), 'service_count', plan, SERVICES_QUOTA, addon),
      whileLiveStep(takeQuotaStep(envKey, 'service_count', plan, SERVICES_QUOTA, addon), envStepFailed),
      ...newServiceSteps(service),
      ...guards,
      projectEventStep('service.created', service.project_id, serviceEventData(service), ctx),
      ...auditSteps(ctx, { ...serviceAudit(service, 'create'), after: audited(service) }, { mode: 'creation' }).steps,
    ]);
  } catch (err) {
    if (err !== envStepFailed) throw err;
    if (!isLive(await getItem<Environment>(envKey))) throw invalid(ENV_NOT_IN_PROJECT);
    throw quotaReached(plan, SERVICES_QUOTA, quotaOf(plan, SERVICES_QUOTA, addon));
  }
  const requested = new Set(keysToValidate(service.project_id, service.environment_id, set).map(keyId));
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}

/**
 * The caller's access to one service: locate, then one BatchGet with the service, its
 * environment and the hinted floor and groups. The service comes back decoded.
 */
async function accessToService(serviceId: string, userId: string, more: (l: Located) => Key[] = () => []) {
  let requested = new Set<string>();
  const { item, ...found } = await accessToItem<object>({ id: serviceId, kind: 'service', userId, notFound: notFound(SERVICE_NOT_FOUND), extra: (l) => {
    const extra = [...hintedKeys(l), ...more(l)];
    requested = new Set(extra.map(keyId));
    return extra;
  } });
  return { ...found, service: serviceEntity.decode(item), requested };
}

export async function getService(ctx: AppContext, { service_id }: { service_id: string }): Promise<ServiceOut> {
  const { access, service, located, requested } = await accessToService(service_id, actorAccount(ctx).id);
  access.require('services.view', FORBIDDEN_VIEW, located.envId);
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}

export async function repositoryDeps(ctx: AppContext, { service_id }: { service_id: string }): Promise<RepositoryDep[]> {
  const { access, service, located } = await accessToService(service_id, actorAccount(ctx).id);
  access.require('services.view', FORBIDDEN_VIEW, located.envId);
  return service.repository_deps;
}

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
}

/** Whether a service (or its listing item) passes GET /services's filters (SPEC "Services"). */
export const matchesServiceFilters = (s: ServiceListing, f: Omit<ListServicesInput, 'project_id' | 'environment_id' | 'limit' | 'offset'>) =>
  (!f.name || containsCi(s.name, f.name)) &&
  (!f.tags?.length || hasAnyTag(s.tags, f.tags)) &&
  (!f.language || equalsCi(s.programming_language, f.language)) &&
  (!f.location || atLocation(s, f.location));

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
  const filtered = Boolean(f.name || f.tags?.length || f.language || f.location);
  const [{ access }, page] = await Promise.all([
    accessInEnvironment(projectId, actorAccount(ctx).id, envId),
    serviceListing.page<ServiceListing>(projectId, envId, { offset: f.offset, limit: f.limit, keep: filtered ? (l) => matchesServiceFilters(l, f) : undefined }),
  ]);
  access.require('services.view', FORBIDDEN_VIEW, envId);
  const serviceKeys = page.map((l) => keys.service(projectId, envId, l.id));
  const refKeys = page.flatMap((l) => Object.values(referenceKeys(projectId, envId, l))).filter((k): k is Key => Boolean(k));
  const items = await batchGet([...serviceKeys, ...refKeys]);
  // A service deleted since its listing was read is left out, as a list read a moment later would.
  const services = serviceKeys.map((k) => liveItem<Record<string, unknown>>(items, k)).filter((i) => i !== undefined).map(serviceEntity.decode);
  const resolved = await resolveAll(services, items, new Set(refKeys.map(keyId)));
  return services.map((s, i) => serviceView.project(s, resolved[i]));
}

/** GET /services with `updated_since`: every service of the environment changed since then, deleted and archived ones included, by name. */
type Named = { id: string; name: string; deleted_at?: string | null };
async function listServicesSince(ctx: AppContext, f: ListServicesInput & { updated_since: string }): Promise<ServiceOut[]> {
  const { project_id: projectId, environment_id: envId } = f;
  const { access } = await accessInEnvironment(projectId, actorAccount(ctx).id, envId);
  access.require('services.view', FORBIDDEN_VIEW, envId);
  const named = ['id', 'name', 'deleted_at', 'archived_at'];
  const [services, floors, groups, subgroups] = await Promise.all([
    queryPrefix(projectId, keys.servicePrefix(envId)),
    queryPrefix<Pick<Floor, 'id' | 'floor_type' | 'deleted_at'>>(projectId, keys.floorPrefix(envId), { projection: ['id', 'floor_type', 'deleted_at', 'archived_at'] }),
    queryPrefix<Named>(projectId, keys.groupPrefix(envId), { projection: named }),
    queryPrefix<Named>(projectId, keys.subgroupPrefix(envId), { projection: named }),
  ]);
  const live = <T extends { deleted_at?: string | null; archived_at?: string | null }>(xs: T[]) => xs.filter((x) => !x.deleted_at && !x.archived_at);
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

/**
 * Changes the given fields; unchanged values are no write and no event. A change of a listed field
 * also rewrites the service's listing item, on condition that the other listed fields are still as
 * read; a concurrent change of one re-runs the update from a new read.
 */
export const updateService = (ctx: AppContext, input: UpdateServiceInput & { service_id: string }): Promise<ServiceOut> => retryWhenStale(() => updateServiceOnce(ctx, input));

async function updateServiceOnce(ctx: AppContext, { service_id: serviceId, ...input }: UpdateServiceInput & { service_id: string }): Promise<ServiceOut> {
  const userId = actorAccount(ctx).id;
  const wanted = storedFields(input);
  const { access, service: item, located, requested } = await accessToService(serviceId, userId, (l) => keysToValidate(l.projectId, l.envId, wanted));
  access.require('services.manage', FORBIDDEN_MANAGE, located.envId);
  const changes = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(item[k as keyof Service]))) as Partial<Service>;
  let service = item;
  if (Object.keys(changes).length) {
    service = { ...item, ...changes, updated_at: ctx.clock.now().toISOString() };
    const guards = validateReferences(access, located.envId, changes, service);
    const moved = ['service_floor_id', 'group_id', 'subgroup_id'].some((k) => k in changes);
    const changed = Object.keys(changes);
    if ('service_floor_id' in changes) changed.push('type');
    const days = await retentionOfProject(access.project);
    const audit = auditSteps(ctx, { ...serviceAudit(service, 'update'), before: audited(item), after: audited(service) }, {
      mode: 'latest', days, previous: item.audit_head,
    });
    service.audit_head = audit.sk;
    await transact([
      ...serviceListing.change(located.key, item, { ...changes, updated_at: service.updated_at, audit_head: audit.sk }, notFound(SERVICE_NOT_FOUND)),
      ...audit.steps,
      ...(moved ? [serviceHintsStep(serviceId, service)] : []),
      ...guards,
      projectEventStep('service.updated', service.project_id, { ...serviceEventData(service), changed }, ctx),
    ]);
  }
  const [resolved] = await resolveAll([service], access.extra, requested);
  return serviceView.project(service, resolved);
}

/**
 * Soft-deletes a service and, in the same transaction, removes its connections and links and its
 * network attachments, and gives its slot back to the project's and environment's limits.
 */
export async function deleteService(ctx: AppContext, { service_id: serviceId }: { service_id: string }): Promise<void> {
  await retryWhenStale(async () => {
    // Read again on a retry: the listing removed is the one of the service as read (listing.ts).
    const { access, service, located } = await accessToService(serviceId, actorAccount(ctx).id);
    access.require('services.manage', FORBIDDEN_MANAGE, located.envId);
    const { projectId, envId } = located;
    const days = await retentionOfProject(access.project);
    const now = ctx.clock.now().toISOString();
    const audit = auditSteps(ctx, { ...serviceAudit(service, 'delete'), before: audited(service) }, {
      mode: 'latest', days, previous: service.audit_head,
    });
    const edges = await edgeRemovalSteps(projectId, envId, service, true, now);
    await transactWithCascade(edges.steps, [
      ...serviceListing.change(located.key, service, { deleted_at: now, updated_at: now, network_ids: [], audit_head: audit.sk }, notFound(SERVICE_NOT_FOUND), edges.asRead),
      ...audit.steps,
      // Counted only while its environment is live: once the environment's delete has taken the
      // environment's whole count off the project, the service is gone with it (404) and nothing
      // is subtracted twice.
      counterStep(keys.project(projectId), { service_count: -1 }),
      whileLiveStep(counterStep(keys.environment(projectId, envId), { service_count: -1 }), notFound(SERVICE_NOT_FOUND)),
      projectEventStep('service.deleted', projectId, serviceEventData(service), ctx),
    ]);
  }, END_DELETE_ATTEMPTS);
}
