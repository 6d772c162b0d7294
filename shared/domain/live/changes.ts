import { keys } from '#db/keys';
import { isLive } from '#db/live';
import {
  connectionEntity,
  connectionView,
  floorEntity,
  floorView,
  linkEntity,
  linkView,
  networkEntity,
  networkView,
  serviceEntity,
  servicesAnswered,
  serviceView,
} from '#domain/catalog';
import {
  environmentEntity,
  environmentView,
  groupEntity,
  subgroupEntity,
  toGroupOut,
  toSubgroupOut,
} from '#domain/tenancy';

/**
 * What an environment's followers are told, read off the table's stream (docs/decisions/0985): a change
 * of a catalog item, a group or subgroup, or the environment itself, whichever path wrote it (API, CLI,
 * import, discovery, archive and restore). An item that becomes live is `created`, one that stops being
 * live (deleted, archived, removed) `deleted`, one live before and after `updated` (only when what its
 * GET answers changed: a write that moved only internal fields, such as a reference version, says
 * nothing). `item` is the item as its GET answers it.
 */
export const LIVE_KINDS = [
  'service',
  'service_floor',
  'network',
  'connection',
  'link',
  'group',
  'subgroup',
  'environment',
] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];
export type LiveOp = 'created' | 'updated' | 'deleted';

/** One record of the table's stream, both images unmarshalled (the stream carries NEW_AND_OLD_IMAGES). */
export interface StreamRecord {
  sequenceNumber: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE' | undefined;
  newImage: Record<string, unknown> | undefined;
  oldImage?: Record<string, unknown> | undefined;
}

/** A change of one item, before it is numbered. */
export interface EntityChange {
  projectId: string;
  envId: string;
  kind: LiveKind;
  id: string;
  op: LiveOp;
  at: string;
  item?: unknown;
  /** The stream record it was read from (a retried batch counts it once). */
  source: string;
}

type Raw = Record<string, unknown>;
interface KindDef {
  kind: LiveKind;
  /** The item's own key: only that item of its type is the entity (never a copy or an index item). */
  key: (r: Raw) => { PK: string; SK: string };
  envOf: (r: Raw) => string;
  /** The answer without what lives on other items (compared to tell a real change from an internal one). */
  view: (r: Raw) => unknown;
}

const inEnv = (make: (p: string, e: string, id: string) => { PK: string; SK: string }) => (r: Raw) =>
  make(String(r.project_id), String(r.environment_id), String(r.id));
const envOf = (r: Raw) => String(r.environment_id);
const unresolved = { type: '', group_name: null, subgroup_name: null };

/** By the stored item's `type`. */
const KINDS: Record<string, KindDef> = {
  service: {
    kind: 'service',
    key: inEnv(keys.service),
    envOf,
    view: (r) => serviceView.project(serviceEntity.decode(r), unresolved),
  },
  floor: {
    kind: 'service_floor',
    key: inEnv(keys.floor),
    envOf,
    view: (r) => floorView.project(floorEntity.decode(r)),
  },
  network: {
    kind: 'network',
    key: inEnv(keys.network),
    envOf,
    view: (r) => networkView.project(networkEntity.decode(r)),
  },
  connection: {
    kind: 'connection',
    key: inEnv(keys.connection),
    envOf,
    view: (r) => connectionView.project(connectionEntity.decode(r)),
  },
  link: { kind: 'link', key: inEnv(keys.link), envOf, view: (r) => linkView.project(linkEntity.decode(r)) },
  group: { kind: 'group', key: inEnv(keys.group), envOf, view: (r) => toGroupOut(groupEntity.decode(r)) },
  subgroup: {
    kind: 'subgroup',
    key: inEnv(keys.subgroup),
    envOf,
    view: (r) => toSubgroupOut(subgroupEntity.decode(r)),
  },
  environment: {
    kind: 'environment',
    key: (r) => keys.environment(String(r.project_id), String(r.id)),
    envOf: (r) => String(r.id),
    view: (r) => environmentView.project(environmentEntity.decode(r)),
  },
};

/** The stored item types whose changes are sent (the stream's filter lets only these through, besides the outbox). */
export const LIVE_ITEM_TYPES = Object.keys(KINDS);

function defOf(image: Raw | undefined): KindDef | undefined {
  const def = image && typeof image.type === 'string' ? KINDS[image.type] : undefined;
  if (!def || !image) return undefined;
  const key = def.key(image);
  return key.PK === image.PK && key.SK === image.SK ? def : undefined;
}

/** The item changes a batch of stream records holds, in stream order; `now` stamps a removal's `at`. */
export async function changesOf(records: StreamRecord[], now: Date): Promise<EntityChange[]> {
  const out: (EntityChange & { raw?: Raw })[] = [];
  for (const r of records) {
    const image = r.newImage ?? r.oldImage;
    const def = defOf(image);
    if (!def || !image) continue;
    const before = r.eventName === 'INSERT' ? undefined : r.oldImage;
    const after = r.eventName === 'REMOVE' ? undefined : r.newImage;
    const was = isLive(before);
    const is = isLive(after);
    if (!was && !is) continue;
    if (was && is && JSON.stringify(def.view(before!)) === JSON.stringify(def.view(after!))) continue;
    const op: LiveOp = is ? (was ? 'updated' : 'created') : 'deleted';
    const stamp = after?.deleted_at ?? after?.archived_at ?? after?.updated_at;
    out.push({
      projectId: String(image.project_id),
      envId: def.envOf(image),
      kind: def.kind,
      id: String(image.id),
      op,
      at: typeof stamp === 'string' ? stamp : now.toISOString(),
      source: r.sequenceNumber,
      ...(is ? { item: def.kind === 'service' ? undefined : def.view(after!), raw: after } : {}),
    });
  }
  // Services answer their floor's type and group names, read from those items: one BatchGet for the batch.
  const services = out.filter((c) => c.kind === 'service' && c.raw);
  if (services.length) {
    const answered = await servicesAnswered(services.map((c) => serviceEntity.decode(c.raw!)));
    services.forEach((c, i) => {
      c.item = answered[i];
    });
  }
  return out.map(({ raw: _raw, ...c }) => c);
}
