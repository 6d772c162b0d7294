import { keys } from '#db/keys';
import { networkListing, type Network } from '#domain/catalog';
import { nameKey } from '../../problems.ts';
import { KIND } from '../report.ts';
import { byName } from '../compare.ts';
import type { WalkContext } from '../walk-context.ts';

/** Plans the document's networks; the networks each holder is attached to, for the floors and services. */
export async function planNetworks(w: WalkContext) {
  const { projectId, envId, spec, env, ctx, sink, each, planEntity, withListing } = w;

  // Networks (phase 2), before the services and floors attached to them.
  const networksByName = byName(env.networks, (n) => n.name);
  const networkId = new Map<string, string>();
  await each(spec.networks, (n, i) => {
    const existing = networksByName.get(nameKey(n.name))?.[0];
    const id = existing?.id ?? ctx.ids.newId();
    networkId.set(nameKey(n.name), id);
    const values = w.customValues('network', n.custom_fields, ['spec', 'networks', i], KIND.network, n.name);
    if (!values) return;
    const wanted: Partial<Network> = {
      name: n.name,
      cidr: n.cidr,
      gateway: n.gateway ?? null,
      vlan_id: n.vlan_id ?? null,
      is_private: n.is_private ?? true,
      description: n.description ?? null,
      custom_fields: values,
    };
    withListing(
      planEntity(
        KIND.network,
        n.name,
        2,
        existing,
        wanted,
        () => ({ kind: 'network', fields: { id, project_id: projectId, environment_id: envId, ...wanted } }),
        () => keys.network(projectId, envId, id),
        `Network '${n.name}' was removed during the import`,
      ),
      networkListing,
      existing,
    );
  });
  await sink.close(2);
  const liveNetworkIds = new Set(env.networks.map((n) => n.id));
  /** A holder's attachments: the networks of its entry (none without one), as ids; guards keep them live. */
  const entries = new Map(
    spec.network_attachments.map((a) => [
      a.service ? `service>${nameKey(a.service)}` : `floor>${nameKey(a.service_floor!)}`,
      a.networks,
    ]),
  );
  const attachmentsOf = (holder: string) => {
    const names = entries.get(holder) ?? [];
    return {
      ids: names.map((n) => networkId.get(nameKey(n))!),
      guards: names.map((n) => ({
        key: keys.network(projectId, envId, networkId.get(nameKey(n))!),
        gone: `Network '${n}' was removed during the import`,
      })),
    };
  };
  return { liveNetworkIds, attachmentsOf };
}
export type Networks = Awaited<ReturnType<typeof planNetworks>>;
