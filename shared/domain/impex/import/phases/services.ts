import { keys } from '#db/keys';
import { serviceListing, type Service } from '#domain/catalog';
import { SERVICE_DOCUMENT_FIELDS, type DocumentService } from '../../document.ts';
import { nameKey } from '../../problems.ts';
import { KIND } from '../report.ts';
import { byName, sameSet } from '../compare.ts';
import type { WalkContext } from '../walk-context.ts';
import type { Groups } from './groups.ts';
import type { Networks } from './networks.ts';

/** A document service's value fields as stored: lists empty and the rest null when absent. */
function serviceValues(s: DocumentService): Partial<Service> {
  const out: Record<string, unknown> = {};
  for (const field of SERVICE_DOCUMENT_FIELDS) {
    const v = s[field];
    if (field === 'repository_deps')
      out[field] = (s.repository_deps ?? []).map((d) => ({
        name: d.name,
        repository_url: d.repository_url ?? null,
        version: d.version ?? null,
      }));
    else if (field === 'links' || field === 'tags') out[field] = v ?? [];
    else out[field] = v ?? null;
  }
  return out as Partial<Service>;
}

/** Plans the document's services, their references resolved to ids; their ids by name, for the links and connections. */
export async function planServices(
  w: WalkContext,
  { groupId, subgroupId }: Groups,
  { liveNetworkIds, attachmentsOf }: Networks,
  floorId: Map<string, string>,
) {
  const {
    projectId,
    envId,
    spec,
    env,
    ctx,
    sink,
    each,
    record,
    ambiguous,
    planEntity,
    withListing,
    envKey,
    envGone,
    serviceLimit,
  } = w;

  // Services (phase 4): references resolved to ids, the counters with the limit on creates.
  const servicesByName = byName(env.services, (s) => s.name);
  const serviceId = new Map<string, string>();
  await each(spec.services, (s, i) => {
    const matches = servicesByName.get(nameKey(s.name)) ?? [];
    if (matches.length > 1) return ambiguous(['spec', 'services', i], KIND.service, s.name, 'services', matches.length);
    const existing = matches[0];
    const id = existing?.id ?? ctx.ids.newId();
    serviceId.set(nameKey(s.name), id);
    const refs = {
      service_floor_id: s.floor ? (floorId.get(nameKey(s.floor)) ?? null) : null,
      group_id: s.group ? (groupId.get(nameKey(s.group)) ?? null) : null,
      subgroup_id:
        s.group && s.subgroup ? (subgroupId.get(`${nameKey(s.group)}>${nameKey(s.subgroup)}`) ?? null) : null,
    };
    if (s.floor && !refs.service_floor_id) {
      // Its floor is ambiguous in the environment (reported there): leave the service alone too.
      record(KIND.service, s.name, 'error', `its floor '${s.floor}' is ambiguous`);
      return;
    }
    const values = w.customValues('service', s.custom_fields, ['spec', 'services', i], KIND.service, s.name);
    if (!values) return;
    const attached = attachmentsOf(`service>${nameKey(s.name)}`);
    const wanted: Partial<Service> = { name: s.name, ...refs, ...serviceValues(s), custom_fields: values };
    if (
      !existing ||
      !sameSet(
        existing.network_ids.filter((n) => liveNetworkIds.has(n)),
        attached.ids,
      )
    )
      wanted.network_ids = attached.ids;
    const guards = [
      ...attached.guards,
      ...(refs.service_floor_id
        ? [
            {
              key: keys.floor(projectId, envId, refs.service_floor_id),
              gone: `Service floor '${s.floor}' was removed during the import`,
              edge: true,
            },
          ]
        : []),
      ...(refs.group_id
        ? [
            {
              key: keys.group(projectId, envId, refs.group_id),
              gone: `Group '${s.group}' was removed during the import`,
            },
          ]
        : []),
      ...(refs.subgroup_id
        ? [
            {
              key: keys.subgroup(projectId, envId, refs.subgroup_id),
              gone: `Subgroup '${s.group}/${s.subgroup}' was removed during the import`,
            },
          ]
        : []),
    ];
    const unit = planEntity(
      KIND.service,
      s.name,
      4,
      existing,
      wanted,
      () => ({
        kind: 'service',
        fields: { id, owner_user_id: env.project.owner_id, project_id: projectId, environment_id: envId, ...wanted },
      }),
      () => keys.service(projectId, envId, id),
      `Service '${s.name}' was removed during the import`,
      {
        guards,
        counters: existing
          ? []
          : [
              { key: keys.project(projectId), deltas: { service_count: 1 }, limits: { service_count: serviceLimit } },
              {
                key: envKey,
                deltas: { service_count: 1 },
                limits: { service_count: serviceLimit },
                whileLive: envGone,
              },
            ],
      },
    );
    if (unit?.update && ['service_floor_id', 'group_id', 'subgroup_id'].some((k) => k in unit.update!.changes))
      unit.update.hints = { id, ...refs };
    withListing(unit, serviceListing, existing);
  });
  await sink.close(4);
  return serviceId;
}
