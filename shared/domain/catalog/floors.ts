import * as z from 'zod';
import { keys } from '#db/keys';
import { transact, retryWhenStale, transactWithCascade, CASCADE_STALE, type TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { atLocation, catalogLookupStep, containsCi, edgeRemovalSteps, equalsCi, hasAnyTag } from './items';
import { ipAddress, optionalText, provider, tags } from './fields';
import { SERVER_SPEC_MAX } from '#domain/billing';
import { floorEntity, floorType, floorView, type Floor, type FloorOut, type FloorType } from './floor-entity';
import type { Service } from './service-entity';
import { serviceEventData } from './services';
import { queryPrefix } from '#db/query';
import { accessInEnvironment, accessToItem, envLiveCheck, retentionOfProject, type ItemRequest } from '#domain/tenancy';
import { changeAudit, creationAudit } from '#shared/audit';
import { byText } from '#shared/text';
import { visible, allOf, NOT_DELETED, visibleFilter } from '#db/live';
import { floorListing, serviceRefListing, type FloorListing } from './listings';
import { serviceEntity } from './service-entity';
import { batchGet } from '#db/batch-get';
import { putNewStep, setWhenStep } from '#db/steps';
import { lazySchema } from '#shared/lazy-schema';

/** Service floors: the servers (VMs, containers, bare metal) services run on (the entity: floor-entity.ts). */

export const FLOOR_NOT_FOUND = 'ServiceFloor not found';

const specField = (max: number) => z.number().int().min(0).max(max).nullish();

/** The writable fields; SPEC's flat specification (no nested specs, no monthly cost). */
export const floorFields = {
  hostname: optionalText(253),
  provider: provider.nullish(),
  provider_region: optionalText(),
  provider_zone: optionalText(),
  provider_instance_id: optionalText(),
  ip_address: ipAddress.nullish(),
  ip_addresses: z.array(ipAddress).max(64).nullish(),
  // Bounded so that a cost estimate stays an exact integer (billing's SERVER_SPEC_MAX).
  cpu: specField(SERVER_SPEC_MAX.cpu),
  memory_mb: specField(SERVER_SPEC_MAX.memory_mb),
  storage_gb: specField(SERVER_SPEC_MAX.storage_gb),
  instances: specField(SERVER_SPEC_MAX.instances),
  tags,
};
export const createFloorBody = lazySchema(() =>
  z.object({ project_id: z.uuid(), environment_id: z.uuid(), type: floorType, ...floorFields }),
);
export const updateFloorBody = lazySchema(() => z.object({ type: floorType.optional(), ...floorFields }));
export type CreateFloorInput = z.output<ReturnType<typeof createFloorBody>>;
export type UpdateFloorInput = z.output<ReturnType<typeof updateFloorBody>>;

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

/** The writes that create a floor (its item and its id lookup); the environment guard is the caller's. */
export function newFloorSteps(floor: Floor): TransactStep[] {
  const key = keys.floor(floor.project_id, floor.environment_id, floor.id);
  return [
    putNewStep(floorEntity.encode(key, floor)),
    catalogLookupStep(floor.id, floor.project_id, floor.environment_id, key, 'floor'),
    ...floorListing.steps(null, floor),
  ];
}

/** The key of a floor item. */
export const floorKey = (floor: Pick<Floor, 'project_id' | 'environment_id' | 'id'>) =>
  keys.floor(floor.project_id, floor.environment_id, floor.id);

/**
 * Sets fields on a floor read as `floor` while it is live (discovery's update and missing flag), with
 * its listing's writes: refused with 404 when it is gone, and with CASCADE_STALE when a listed field
 * changed since the read (listing.ts; re-run from a new read).
 */
export const floorFieldsSteps = (floor: Floor, fields: Partial<Floor>): TransactStep[] =>
  floorListing.change(floorKey(floor), floor, fields, notFound(FLOOR_NOT_FOUND));

/** The `floor.created` event of a new floor, written in its creating transaction (the one event shape, for the route and for discovery). */
export const floorCreatedStep = (floor: Floor, ctx: AppContext): TransactStep =>
  projectEventStep(
    'floor.created',
    floor.project_id,
    {
      service_floor_id: floor.id,
      hostname: floor.hostname,
      type: floor.floor_type,
      project_id: floor.project_id,
      environment_id: floor.environment_id,
    },
    ctx,
  );

/** What an audit entry records of a floor: its fields as its readers see them (its networks are the attachments' entries). */
export const auditedFloor = ({ network_ids: _n, audit_head: _h, ...rest }: Floor) => rest;

/** An environment's floors as stored (deleted and archived included), for a caller that already checked access. */
export const storedFloorsOf = async (projectId: string, envId: string): Promise<Floor[]> =>
  (await queryPrefix(projectId, keys.floorPrefix(envId))).map(floorEntity.decode);

// Every function a route calls takes (ctx, input): the caller is ctx.actor, and its access is
// loaded and checked here.

export async function createFloor(ctx: AppContext, input: CreateFloorInput): Promise<FloorOut> {
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id);
  access.require('floors.manage', FORBIDDEN_CREATE, env.id);
  const now = ctx.clock.now().toISOString();
  const floor = floorEntity.create({
    ...storedFields(input),
    id: ctx.ids.newId(),
    project_id: env.project_id,
    environment_id: env.id,
    floor_type: input.type,
    created_at: now,
    updated_at: now,
  });
  await transact([
    ...newFloorSteps(floor),
    envLiveCheck(floor.project_id, floor.environment_id),
    floorCreatedStep(floor, ctx),
    ...creationAudit(ctx, 'floor', floor, auditedFloor(floor)),
  ]);
  return floorView.project(floor);
}

