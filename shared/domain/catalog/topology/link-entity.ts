import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/**
 * The link entity (shared/db/entity.ts has the pattern): a service-to-service edge,
 * `from_service_id` depends on `to_service_id`. Field names are a contract: the services group
 * deletes links by them (edgeRemovalSteps).
 */
export const linkEntity = defineEntity('link', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    from_service_id: z.uuid(),
    to_service_id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Link = z.infer<typeof linkEntity.schema>;

export const linkView = defineView(linkEntity, {
  id: true,
  project_id: true,
  environment_id: true,
  from_service_id: true,
  to_service_id: true,
  created_at: true,
  updated_at: true,
  deleted_at: true,
});
/** The response schema of a link (every /service-links route). */
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const linkOut = () => linkView.schema;
