import { keys } from '#db/keys';
import { batchGet } from '#db/batch-get';
import { allOf, isDeleted, NOT_DELETED, LIFECYCLE_FIELDS, type Lifecycle } from '#db/live';
import { queryPrefix } from '#db/query';
import { setWhenStep } from '#db/steps';
import { CASCADE_STALE, type TransactStep } from '#db/transact';
import type { AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';
import { deleteProjectUser, removeMember, type PeopleReferences } from '#domain/tenancy';
import { serviceRefListing } from './listings.ts';
import { serviceEntity, type Service } from './service-entity.ts';
import { serviceEventData } from './services/index.ts';

/**
 * A person leaves the project's people: a member removed (or leaving), a project user
 * deleted. The services that name them as responsible (`responsible_user_id`,
 * `responsible_project_user_id`) are cleared in the same change, found through the services'
 * reference listings (`serviceRefListing`: one Query per environment of the person's range, then one
 * BatchGet of those services), archived services included, so a restored one names nobody gone.
 * Tenancy owns the removal and calls these steps (`PeopleReferences`); the routes call the composed
 * functions below.
 */
type Field = 'responsible_user_id' | 'responsible_project_user_id';

function peopleReferences(field: Field, place: (id: string) => string): PeopleReferences {
  return async (ctx: AppContext, projectId: string, personId: string) => {
    const envs = await queryPrefix<{ id: string } & Lifecycle>(projectId, keys.environmentPrefix, {
      projection: ['id', ...LIFECYCLE_FIELDS],
    });
    const named = await Promise.all(
      envs
        .filter((e) => !isDeleted(e))
        .map(async (env) => {
          const listed = await queryPrefix<{ id: string }>(
            projectId,
            keys.listingPrefix('SERVICEREF', env.id, place(personId)),
            { projection: ['id'] },
          );
          if (!listed.length) return [];
          const read = await batchGet(listed.map((l) => keys.service(projectId, env.id, l.id)));
          return [...read.values()].map(serviceEntity.decode).filter((s) => !s.deleted_at && s[field] === personId);
        }),
    );
    const services: Service[] = named.flat();
    const now = ctx.clock.now().toISOString();
    const steps: TransactStep[] = services.flatMap((s) => [
      // Not deleted (archived ones too), still naming them, its other references as its listings hold them: else read again.
      setWhenStep(
        keys.service(projectId, s.environment_id, s.id),
        { [field]: null, updated_at: now },
        {},
        CASCADE_STALE,
        allOf(NOT_DELETED, serviceRefListing.asRead(s)),
      ),
      ...serviceRefListing.steps(s, { ...s, [field]: null }),
      projectEventStep('service.updated', projectId, { ...serviceEventData(s), changed: [field] }, ctx),
    ]);
    return { steps, serviceIds: services.map((s) => s.id) };
  };
}

/** DELETE /projects/{id}/members/{user_id}: tenancy's removal, with the services naming the member cleared. */
export const removeMemberAndReferences = (ctx: AppContext, input: { project_id: string; user_id: string }) =>
  removeMember(ctx, input, peopleReferences('responsible_user_id', keys.serviceRefPlace.member));

/** DELETE /project-users/{id}: tenancy's delete, with the services naming the person cleared. */
export const deleteProjectUserAndReferences = (ctx: AppContext, input: { id: string }) =>
  deleteProjectUser(ctx, input, peopleReferences('responsible_project_user_id', keys.serviceRefPlace.projectUser));
