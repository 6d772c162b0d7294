import { api, ok } from './api';

/** A server or a service that can be attached to networks. */
export interface Holder {
  kind: 'service' | 'floor';
  id: string;
}

/** Requests in flight at once: enough to hide the round trips, few enough not to crowd the API. */
const PARALLEL = 6;

/**
 * The network ids each holder is attached to. The API answers per holder (`GET /attachments/…/networks`),
 * so this reads them a few at a time; the topology and a network's page (who is attached to it) use it.
 */
export async function attachedNetworkIds(holders: Holder[], signal?: AbortSignal): Promise<Map<Holder, string[]>> {
  const out = new Map<Holder, string[]>();
  const queue = [...holders];
  const read = async (h: Holder) => {
    const answer =
      h.kind === 'floor'
        ? await ok(
            api.GET('/attachments/service-floors/{floor_id}/networks', {
              params: { path: { floor_id: h.id } },
              signal,
            }),
          )
        : await ok(
            api.GET('/attachments/services/{service_id}/networks', { params: { path: { service_id: h.id } }, signal }),
          );
    out.set(
      h,
      answer.networks.map((n) => n.id),
    );
  };
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let h = queue.shift(); h; h = queue.shift()) await read(h);
    }),
  );
  return out;
}

/** Replaces a holder's networks with `networkIds` (the API replaces the whole set; at most 10). */
export async function saveAttachedNetworks(holder: Holder, networkIds: string[]): Promise<void> {
  const body = { network_ids: networkIds };
  if (holder.kind === 'floor')
    await ok(
      api.PATCH('/attachments/service-floors/{floor_id}/networks', { params: { path: { floor_id: holder.id } }, body }),
    );
  else
    await ok(
      api.PATCH('/attachments/services/{service_id}/networks', { params: { path: { service_id: holder.id } }, body }),
    );
}