export interface ListFloorsInput {
  project_id: string;
  environment_id: string;
  hostname?: string;
  tags?: string[];
  type?: FloorType;
  location?: string;
  zone?: string;
  updated_since?: string;
  /** Beyond SPEC: one page of the list (the whole list without `limit`). */
  offset?: number;
  limit?: number;
}

type FloorFilters = Pick<ListFloorsInput, 'hostname' | 'tags' | 'type' | 'location' | 'zone'>;
/** Whether a floor (or its listing item) passes GET /service-floors's filters (SPEC "Service floors"). */
export const matchesFloorFilters = (x: FloorListing, f: FloorFilters) =>
  (!f.hostname || containsCi(x.hostname, f.hostname)) &&
  (!f.tags?.length || hasAnyTag(x.tags, f.tags)) &&
  (!f.type || x.floor_type === f.type) &&
  (!f.location || atLocation(x, f.location)) &&
  (!f.zone || equalsCi(x.provider_zone, f.zone));

/**
 * An environment's floors, filtered, by hostname, from `offset` (the whole list without `limit`):
 * the access check alongside the Query of the environment's listing items in hostname order
 * (listing.ts), which stops once the page is full, then one BatchGet of the page's floors. With
 * `updated_since` (a sync, deleted and archived floors included) the floors are read whole.
 */
export async function listFloors(ctx: AppContext, f: ListFloorsInput): Promise<FloorOut[]> {
  const { project_id: projectId, environment_id: envId, offset = 0, limit } = f;
  const filtered = Boolean(f.hostname || f.tags?.length || f.type || f.location || f.zone);
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

const MANAGE = { key: 'floors.manage', detail: FORBIDDEN_MANAGE } as const;

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

export async function getFloor(ctx: AppContext, { floor_id }: { floor_id: string }): Promise<FloorOut> {
  const { floor } = await accessToFloor(floor_id, actorAccount(ctx).id, { key: 'floors.view', detail: FORBIDDEN_VIEW });
  return floorView.project(floor);
}

/** Changes the given fields; a change of a listed field re-runs from a new read when another one changed meanwhile (listing.ts). */
export const updateFloor = (ctx: AppContext, input: UpdateFloorInput & { floor_id: string }): Promise<FloorOut> =>
  retryWhenStale(() => updateFloorOnce(ctx, input));

async function updateFloorOnce(
  ctx: AppContext,
  { floor_id, ...input }: UpdateFloorInput & { floor_id: string },
): Promise<FloorOut> {
  const { access, floor, located } = await accessToFloor(floor_id, actorAccount(ctx).id, MANAGE);
  const wanted: Partial<Floor> = { ...storedFields(input), ...(input.type ? { floor_type: input.type } : {}) };
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(floor[k as keyof Floor])),
  );
  if (!Object.keys(changes).length) return floorView.project(floor);
  const updated_at = ctx.clock.now().toISOString();
  const after = { ...floor, ...changes, updated_at };
  const days = await retentionOfProject(access.project);
  const audit = changeAudit(
    ctx,
    'floor',
    'update',
    floor,
    { before: auditedFloor(floor), after: auditedFloor(after) },
    days,
  );
  await transact([
    ...floorListing.change(
      located.key,
      floor,
      { ...changes, updated_at, audit_head: audit.head },
      notFound(FLOOR_NOT_FOUND),
    ),
    ...audit.steps,
  ]);
  return floorView.project(after);
}

