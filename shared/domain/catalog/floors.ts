import { z } from 'zod';
import { keys } from '#db/keys';
import { transact, retryWhenStale, transactWithCascade, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import type { AppContext } from '#shared/context';
import { publishEvent } from '#shared/events';
import { atLocation, catalogLookupStep, containsCi, edgeRemovalSteps, equalsCi, hasAnyTag } from './items';
import { ipAddress, nonNegativeInt, optionalText, provider, tags } from './fields';
import { serviceEventData, type Service } from './services';
import { queryPrefix } from '#db/query';
import { accessInEnvironment, accessToEnvItem } from '#domain/tenancy';
import { byText } from '#shared/text';
import { visible, setFieldsStep } from '#db/live';

/** Service floors: the servers (VMs, containers, bare metal) services run on. */

export const FLOOR_TYPES = ['vm', 'container', 'baremetal', 'other'] as const;
export type FloorType = (typeof FLOOR_TYPES)[number];
export const FLOOR_NOT_FOUND = 'ServiceFloor not found';

export interface Floor {
  id: string;
  project_id: string;
  environment_id: string;
  /** Stored as `floor_type`: `type` on items is the item kind by convention; answered as `type`. */
  floor_type: FloorType;
  hostname: string | null;
  provider: string | null;
  provider_region: string | null;
  provider_zone: string | null;
  provider_instance_id: string | null;
  ip_address: string | null;
  ip_addresses: string[];
  cpu: number | null;
  memory_mb: number | null;
  storage_gb: number | null;
  instances: number | null;
  tags: string[];
  /** The attached networks (see attachments.ts). */
  network_ids: string[];
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  archived_at?: string | null;
}

/** The writable fields; SPEC's flat specification (no nested specs, no monthly cost). */
export const floorFields = {
  hostname: optionalText(253),
  provider: provider.nullish(),
  provider_region: optionalText(),
  provider_zone: optionalText(),
  provider_instance_id: optionalText(),
  ip_address: ipAddress.nullish(),
  ip_addresses: z.array(ipAddress).max(64).nullish(),
  cpu: nonNegativeInt,
  memory_mb: nonNegativeInt,
  storage_gb: nonNegativeInt,
  instances: nonNegativeInt,
  tags,
};
export const floorType = z.enum(FLOOR_TYPES);
export const createFloorBody = z.object({ project_id: z.uuid(), environment_id: z.uuid(), type: floorType, ...floorFields });
export const updateFloorBody = z.object({ type: floorType.optional(), ...floorFields });
export type CreateFloorInput = z.output<typeof createFloorBody>;
export type UpdateFloorInput = z.output<typeof updateFloorBody>;

export const toFloorOut = (f: Floor) => ({
  id: f.id,
  project_id: f.project_id,
  environment_id: f.environment_id,
  type: f.floor_type,
  hostname: f.hostname,
  provider: f.provider,
  provider_region: f.provider_region,
  provider_zone: f.provider_zone,
  provider_instance_id: f.provider_instance_id,
  ip_address: f.ip_address,
  ip_addresses: f.ip_addresses ?? [],
  cpu: f.cpu,
  memory_mb: f.memory_mb,
  storage_gb: f.storage_gb,
  instances: f.instances,
  tags: f.tags ?? [],
  updated_at: f.updated_at,
  deleted_at: f.deleted_at,
});

export const FLOOR_FORBIDDEN = {
  create: 'Insufficient permissions to create service floor in this environment',
  manage: 'Insufficient permissions to manage service floors in this environment',
  view: 'Insufficient permissions to view service floors in this environment',
};
const { create: FORBIDDEN_CREATE, manage: FORBIDDEN_MANAGE, view: FORBIDDEN_VIEW } = FLOOR_FORBIDDEN;

/** Request values → stored values: lists default to empty, the rest to null. */
function storedFields(input: Partial<Record<keyof typeof floorFields, unknown>>): Partial<Floor> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (!(field in floorFields) || value === undefined) continue;
    out[field] = ['ip_addresses', 'tags'].includes(field) ? (value ?? []) : value;
  }
  return out as Partial<Floor>;
}

