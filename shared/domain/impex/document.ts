import * as z from 'zod';
import { isoTimestamp, name as nameSchema } from '#shared/schemas';
import {
  connectionName,
  createNetworkBody,
  DIRECTIONS,
  floorFields,
  floorType,
  GROUP_KINDS,
  MAX_ATTACHED_NETWORKS,
  MAX_CHAIN_CONNECTIONS,
  serviceFields,
  customFieldsInput,
} from '#domain/catalog';
import { groupDescription } from '#domain/tenancy';
import { lazySchema } from '#shared/lazy-schema';

/**
 * The import/export document of one environment: YAML (JSON is accepted too, being
 * YAML), an envelope `apiVersion` / `kind` / `metadata` and a `spec` of the environment's groups
 * (with their subgroups), service floors, networks, services, service links, network
 * attachments and service connections (on their own, and in chains and hubs). Entities refer to each other by name (floors by hostname), never by id, so an export
 * imports into any environment. These zod schemas are the one source: the type, the validation of
 * an upload and the served JSON Schema all come from them, and the field schemas are the request
 * schemas of the catalog's routes (same bounds, same messages).
 *
 * An entity in the document is its whole state: a field left out is null (a list empty, a
 * network private), so an export (which leaves out empty fields) re-imports to the same data.
 */

export const IMPEX_API_VERSION = 'infracatalog/v1';
export const IMPEX_KIND = 'Environment';

/** The service fields a document carries as values (the references by id are replaced by names; see decisions). */
const SERVICE_VALUE_FIELDS = [
  'category',
  'replicas',
  'provider',
  'provider_region',
  'provider_zone',
  'tracker_project_key',
  'port',
  'ip_address',
  'agent_id',
  'responsible_name',
  'programming_language',
  'programming_language_version',
  'repository_url',
  'version',
  'links',
  'tags',
  'repository_deps',
] as const satisfies readonly (keyof ReturnType<typeof serviceFields>)[];
export const SERVICE_DOCUMENT_FIELDS: readonly (typeof SERVICE_VALUE_FIELDS)[number][] = SERVICE_VALUE_FIELDS;

/**
 * The document's schema, built at its first use (an upload validated, the JSON Schema served), not
 * at import: some 6 ms of the impex function's and the jobs worker's cold start.
 */
const documentSchema = lazySchema(() => {
  /** A reference to another entity of the document by its name (hostname for floors). */
  const ref = (max = 200) => z.string().trim().min(1).max(max);
  const hostnameRef = ref(253);
  const custom_fields = customFieldsInput(); // an entity's whole set of values: a key left out has its default or none

  const subgroup = z.strictObject({ name: nameSchema(), description: groupDescription() });
  const group = z.strictObject({
    name: nameSchema(),
    description: groupDescription(),
    subgroups: z.array(subgroup).nullish(),
  });

  /** A floor: SPEC's flat fields, the type required; `hostname` is how the rest of the document names it. */
  const { hostname, ...floorValues } = floorFields();
  const serviceFloor = z.strictObject({ hostname, type: floorType(), ...floorValues, custom_fields });

  const { name, cidr, is_private, gateway, vlan_id, description } = createNetworkBody().shape;
  const network = z.strictObject({
    name,
    cidr,
    is_private: is_private.removeDefault().nullish(),
    gateway,
    vlan_id,
    description,
    custom_fields,
  });

  const serviceValues = Object.fromEntries(SERVICE_VALUE_FIELDS.map((f) => [f, serviceFields()[f]])) as Pick<
    ReturnType<typeof serviceFields>,
    (typeof SERVICE_VALUE_FIELDS)[number]
  >;

  const service = z.strictObject({
    name: nameSchema(),
    /** The group's name; `subgroup` is a subgroup of that group. */
    group: ref().nullish(),
    subgroup: ref().nullish(),
    /** The hostname of the floor it runs on; none: serverless. */
    floor: hostnameRef.nullish(),
    ...serviceValues,
    custom_fields,
  });

  /** `from` depends on `to` (service names). */
  const serviceLink = z.strictObject({ from: ref(), to: ref() });

  /** The networks (by name) a service or a floor (exactly one of the two) is attached to: its whole set. */
  const networkAttachment = z.strictObject({
    service: ref().nullish(),
    service_floor: hostnameRef.nullish(),
    networks: z.array(ref()).max(MAX_ATTACHED_NETWORKS),
  });

  /** A connection end: a service (by name) or a service floor (by hostname), exactly one of the two. */
  const connectionEnd = z.strictObject({ service: ref().nullish(), service_floor: hostnameRef.nullish() });
  /** A service connection as the API has it, its ends named. */
  const connection = z.strictObject({
    a: connectionEnd,
    b: connectionEnd,
    direction: z.enum(DIRECTIONS).default('none'),
    name: connectionName(),
  });
  /** A chain or hub (what a batch creates): its kind and its members in order. */
  const connectionGroup = z.strictObject({
    group_kind: z.enum(GROUP_KINDS),
    connections: z.array(connection).min(1).max(MAX_CHAIN_CONNECTIONS),
  });

  const named = z.strictObject({ id: z.string(), name: z.string() });

  return z.strictObject({
    apiVersion: z.literal(IMPEX_API_VERSION),
    kind: z.literal(IMPEX_KIND),
    /** Where the document came from; informative only (an import targets the environment it is given). */
    metadata: z
      .object({
        project: named.nullish(),
        environment: named.nullish(),
        exported_at: isoTimestamp().nullish(),
        source_record: z.string().nullish(),
      })
      .default({}),
    spec: z.strictObject({
      groups: z.array(group).default([]),
      service_floors: z.array(serviceFloor).default([]),
      networks: z.array(network).default([]),
      services: z.array(service).default([]),
      service_links: z.array(serviceLink).default([]),
      network_attachments: z.array(networkAttachment).default([]),
      /** Connections in no chain or hub. */
      connections: z.array(connection).default([]),
      connection_groups: z.array(connectionGroup).default([]),
    }),
  });
});

