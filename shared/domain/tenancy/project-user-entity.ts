import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/** The project user entity (see shared/db/entity.ts): a project-local person (may have no login), e.g. the one responsible for a service. */
const text = () => z.string().nullable().default(null);

export const projectUserEntity = defineEntity('project_user', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    email: text(),
    job_title: text(),
    phone: text(),
    notes: text(),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
    /** Moved on by every service that names them as responsible, so that their delete clears every one (db/refs.ts). Internal. */
    refs_version: z.number().int().nullish(),
  }),
);
export type ProjectUser = z.infer<typeof projectUserEntity.schema>;

export const projectUserView = defineView(projectUserEntity, {
  id: true,
  project_id: true,
  name: true,
  email: true,
  job_title: true,
  phone: true,
  notes: true,
  updated_at: true,
  deleted_at: true,
});
export type ProjectUserOut = z.infer<typeof projectUserView.schema>;