/**
 * The services (archived ones included, deleted ones not) on a floor: its range of the services'
 * reference listings (one Query), then those services (one BatchGet): proportional to the services on
 * it, never the environment's. A listing whose service no longer names the floor is passed over.
 */
async function hostedServices(projectId: string, envId: string, floorId: string): Promise<Service[]> {
  const listed = await queryPrefix<{ id: string }>(
    projectId,
    keys.listingPrefix('SERVICEREF', envId, keys.serviceRefPlace.floor(floorId)),
    { projection: ['id'] },
  );
  if (!listed.length) return [];
  const read = await batchGet(listed.map((l) => keys.service(projectId, envId, l.id)));
  return [...read.values()].map(serviceEntity.decode).filter((s) => !s.deleted_at && s.service_floor_id === floorId);
}

/**
 * Soft-deletes a floor. In the same operation its services are detached (`service_floor_id`
 * null, so their type becomes 'serverless'), the connections touching it are removed and its
 * network attachments are dropped. Detached services publish service.updated.
 */
export async function deleteFloor(ctx: AppContext, { floor_id: floorId }: { floor_id: string }): Promise<void> {
  await retryWhenStale(async () => {
    // Read again on a retry: the listing removed is the one of the floor as read (listing.ts).
    const { access, located, floor } = await accessToFloor(floorId, actorAccount(ctx).id, MANAGE);
    const { projectId, envId } = located;
    const days = await retentionOfProject(access.project);
    const now = ctx.clock.now().toISOString();
    const [hosted, edges] = await Promise.all([
      hostedServices(projectId, envId, floorId),
      edgeRemovalSteps(projectId, envId, floor, false, now),
    ]);
    // Archived services are detached too (not deleted, only hidden: they come back without the floor),
    // so the guard is "not deleted and still on this floor" (with the other references its listings hold,
    // as read) rather than the live rule; its reference listings follow (serviceRefListing).
    // Each detached service's service.updated is written with its detaching step (same chunk of the cascade).
    const cascade = [
      ...hosted.flatMap((s) => [
        setWhenStep(
          keys.service(projectId, envId, s.id),
          { service_floor_id: null, updated_at: now },
          {},
          CASCADE_STALE,
          allOf(NOT_DELETED, serviceRefListing.asRead(s)),
        ),
        ...serviceRefListing.steps(s, { ...s, service_floor_id: null }),
        projectEventStep(
          'service.updated',
          projectId,
          { ...serviceEventData(s), changed: ['service_floor_id', 'type'] },
          ctx,
        ),
      ]),
      ...edges.steps,
    ];
    // What the cascade did is part of the floor's entry: the services it detached.
    const audit = changeAudit(ctx, 'floor', 'delete', floor, { before: auditedFloor(floor), after: null }, days, {
      summary: { detached_service_ids: hosted.map((s) => s.id) },
    });
    // Its edges as read include the services it hosts: one set on it meanwhile fails this write (db/refs.ts).
    await transactWithCascade(cascade, [
      ...floorListing.change(
        located.key,
        floor,
        { deleted_at: now, updated_at: now, network_ids: [], audit_head: audit.head },
        notFound(FLOOR_NOT_FOUND),
        edges.asRead,
      ),
      ...audit.steps,
    ]);
  });
}
