import { keys } from '#db/keys';
import { transact, retryWhenStale } from '#db/transact';
import { invalid, notFound } from '#shared/errors';
import type { Permission } from '#auth/permissions';
import { actorAccount, type AppContext } from '#shared/context';
import { projectEventStep } from '#shared/events';

import type { CatalogKind } from './items.ts';
import { FLOOR_FORBIDDEN, FLOOR_NOT_FOUND } from './floor-refusals.ts';
import { liveNetworks } from './networks.ts';
import { networkEntity, networkView, type NetworkOut } from './network-entity.ts';
import { SERVICE_FORBIDDEN, SERVICE_NOT_FOUND } from './service-refusals.ts';
import { serviceEventData } from './services/index.ts';
import type { Service } from './service-entity.ts';
import { byText } from '#shared/text';
import { keyId } from '#db/batch-get';
import { liveItem, setFieldsStep, stillLiveStep } from '#db/live';
import { accessToItem, retentionOfProject } from '#domain/tenancy';
import { changeAudit } from '#shared/audit';

/**
 * Network attachments of services and floors. The set is the `network_ids` attribute of the
 * service or floor item: replacing it is one conditional write, and deleting the holder drops it.
 */

export const MAX_ATTACHED_NETWORKS = 10;
const networksNotFound = (ids: string[]) => `Network not found in this environment: ${ids.join(', ')}`;

interface Holder {
  kind: Extract<CatalogKind, 'service' | 'floor'>;
  notFound: string;
  idField: 'service_id' | 'service_floor_id';
  view: Permission;
  manage: Permission;
  forbidden: { view: string; manage: string };
}

const HOLDERS = {
  service: {
    kind: 'service',
    notFound: SERVICE_NOT_FOUND,
    idField: 'service_id',
    view: 'services.view',
    manage: 'services.manage',
    forbidden: SERVICE_FORBIDDEN,
  },
  floor: {
    kind: 'floor',
    notFound: FLOOR_NOT_FOUND,
    idField: 'service_floor_id',
    view: 'floors.view',
    manage: 'floors.manage',
    forbidden: FLOOR_FORBIDDEN,
  },
} satisfies Record<string, Holder>;

/** What holds attachments: a service or a service floor. */
export type HolderKind = keyof typeof HOLDERS;

type HolderItem = { id: string; network_ids?: string[]; updated_at: string } & Record<string, unknown>;

export type AttachmentsOut = { networks: NetworkOut[] } & Partial<Record<Holder['idField'], string>>;

/** The networks attached to a service or floor: full network objects, deleted networks left out. */
export async function attachedNetworks(
  ctx: AppContext,
  input: { holder: HolderKind; id: string },
): Promise<AttachmentsOut> {
  const holder: Holder = HOLDERS[input.holder];
  const { item, located } = await accessToItem<HolderItem>({
    id: input.id,
    kind: holder.kind,
    userId: actorAccount(ctx).id,
    notFound: notFound(holder.notFound),
    permission: { key: holder.view, detail: holder.forbidden.view },
  });
  const networks = await liveNetworks(located.projectId, located.envId, item.network_ids ?? []);
  return { [holder.idField]: input.id, networks: networks.map(networkView.project) };
}

/**
 * Replaces the whole set. 404 for an absent or foreign holder, then 403, then 400 when a network
 * is not a live one of the holder's environment (the networks are read with the access check).
 */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const replaceAttachedNetworks = (...args: Parameters<typeof replaceAttachedNetworksOnce>) =>
  retryWhenStale(() => replaceAttachedNetworksOnce(...args));

async function replaceAttachedNetworksOnce(
  ctx: AppContext,
  input: { holder: HolderKind; id: string; network_ids: string[] },
): Promise<AttachmentsOut> {
  const holder: Holder = HOLDERS[input.holder];
  const ids = [...new Set(input.network_ids)];
  const { access, item, located } = await accessToItem<HolderItem>({
    id: input.id,
    kind: holder.kind,
    userId: actorAccount(ctx).id,
    notFound: notFound(holder.notFound),
    permission: { key: holder.manage, detail: holder.forbidden.manage },
    extra: (l) => ids.map((n) => keys.network(l.projectId, l.envId, n)),
  });
  const wanted = ids.map((n) => ({ id: n, key: keys.network(located.projectId, located.envId, n) }));
  const missing = wanted.filter((w) => !liveItem(access.extra, w.key)).map((w) => w.id);
  if (missing.length) throw invalid(networksNotFound(missing));
  const before = [...(item.network_ids ?? [])].sort();
  if (JSON.stringify(before) !== JSON.stringify([...ids].sort())) {
    const updated_at = ctx.clock.now().toISOString();
    // The holder's entry chain: an attachment change is the service's or floor's latest entry.
    const days = await retentionOfProject(access.project);
    const audit = changeAudit(
      ctx,
      'attachment',
      'update',
      {
        id: input.id,
        project_id: located.projectId,
        environment_id: located.envId,
        audit_head: item.audit_head as string | undefined,
      },
      { before: { network_ids: before }, after: { network_ids: [...ids].sort() } },
      days,
      { summary: { holder: holder.kind } },
    );
    await transact([
      setFieldsStep(located.key, { network_ids: ids, updated_at, audit_head: audit.head }, notFound(holder.notFound)),
      ...audit.steps,
      ...wanted.map((w) => stillLiveStep(w.key, invalid(networksNotFound([w.id])))),
      ...(holder.kind === 'service'
        ? [
            projectEventStep(
              'service.updated',
              located.projectId,
              { ...serviceEventData(item as Service), changed: ['networks'] },
              ctx,
            ),
          ]
        : []),
    ]);
  }
  const networks = wanted
    .map((w) => networkEntity.decode(access.extra.get(keyId(w.key))!))
    .sort(byText((n) => n.name))
    .map(networkView.project);
  return { [holder.idField]: input.id, networks };
}
