import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { defineEntity, defineView } from '#db/entity';
import { customValues } from './custom-values.ts';

/** The service entity (see entity.ts for the pattern): what a service item stores, and what a client sees of it. */

const text = () => z.string().nullable().default(null);
const id = () => z.uuid().nullable().default(null);
const int = () => z.number().int().nullable().default(null);

/** A declared dependency on another repository, as stored (GET /services/{id}/repository-deps). */
export const storedRepositoryDep = lazySchema(() =>
  z.object({
    name: z.string(),
    repository_url: z.string().nullable(),
    version: z.string().nullable(),
  }),
);
export type RepositoryDep = z.infer<ReturnType<typeof storedRepositoryDep>>;

export const serviceEntity = defineEntity('service', () =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    owner_user_id: z.uuid(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    service_floor_id: id(),
    group_id: id(),
    subgroup_id: id(),
    category: text(),
    replicas: int(),
    provider: text(),
    provider_region: text(),
    provider_zone: text(),
    tracker_project_key: text(),
    port: int(),
    ip_address: text(),
    agent_id: id(),
    responsible_project_user_id: id(),
    responsible_user_id: id(),
    responsible_name: text(),
    programming_language: text(),
    programming_language_version: text(),
    repository_url: text(),
    version: text(),
    links: z.array(z.string()).default([]),
    tags: z.array(z.string()).default([]),
    repository_deps: z.array(storedRepositoryDep()).default([]),
    /** The attached networks (see attachments.ts). */
    network_ids: z.array(z.uuid()).default([]),
    /** Custom field values by key (custom-fields/: checked against the project's definitions on every write). */
    custom_fields: customValues().default({}),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable().default(null),
    archived_at: z.string().nullish(),
    /** The sort key of its latest audit entry (kept without TTL until a later one replaces it; shared/audit.ts). Internal. */
    /** Moved on by every edge added to it, so that its delete misses none (db/refs.ts). Internal. */
    refs_version: z.number().int().nullish(),
    audit_head: z.string().nullish(),
  }),
);
export type Service = z.infer<typeof serviceEntity.schema>;

/** A service's answer: its fields, with its floor's type and its group names (which live on other items) resolved. */
export const serviceView = defineView(serviceEntity, {
  id: true,
  name: true,
  owner_user_id: true,
  project_id: true,
  environment_id: true,
  service_floor_id: true,
  group_id: true,
  subgroup_id: true,
  group_name: () => z.string().nullable(),
  subgroup_name: () => z.string().nullable(),
  /** The floor's type, or 'serverless' without a floor. */
  type: () => z.string(),
  category: true,
  replicas: true,
  provider: true,
  provider_region: true,
  provider_zone: true,
  tracker_project_key: true,
  port: true,
  ip_address: true,
  agent_id: true,
  responsible_project_user_id: true,
  responsible_user_id: true,
  responsible_name: true,
  programming_language: true,
  programming_language_version: true,
  repository_url: true,
  version: true,
  links: true,
  tags: true,
  repository_deps: true,
  custom_fields: true,
  updated_at: true,
  deleted_at: true,
});
export type ServiceOut = z.infer<typeof serviceView.schema>;