/** The document's validation (`parse`, `safeParse`), its schema built at the first call. */
export const environmentDocument = {
  parse: (input: unknown): EnvironmentDocument => documentSchema().parse(input),
  safeParse: (input: unknown) => documentSchema().safeParse(input),
};

export type EnvironmentDocument = z.output<ReturnType<typeof documentSchema>>;
export type DocumentSpec = EnvironmentDocument['spec'];
export type DocumentGroup = DocumentSpec['groups'][number];
export type DocumentFloor = DocumentSpec['service_floors'][number];
export type DocumentNetwork = DocumentSpec['networks'][number];
export type DocumentService = DocumentSpec['services'][number];
export type DocumentLink = DocumentSpec['service_links'][number];
export type DocumentAttachment = DocumentSpec['network_attachments'][number];
export type DocumentConnection = DocumentSpec['connections'][number];
export type DocumentConnectionEnd = DocumentConnection['a'];
export type DocumentConnectionGroup = DocumentSpec['connection_groups'][number];

/**
 * The JSON Schema of the document (GET /impex/schema), generated from the same zod schemas. It
 * describes what may be written (`io: 'input'`: sections and defaulted fields optional); the rules
 * across entities (unique names, references) are checked on import and described in the schema's
 * description.
 */
export function documentJsonSchema(): object {
  return {
    ...z.toJSONSchema(documentSchema(), { io: 'input', target: 'draft-2020-12' }),
    $id: `https://infracatalog.dev/schemas/${IMPEX_API_VERSION}/environment.json`,
    title: 'Infrastructure catalog environment document',
    description:
      'One environment: groups (with subgroups), service floors, networks, services, service links, network attachments, ' +
      'and service connections (on their own, and in chains and hubs: connection_groups). ' +
      'Entities refer to each other by name (floors by hostname); names are unique (ignoring case): group names, subgroup names within their group, ' +
      'floor hostnames, network names and service names. Every referenced name must be defined in the document. ' +
      'A connection end names exactly one of service or service_floor; two connections may not join the same two ends in the same direction. ' +
      'An entity is its whole state: an omitted field is null (a list empty, a network private).',
  };
}

/** A specimen document (GET /impex/example): it validates against the schema and imports as it is. */
export function exampleDocument(): EnvironmentDocument {
  return {
    apiVersion: IMPEX_API_VERSION,
    kind: IMPEX_KIND,
    metadata: {
      project: { id: '00000000-0000-4000-8000-000000000001', name: 'shop' },
      environment: { id: '00000000-0000-4000-8000-000000000002', name: 'production' },
      exported_at: '2025-01-01T00:00:00.000Z',
      source_record: null,
    },
    spec: {
      groups: [
        {
          name: 'backend',
          description: 'Server-side applications',
          subgroups: [{ name: 'payments', description: null }],
        },
        { name: 'frontend', description: null, subgroups: [] },
      ],
      service_floors: [
        {
          hostname: 'db-1.internal',
          type: 'vm',
          provider: 'aws',
          provider_region: 'eu-west-1',
          provider_zone: 'eu-west-1a',
          cpu: 4,
          memory_mb: 16384,
          storage_gb: 200,
          tags: ['database'],
        },
        {
          hostname: 'k8s-node-1.internal',
          type: 'container',
          provider: 'aws',
          provider_region: 'eu-west-1',
          instances: 3,
        },
      ],
      networks: [
        {
          name: 'private',
          cidr: '10.0.0.0/16',
          is_private: true,
          gateway: '10.0.0.1',
          vlan_id: 100,
          description: 'Application network',
        },
        { name: 'public', cidr: '203.0.113.0/24', is_private: false },
      ],
      services: [
        {
          name: 'api',
          group: 'backend',
          floor: 'k8s-node-1.internal',
          category: 'http',
          replicas: 3,
          provider: 'aws',
          port: 8080,
          programming_language: 'typescript',
          programming_language_version: '5',
          repository_url: 'https://git.example.com/shop/api',
          version: '1.4.0',
          links: ['https://api.example.com/health'],
          tags: ['public'],
          repository_deps: [
            { name: 'shared-lib', repository_url: 'https://git.example.com/shop/lib', version: '2.1.0' },
          ],
        },
        {
          name: 'checkout',
          group: 'backend',
          subgroup: 'payments',
          floor: 'k8s-node-1.internal',
          port: 8081,
          programming_language: 'go',
        },
        { name: 'postgres', floor: 'db-1.internal', category: 'database', port: 5432, version: '16' },
        { name: 'web', group: 'frontend', category: 'spa', tags: ['public'] },
      ],
      service_links: [
        { from: 'api', to: 'postgres' },
        { from: 'checkout', to: 'api' },
        { from: 'web', to: 'api' },
      ],
      network_attachments: [
        { service: 'api', networks: ['private', 'public'] },
        { service_floor: 'db-1.internal', networks: ['private'] },
      ],
      connections: [
        { a: { service: 'postgres' }, b: { service_floor: 'db-1.internal' }, direction: 'a_to_b', name: 'data volume' },
      ],
      connection_groups: [
        {
          group_kind: 'chain',
          connections: [
            { a: { service: 'web' }, b: { service: 'api' }, direction: 'a_to_b', name: 'https' },
            { a: { service: 'api' }, b: { service: 'checkout' }, direction: 'both' },
          ],
        },
      ],
    },
  };
}