export async function createFloor(userId: string, input: CreateFloorInput, ctx: AppContext): Promise<Floor> {
  const { access, env } = await accessInEnvironment(input.project_id, userId, input.environment_id);
  access.require('floors.manage', FORBIDDEN_CREATE, env.id);
  const now = ctx.clock.now().toISOString();
  const floor: Floor = {
    id: ctx.ids.newId(), project_id: env.project_id, environment_id: env.id, floor_type: input.type,
    hostname: null, provider: null, provider_region: null, provider_zone: null, provider_instance_id: null, ip_address: null,
    ip_addresses: [], cpu: null, memory_mb: null, storage_gb: null, instances: null, tags: [],
    ...storedFields(input),
    network_ids: [], created_at: now, updated_at: now, deleted_at: null,
  };
  const key = keys.floor(floor.project_id, floor.environment_id, floor.id);
  await transact([
    { Put: { Item: { ...key, type: 'floor', ...floor }, ConditionExpression: 'attribute_not_exists(PK)' } },
    catalogLookupStep(floor.id, floor.project_id, floor.environment_id, key, 'floor'),
  ]);
  await publishEvent('floor.created', floor.project_id, { service_floor_id: floor.id, hostname: floor.hostname, type: floor.floor_type, project_id: floor.project_id, environment_id: floor.environment_id }, ctx);
  return floor;
}

export interface FloorFilters {
  hostname?: string;
  tags?: string[];
  type?: FloorType;
  location?: string;
  zone?: string;
  updated_since?: string;
}

/** An environment's floors, filtered, by hostname: one Query on the environment's floor keys. */
export async function listFloors(userId: string, projectId: string, envId: string, f: FloorFilters): Promise<Floor[]> {
  const { access } = await accessInEnvironment(projectId, userId, envId);
  access.require('floors.view', FORBIDDEN_VIEW, envId);
  const floors = visible(await queryPrefix<Floor>(projectId, keys.floorPrefix(envId)), f.updated_since);
  return floors
    .filter((x) => !f.hostname || containsCi(x.hostname, f.hostname))
    .filter((x) => !f.tags?.length || hasAnyTag(x.tags, f.tags))
    .filter((x) => !f.type || x.floor_type === f.type)
    .filter((x) => !f.location || atLocation(x, f.location))
    .filter((x) => !f.zone || equalsCi(x.provider_zone, f.zone))
    .sort(byText((x) => x.hostname));
}

/** The caller's access to one floor (2 round trips); absent, deleted and foreign floors are the same 404. */
export const accessToFloor = (floorId: string, userId: string) => accessToEnvItem<Floor>(floorId, 'floor', userId, notFound(FLOOR_NOT_FOUND));

export async function getFloor(floorId: string, userId: string): Promise<Floor> {
  const { access, item, located } = await accessToFloor(floorId, userId);
  access.require('floors.view', FORBIDDEN_VIEW, located.envId);
  return item;
}

export async function updateFloor(floorId: string, userId: string, input: UpdateFloorInput, ctx: AppContext): Promise<Floor> {
  const { access, item, located } = await accessToFloor(floorId, userId);
  access.require('floors.manage', FORBIDDEN_MANAGE, located.envId);
  const wanted: Partial<Floor> = { ...storedFields(input), ...(input.type ? { floor_type: input.type } : {}) };
  const changes = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(item[k as keyof Floor])));
  if (!Object.keys(changes).length) return item;
  const updated_at = ctx.clock.now().toISOString();
  await transact([setFieldsStep(located.key, { ...changes, updated_at }, notFound(FLOOR_NOT_FOUND))]);
  return { ...item, ...changes, updated_at };
}

/**
 * Soft-deletes a floor. In the same operation its services are detached (`service_floor_id`
 * null, so their type becomes 'serverless'), the connections touching it are removed and its
 * network attachments are dropped. Detached services publish service.updated.
 */
export async function deleteFloor(floorId: string, userId: string, ctx: AppContext): Promise<void> {
  const { access, located } = await accessToFloor(floorId, userId);
  access.require('floors.manage', FORBIDDEN_MANAGE, located.envId);
  const { projectId, envId } = located;
  const detached = await retryWhenStale(async () => {
    const now = ctx.clock.now().toISOString();
    const [hosted, edgeSteps] = await Promise.all([
      queryPrefix<Service & { PK: string; SK: string }>(projectId, keys.servicePrefix(envId), {
        projection: ['PK', 'SK', 'id', 'name', 'project_id', 'environment_id'],
        filter: 'service_floor_id = :fid AND deleted_at = :null',
        values: { ':fid': floorId, ':null': null },
      }),
      edgeRemovalSteps(projectId, envId, floorId, false, now),
    ]);
    const cascade = [
      ...hosted.map((s) =>
        setFieldsStep({ PK: s.PK, SK: s.SK }, { service_floor_id: null, updated_at: now }, CASCADE_STALE, { expression: 'service_floor_id = :fid', values: { ':fid': floorId } }),
      ),
      ...edgeSteps,
    ];
    await transactWithCascade(cascade, [setFieldsStep(located.key, { deleted_at: now, updated_at: now, network_ids: [] }, notFound(FLOOR_NOT_FOUND))]);
    return hosted;
  });
  for (const s of detached) await publishEvent('service.updated', projectId, { ...serviceEventData(s), changed: ['service_floor_id', 'type'] }, ctx);
}
