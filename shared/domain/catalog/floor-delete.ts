import { keys } from '#db/keys';
import { retryWhenStale, transactWithCascade, CASCADE_STALE } from '#db/transact';
import { notFound } from '#shared/errors';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { edgeRemovalSteps } from './items.ts';
import type { Service } from './service-entity.ts';
import { serviceEventData } from './services/index.ts';
import { queryPrefix } from '#db/query';
import { retentionOfProject } from '#domain/tenancy';
import { changeAudit } from '#shared/audit';
import { allOf, NOT_DELETED } from '#db/live';
import { serviceRefListing, floorListing } from './listings.ts';
import { serviceEntity } from './service-entity.ts';
import { batchGet } from '#db/batch-get';
import { setWhenStep } from '#db/steps';
import { FLOOR_NOT_FOUND } from './floor-refusals.ts';
import { accessToFloor, MANAGE } from './floor-access.ts';
import { auditedFloor } from './floors.ts';

/** Deleting a floor: its services detached, its connections and network attachments removed, in one operation. */

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
