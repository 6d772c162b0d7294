import { z } from 'zod';
import { defineEntity, type EntityItem } from '#db/entity';

/**
 * The link entity: the one definition of a service-to-service edge, `from_service_id` depends on
 * `to_service_id` (shared/db/entity.ts has the pattern). Field names are a contract: the services
 * group deletes links by them (edgeRemovalSteps).
 */
export const linkEntity = defineEntity({
  type: 'link',
  schema: z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    from_service_id: z.uuid(),
    to_service_id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  }),
  defaults: { deleted_at: null },
  out: ['id', 'project_id', 'environment_id', 'from_service_id', 'to_service_id', 'created_at', 'updated_at', 'deleted_at'],
});

export type Link = EntityItem<typeof linkEntity>;
export type LinkOut = ReturnType<typeof linkEntity.out>;
/** The response schema of a link (every /service-links route). */
export const linkOut = linkEntity.outSchema;
