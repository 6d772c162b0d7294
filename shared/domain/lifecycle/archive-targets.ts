import { batchGet, keyId, type Key } from '#db/batch-get';
import { keys } from '#db/keys';
import { isLive, isArchived, isDeleted } from '#db/live';
import { lookupEntity, type Lookup } from '#db/lookup';
import { notFound } from '#shared/errors';
import { API_KEY_NOT_FOUND, API_KEY_SETS } from '#domain/billing';
import {
  ENVIRONMENT_NOT_FOUND,
  PROJECT_USER_NOT_FOUND,
  environmentEntity,
  projectEntity,
  type Environment,
  type Project,
} from '#domain/tenancy';
import { FLOOR_NOT_FOUND, SERVICE_NOT_FOUND } from '#domain/catalog';
import { ARCHIVABLE_KINDS, type ArchivableKind, type Selection } from './selection.ts';
import { archivedEntity, itemKeyOf, markerKey, type ArchivedMarker } from './archived-entity.ts';

/**
 * Which resources a selection names, read and checked before anything is written: the owner's own
 * (projects whose `owner_id` is the owner, API keys under the owner's account), in the state the
 * operation needs (live to archive, archived to restore). Anything else is the kind's usual 404,
 * byte for byte the body its own routes give, so a foreign id looks like an unknown one.
 */

export const NOT_FOUND_DETAIL: Record<ArchivableKind, string> = {
  services: SERVICE_NOT_FOUND,
  environments: ENVIRONMENT_NOT_FOUND,
  project_users: PROJECT_USER_NOT_FOUND,
  api_keys: API_KEY_NOT_FOUND,
  service_floors: FLOOR_NOT_FOUND,
};

/** The id-lookup kind of each project-scoped kind (shared/db/lookup.ts). */
const LOOKUP_KIND: Record<Exclude<ArchivableKind, 'api_keys'>, string> = {
  services: 'service',
  environments: 'environment',
  project_users: 'project_user',
  service_floors: 'floor',
};

/** Kinds that live in an environment (their environment must be live for them to be reachable). */
export const IN_ENVIRONMENT: readonly ArchivableKind[] = ['services', 'service_floors'];

export interface Target {
  kind: ArchivableKind;
  id: string;
  key: Key;
  item: Record<string, unknown>;
  /** The project holding it (absent for API keys). */
  project?: Project;
  /** A service's or floor's environment; an environment itself. */
  env?: Environment;
}

export const notFoundOf = (kind: ArchivableKind) => notFound(NOT_FOUND_DETAIL[kind]);

/** A name a person recognises: the resource's name; a floor's hostname, or its type and id without one. */
export function nameOf(kind: ArchivableKind, item: Record<string, unknown>): string {
  if (kind !== 'service_floors') return String(item.name ?? '');
  return (item.hostname as string | null) ?? `${String(item.floor_type)} ${String(item.id).slice(0, 8)}`;
}

/** The keys of a target's project and environment, whose counters its units move. */
export const projectKey = (t: Target) => keys.project(t.project!.id);
export const envKey = (t: Target) => keys.environment(t.project!.id, t.env!.id);

/** The selection's ids per kind, each once, in the order given. */
export const selectedIds = (selection: Selection, kind: ArchivableKind): string[] => [
  ...new Set(selection[kind] ?? []),
];

const isOwnedProject = (project: Project | undefined, ownerId: string): project is Project =>
  Boolean(project && isLive(project) && project.owner_id === ownerId);

/**
 * The live resources a selection names, in ARCHIVABLE_KINDS order: two BatchGets (id lookups and the
 * owner's API keys; then items with their projects and environments). The first id that is unknown,
 * foreign or not live is its kind's 404.
 */
