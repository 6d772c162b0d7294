import { batchGet, keyId, type Key } from '#db/batch-get';
import { keys } from '#db/keys';
import { isLive, isArchived, isDeleted } from '#db/live';
import { queryPartition } from '#db/query';
import { actorAccount, type AppContext } from '#shared/context';
import { apiKeyEntity, apiKeyView, type ApiKeyOut } from '#domain/billing';
import {
  environmentEntity,
  environmentView,
  projectEntity,
  projectUserEntity,
  projectUserView,
  type EnvironmentOut,
  type ProjectUserOut,
} from '#domain/tenancy';
import {
  SERVERLESS,
  floorEntity,
  floorView,
  serviceEntity,
  serviceView,
  type FloorOut,
  type ServiceOut,
} from '#domain/catalog';
import { ARCHIVABLE_KINDS, type ArchivableKind } from './selection.ts';
import { archivedEntity, itemKeyOf, type ArchivedMarker } from './archived-entity.ts';

/**
 * GET /me/archived/summary and /me/archived/{kind}: what the caller has archived, from the markers
 * under the account (one Query), with the projects and environments they belong to read in one
 * BatchGet. Archived resources of a project or environment deleted since are gone with it and not
 * shown. Lists answer each kind's usual shape plus `archived_at`, newest archived first.
 */

type Archived = { archived_at: string };
export type ArchivedItem = (ServiceOut | FloorOut | ApiKeyOut | EnvironmentOut | ProjectUserOut) & Archived;

/** The caller's markers (all kinds or one) whose project and environment still exist, with `withItems` also the items, read in the same BatchGet. */
async function currentMarkers(ownerId: string, kind?: ArchivableKind, withItems = false) {
  const markers = (await queryPartition(keys.account(ownerId).PK, keys.archivedPrefix(kind))).map(
    archivedEntity.decode,
  );
  const related = (m: ArchivedMarker): Key[] => [
    ...(withItems ? [itemKeyOf(m)] : []),
    ...(m.project_id ? [keys.project(m.project_id)] : []),
    ...(m.project_id && m.environment_id ? [keys.environment(m.project_id, m.environment_id)] : []),
  ];
  const items = await batchGet(markers.flatMap(related));
  const current = markers.filter((m) => {
    if (!m.project_id) return true;
    const project = projectEntity.decodeFound(items.get(keyId(keys.project(m.project_id))));
    if (!project || !isLive(project) || project.owner_id !== ownerId) return false;
    const env = m.environment_id ? items.get(keyId(keys.environment(m.project_id, m.environment_id))) : undefined;
    return !(m.environment_id && (!env || isDeleted(env)));
  });
  return { markers: withItems ? current.filter((m) => isArchived(items.get(keyId(itemKeyOf(m))))) : current, items };
}

/** GET /me/archived/summary: archived counts per kind, zeros included. */
export async function archivedSummary(ctx: AppContext): Promise<Record<ArchivableKind, number>> {
  const { markers } = await currentMarkers(actorAccount(ctx).id);
  const counts = Object.fromEntries(ARCHIVABLE_KINDS.map((k) => [k, 0])) as Record<ArchivableKind, number>;
  for (const m of markers) counts[m.kind]++;
  return counts;
}

/** A service's floor type and group names, as GET /services resolves them (live items only). */
async function resolveServices(services: ReturnType<typeof serviceEntity.decode>[]) {
  const refs = services.map((s) => ({
    floor: s.service_floor_id ? keys.floor(s.project_id, s.environment_id, s.service_floor_id) : undefined,
    group: s.group_id ? keys.group(s.project_id, s.environment_id, s.group_id) : undefined,
    subgroup: s.subgroup_id ? keys.subgroup(s.project_id, s.environment_id, s.subgroup_id) : undefined,
  }));
  const found = await batchGet(refs.flatMap((r) => [r.floor, r.group, r.subgroup].filter((k): k is Key => Boolean(k))));
  const live = (key: Key | undefined) => {
    const item = key && found.get(keyId(key));
    return item && isLive(item) ? item : undefined;
  };
  return refs.map((r) => ({
    type: (live(r.floor)?.floor_type as string | undefined) ?? SERVERLESS,
    group_name: (live(r.group)?.name as string | undefined) ?? null,
    subgroup_name: (live(r.subgroup)?.name as string | undefined) ?? null,
  }));
}

/** GET /me/archived/{kind}: the caller's archived resources of one kind, newest archived first, each in its kind's shape plus `archived_at`. */
export async function listArchived(ctx: AppContext, input: { kind: ArchivableKind }): Promise<ArchivedItem[]> {
  const { markers, items } = await currentMarkers(actorAccount(ctx).id, input.kind, true);
  markers.sort((a, b) => b.archived_at.localeCompare(a.archived_at) || a.id.localeCompare(b.id));
  const raw = markers.map((m) => items.get(keyId(itemKeyOf(m)))!);
  const archivedAt = (i: number) => ({ archived_at: String(raw[i].archived_at) });
  switch (input.kind) {
    case 'services': {
      const services = raw.map(serviceEntity.decode);
      const resolved = await resolveServices(services);
      return services.map((s, i) => ({ ...serviceView.project(s, resolved[i]), ...archivedAt(i) }));
    }
    case 'service_floors':
      return raw.map((f, i) => ({ ...floorView.project(floorEntity.decode(f)), ...archivedAt(i) }));
    case 'environments':
      return raw.map((e, i) => ({ ...environmentView.project(environmentEntity.decode(e)), ...archivedAt(i) }));
    case 'project_users':
      return raw.map((u, i) => ({ ...projectUserView.project(projectUserEntity.decode(u)), ...archivedAt(i) }));
    case 'api_keys':
      return raw.map((k, i) => ({ ...apiKeyView.project(apiKeyEntity.decode(k)), ...archivedAt(i) }));
  }
}
