import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/** The two key sets of an account: `/me/api-keys` and `/me/metrics-api-keys` (SPEC "API key"). */
export const API_KEY_SETS = ['api', 'metrics'] as const;
export type ApiKeySet = (typeof API_KEY_SETS)[number];

/**
 * The API key entity (shared/db/entity.ts has the pattern): the stored item keeps the SHA-256 hash
 * of the value (`key_hash`) and its first characters (`prefix`), never the value itself. It follows
 * the live rule (`deleted_at` on revoke; `archived_at` when archived with its owner), so lists and the limit see
 * live keys only. A client sees neither the hash nor the set.
 */
export const apiKeyEntity = defineEntity('api_key', () =>
  z.object({
    id: z.uuid(),
    user_id: z.uuid(),
    key_set: z.enum(API_KEY_SETS),
    name: z.string(),
    scopes: z.array(z.string()).default([]),
    /** The projects the key's tokens may reach; null: every project of the account. */
    project_ids: z.array(z.string()).nullable().default(null),
    prefix: z.string(),
    key_hash: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string().nullable().default(null),
    last_used_at: z.string().nullable().default(null),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
  }),
);
export type ApiKey = z.infer<typeof apiKeyEntity.schema>;

export const apiKeyView = defineView(apiKeyEntity, {
  id: true,
  name: true,
  scopes: true,
  project_ids: true,
  prefix: true,
  created_at: true,
  expires_at: true,
  last_used_at: true,
});
export type ApiKeyOut = z.infer<typeof apiKeyView.schema>;
/** The response schema of a key record (GET lists); POST adds the value once (`apiKeyCreatedOut`). */
/** The response schema (built at first use: `responses` are read by the OpenAPI document only). */
export const apiKeyOut = () => apiKeyView.schema;
export const apiKeyCreatedOut = () => apiKeyOut().extend({ key: z.string() });
