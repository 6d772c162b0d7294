import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/** A custom field's deletion job: queued → running → succeeded | failed, with how many items it took the value off. */
export const customFieldJobEntity = defineEntity('custom_field_job', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    key: z.string(),
    kind: z.literal('delete').default('delete'),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    items_updated: z.number().int().default(0),
    error: z.string().nullable().default(null),
    created_by: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable().default(null),
  }),
);
export type CustomFieldJob = z.infer<typeof customFieldJobEntity.schema>;

export const customFieldJobView = defineView(customFieldJobEntity, {
  id: true,
  project_id: true,
  key: true,
  kind: true,
  status: true,
  items_updated: true,
  error: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  finished_at: true,
});
