import { keys } from '#db/keys';
import { floorListing, type Floor } from '#domain/catalog';
import { nameKey } from '../../problems.ts';
import { KIND } from '../report.ts';
import { byName, sameSet } from '../compare.ts';
import type { WalkContext } from '../walk-context.ts';
import type { Networks } from './networks.ts';

/** Plans the document's service floors; their ids by hostname, for the services and connections. */
export async function planFloors(w: WalkContext, { liveNetworkIds, attachmentsOf }: Networks) {
  const { projectId, envId, spec, env, ctx, sink, each, ambiguous, planEntity, withListing } = w;

  // Floors (phase 3).
  const floorsByName = byName(env.floors, (f) => f.hostname);
  const floorId = new Map<string, string>();
  await each(spec.service_floors, (f, i) => {
    const host = f.hostname!;
    const matches = floorsByName.get(nameKey(host)) ?? [];
    if (matches.length > 1)
      return ambiguous(['spec', 'service_floors', i], KIND.floor, host, 'service floors', matches.length);
    const existing = matches[0];
    const id = existing?.id ?? ctx.ids.newId();
    floorId.set(nameKey(host), id);
    const values = w.customValues('service_floor', f.custom_fields, ['spec', 'service_floors', i], KIND.floor, host);
    if (!values) return;
    const attached = attachmentsOf(`floor>${nameKey(host)}`);
    const wanted: Partial<Floor> = {
      floor_type: f.type,
      hostname: host,
      provider: f.provider ?? null,
      provider_region: f.provider_region ?? null,
      provider_zone: f.provider_zone ?? null,
      provider_instance_id: f.provider_instance_id ?? null,
      ip_address: f.ip_address ?? null,
      ip_addresses: f.ip_addresses ?? [],
      cpu: f.cpu ?? null,
      memory_mb: f.memory_mb ?? null,
      storage_gb: f.storage_gb ?? null,
      instances: f.instances ?? null,
      tags: f.tags ?? [],
      custom_fields: values,
    };
    if (
      !existing ||
      !sameSet(
        existing.network_ids.filter((n) => liveNetworkIds.has(n)),
        attached.ids,
      )
    )
      wanted.network_ids = attached.ids;
    withListing(
      planEntity(
        KIND.floor,
        host,
        3,
        existing,
        wanted,
        () => ({ kind: 'floor', fields: { id, project_id: projectId, environment_id: envId, ...wanted } }),
        () => keys.floor(projectId, envId, id),
        `Service floor '${host}' was removed during the import`,
        { guards: attached.guards },
      ),
      floorListing,
      existing,
    );
  });
  await sink.close(3);
  return floorId;
}
