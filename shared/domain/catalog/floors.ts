import * as z from 'zod';
import { keys } from '#db/keys';
import { transact, retryWhenStale, type TransactStep } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { catalogLookupStep } from './items.ts';
import { ipAddress, optionalText, provider, tags } from './fields.ts';
import { SERVER_SPEC_MAX } from '#domain/billing';
import { floorEntity, floorType, floorView, type Floor, type FloorOut } from './floor-entity.ts';
import { accessInEnvironment, envLiveCheck, retentionOfProject } from '#domain/tenancy';
import { changeAudit, creationAudit } from '#shared/audit';
import { floorListing } from './listings.ts';
import { putNewStep } from '#db/steps';
import { lazySchema, lazyShape } from '#shared/lazy-schema';
import { FLOOR_NOT_FOUND, FORBIDDEN_CREATE } from './floor-refusals.ts';
import { accessToFloor, MANAGE } from './floor-access.ts';
import { customFieldsInput } from './custom-fields/input.ts';
import { withValues } from './services/audit-and-events.ts';
import { catalogueUnchangedStep, readCatalogue, valuesForWrite } from './custom-fields/catalogue.ts';

/**
 * Service floors: the servers (VMs, containers, bare metal) services run on (the entity: floor-entity.ts),
 * their fields, creation and changes; reading them: floor-reads.ts; deleting one: floor-delete.ts.
 */

const specField = (max: number) => z.number().int().min(0).max(max).nullish();

/** The writable fields; SPEC's flat specification (no nested specs, no monthly cost). */
export const floorFields = lazyShape(() => ({
  hostname: optionalText(253),
  provider: provider().nullish(),
  provider_region: optionalText(),
  provider_zone: optionalText(),
  provider_instance_id: optionalText(),
  ip_address: ipAddress().nullish(),
  ip_addresses: z.array(ipAddress()).max(64).nullish(),
  // Bounded so that a cost estimate stays an exact integer (billing's SERVER_SPEC_MAX).
  cpu: specField(SERVER_SPEC_MAX.cpu),
  memory_mb: specField(SERVER_SPEC_MAX.memory_mb),
  storage_gb: specField(SERVER_SPEC_MAX.storage_gb),
  instances: specField(SERVER_SPEC_MAX.instances),
  tags: tags(),
}));
export const createFloorBody = lazySchema(() =>
  z.object({
    project_id: z.uuid(),
    environment_id: z.uuid(),
    type: floorType(),
    ...floorFields(),
    custom_fields: customFieldsInput(),
  }),
);
export const updateFloorBody = lazySchema(() =>
  z.object({ type: floorType().optional(), ...floorFields(), custom_fields: customFieldsInput() }),
);
export type CreateFloorInput = z.output<ReturnType<typeof createFloorBody>>;
export type UpdateFloorInput = z.output<ReturnType<typeof updateFloorBody>>;

/** Request values → stored values: lists default to empty, the rest to null. */
function storedFields(input: Partial<Record<keyof ReturnType<typeof floorFields>, unknown>>): Partial<Floor> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (!(field in floorFields()) || value === undefined) continue;
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
      ...withValues(floor.custom_fields),
    },
    ctx,
  );

/** What an audit entry records of a floor: its fields as its readers see them (its networks are the attachments' entries). */
export const auditedFloor = ({ network_ids: _n, audit_head: _h, ...rest }: Floor) => rest;

// Every function a route calls takes (ctx, input): the caller is ctx.actor, and its access is
// loaded and checked here.

/** Re-run from a new read when a definition changed under it (its values hold on the catalogue's version). */
export const createFloor = (ctx: AppContext, input: CreateFloorInput): Promise<FloorOut> =>
  retryWhenStale(() => createFloorOnce(ctx, input));

async function createFloorOnce(ctx: AppContext, input: CreateFloorInput): Promise<FloorOut> {
  const [{ access, env }, catalogue] = await Promise.all([
    accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id),
    readCatalogue(input.project_id),
  ]);
  access.require('floors.manage', FORBIDDEN_CREATE, env.id);
  const customFields = await valuesForWrite(catalogue, 'service_floor', input.custom_fields);
  const now = ctx.clock.now().toISOString();
  const floor = floorEntity.create({
    ...storedFields(input),
    id: ctx.ids.newId(),
    project_id: env.project_id,
    environment_id: env.id,
    floor_type: input.type,
    custom_fields: customFields,
    created_at: now,
    updated_at: now,
  });
  await transact([
    ...newFloorSteps(floor),
    envLiveCheck(floor.project_id, floor.environment_id),
    catalogueUnchangedStep(catalogue),
    floorCreatedStep(floor, ctx),
    ...creationAudit(ctx, 'floor', floor, auditedFloor(floor)),
  ]);
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
  const catalogue = input.custom_fields ? await readCatalogue(floor.project_id) : undefined;
  if (catalogue)
    wanted.custom_fields = await valuesForWrite(catalogue, 'service_floor', input.custom_fields, floor.custom_fields);
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
    ...(catalogue ? [catalogueUnchangedStep(catalogue)] : []),
  ]);
  return floorView.project(after);
}