export async function resolveLive(ownerId: string, selection: Selection): Promise<Target[]> {
  const apiKeyKeys = (id: string) => API_KEY_SETS.map((set) => keys.apiKey(ownerId, set, id));
  const scoped = ARCHIVABLE_KINDS.filter((k): k is Exclude<ArchivableKind, 'api_keys'> => k !== 'api_keys');
  const first = await batchGet([
    ...scoped.flatMap((kind) => selectedIds(selection, kind).map((id) => keys.idLookup(id))),
    ...selectedIds(selection, 'api_keys').flatMap(apiKeyKeys),
  ]);
  const lookups = new Map<string, { kind: ArchivableKind; lookup: Lookup }>();
  for (const kind of scoped) {
    for (const id of selectedIds(selection, kind)) {
      const lookup = lookupEntity.decodeFound(first.get(keyId(keys.idLookup(id))));
      if (lookup?.kind === LOOKUP_KIND[kind]) lookups.set(`${kind}#${id}`, { kind, lookup });
    }
  }
  const envIdOf = (id: string, kind: ArchivableKind, lookup: Lookup) =>
    kind === 'environments' ? id : IN_ENVIRONMENT.includes(kind) ? (lookup.environment_id ?? undefined) : undefined;
  const second = await batchGet(
    [...lookups.entries()].flatMap(([ref, { kind, lookup }]) => {
      const envId = envIdOf(ref.slice(kind.length + 1), kind, lookup);
      return [
        { PK: lookup.item_pk, SK: lookup.item_sk },
        keys.project(lookup.project_id),
        ...(envId ? [keys.environment(lookup.project_id, envId)] : []),
      ];
    }),
  );

  const targets: Target[] = [];
  for (const kind of ARCHIVABLE_KINDS) {
    for (const id of selectedIds(selection, kind)) {
      if (kind === 'api_keys') {
        const item = apiKeyKeys(id)
          .map((k) => first.get(keyId(k)))
          .find(Boolean);
        if (!isLive(item)) throw notFoundOf(kind);
        targets.push({ kind, id, key: { PK: item!.PK as string, SK: item!.SK as string }, item: item! });
        continue;
      }
      const found = lookups.get(`${kind}#${id}`);
      if (!found) throw notFoundOf(kind);
      const { lookup } = found;
      const key = { PK: lookup.item_pk, SK: lookup.item_sk };
      const project = projectEntity.decodeFound(second.get(keyId(keys.project(lookup.project_id))));
      const item = second.get(keyId(key));
      const envId = envIdOf(id, kind, lookup);
      const env = envId
        ? environmentEntity.decodeFound(second.get(keyId(keys.environment(lookup.project_id, envId))))
        : undefined;
      if (!isOwnedProject(project, ownerId) || !isLive(item) || (envId && !isLive(env))) throw notFoundOf(kind);
      targets.push({ kind, id, key, item: item!, project, env });
    }
  }
  return targets;
}

export interface ArchivedTarget extends Target {
  marker: ArchivedMarker;
}

/**
 * The archived resources of the owner's a selection names, in ARCHIVABLE_KINDS order: two BatchGets
 * (the owner's markers; then items with their projects and environments). No marker under the owner,
 * an item no longer archived, a deleted project or environment: the kind's 404. An environment that
 * is archived itself is returned as read (restore decides what that means).
 */
export async function resolveArchived(ownerId: string, selection: Selection): Promise<ArchivedTarget[]> {
  const wanted = ARCHIVABLE_KINDS.flatMap((kind) => selectedIds(selection, kind).map((id) => ({ kind, id })));
  const markers = await batchGet(wanted.map(({ kind, id }) => markerKey(ownerId, kind, id)));
  const found = wanted.map(({ kind, id }) => {
    const raw = markers.get(keyId(markerKey(ownerId, kind, id)));
    return { kind, id, marker: raw ? archivedEntity.decode(raw) : undefined };
  });
  const context = await batchGet(
    found.flatMap(({ marker: m }) =>
      m
        ? [
            itemKeyOf(m),
            ...(m.project_id ? [keys.project(m.project_id)] : []),
            ...(m.project_id && m.environment_id ? [keys.environment(m.project_id, m.environment_id)] : []),
          ]
        : [],
    ),
  );
  return found.map(({ kind, id, marker }) => {
    if (!marker) throw notFoundOf(kind);
    const key = itemKeyOf(marker);
    const item = context.get(keyId(key));
    if (!isArchived(item)) throw notFoundOf(kind);
    if (kind === 'api_keys') return { kind, id, key, item: item!, marker };
    const project = projectEntity.decodeFound(context.get(keyId(keys.project(marker.project_id!))));
    const env = marker.environment_id
      ? environmentEntity.decodeFound(context.get(keyId(keys.environment(marker.project_id!, marker.environment_id))))
      : undefined;
    if (!isOwnedProject(project, ownerId)) throw notFoundOf(kind);
    if (IN_ENVIRONMENT.includes(kind) && (!env || isDeleted(env))) throw notFoundOf(kind);
    return { kind, id, key, item: item!, marker, project, env };
  });
}
