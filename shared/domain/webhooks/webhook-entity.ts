import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';
import { EVENT_TYPES } from '#shared/events';

/** A webhook of a project: where to deliver which events, signed with its secret (during a rotation's grace, the previous one signs too). */
export const webhookEntity = defineEntity('webhook', () =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    description: z.string().nullable().default(null),
    enabled: z.boolean().default(true),
    /** The signing secret (`whsec_` + base64 of 32 random bytes), sealed (`#auth/secret-box`): the key of both signatures. */
    secret: z.string(),
    previous_secret: z.string().nullable().default(null),
    previous_secret_until: z.string().nullable().default(null),
    /** Since when every delivery has failed (null while the last one succeeded): 5 days of it disables the webhook. */
    failing_since: z.string().nullable().default(null),
    disabled_reason: z.string().nullable().default(null),
    created_by_user_id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
    audit_head: z.string().nullish(),
  }),
);
export type Webhook = z.infer<typeof webhookEntity.schema>;

export const webhookView = defineView(webhookEntity, {
  id: true,
  project_id: true,
  url: true,
  events: true,
  description: true,
  enabled: true,
  disabled_reason: true,
  failing_since: true,
  previous_secret_until: true,
  created_at: true,
  updated_at: true,
});
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const webhookOut = () => webhookView.schema;
