import * as z from 'zod';
import { name as nameSchema } from '#shared/schemas';
import { ipAddress, nonNegativeInt, optionalText, provider, tags, urlWithScheme } from '../fields.ts';
import type { RepositoryDep, Service } from '../service-entity.ts';
import { lazySchema, lazyShape } from '#shared/lazy-schema';
import { customFieldsInput } from '../custom-fields/input.ts';

/** A service's request bodies and their values as stored. */

/** A declared dependency on another repository, as a request sends it. */
export const repositoryDep = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(200),
    repository_url: urlWithScheme(['https://', 'git://']).nullish(),
    version: optionalText(100),
  }),
);

/** The writable fields (all optional on create except name; null clears). */
export const serviceFields = lazyShape(() => ({
  service_floor_id: z.uuid().nullish(),
  group_id: z.uuid().nullish(),
  subgroup_id: z.uuid().nullish(),
  category: optionalText(64),
  replicas: nonNegativeInt(),
  provider: provider().nullish(),
  provider_region: optionalText(),
  provider_zone: optionalText(),
  tracker_project_key: optionalText(100),
  port: z.number().int().min(1).max(65535).nullish(),
  ip_address: ipAddress().nullish(),
  agent_id: z.uuid().nullish(),
  responsible_project_user_id: z.uuid().nullish(),
  responsible_user_id: z.uuid().nullish(),
  responsible_name: optionalText(200),
  programming_language: optionalText(100),
  programming_language_version: optionalText(100),
  repository_url: urlWithScheme(['https://', 'git://']).nullish(),
  version: optionalText(100),
  links: z
    .array(urlWithScheme(['http://', 'https://']))
    .max(50)
    .nullish(),
  tags: tags(),
  repository_deps: z.array(repositoryDep()).max(200).nullish(),
}));
type Writable = keyof ReturnType<typeof serviceFields>;
const LIST_FIELDS: Writable[] = ['links', 'tags', 'repository_deps'];

/** owner_user_id, type, group_name, subgroup_name and unknown fields in a body are ignored (zod strips them). */
export const createServiceBody = lazySchema(() =>
  z.object({
    name: nameSchema(),
    project_id: z.uuid(),
    environment_id: z.uuid(),
    ...serviceFields(),
    custom_fields: customFieldsInput(),
  }),
);
/** project_id and environment_id never change: sent in a PATCH body they are ignored, like the read-only fields. */
export const updateServiceBody = lazySchema(() =>
  z.object({ name: nameSchema().optional(), ...serviceFields(), custom_fields: customFieldsInput() }),
);
export type CreateServiceInput = z.output<ReturnType<typeof createServiceBody>>;
export type UpdateServiceInput = z.output<ReturnType<typeof updateServiceBody>>;

/** Request values → stored values: lists default to empty, the rest to null. */
export function storedFields(input: Partial<Record<Writable | 'name', unknown>>): Partial<Service> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined || !(field in serviceFields() || field === 'name')) continue;
    out[field] = LIST_FIELDS.includes(field as Writable) ? normalizeList(field, value) : value;
  }
  return out as Partial<Service>;
}
function normalizeList(field: string, value: unknown) {
  if (!value) return [];
  if (field !== 'repository_deps') return value;
  return (value as Partial<RepositoryDep>[]).map((d) => ({
    name: d.name!,
    repository_url: d.repository_url ?? null,
    version: d.version ?? null,
  }));
}
