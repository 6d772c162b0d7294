import { keys } from '#db/keys';
import { nameKey } from '../../problems.ts';
import { KIND } from '../report.ts';
import { byName } from '../compare.ts';
import type { WalkContext } from '../walk-context.ts';

/** Plans the document's groups and subgroups; their ids by name, for the services. */
export async function planGroups(w: WalkContext) {
  const { projectId, envId, spec, env, ctx, sink, each, planEntity } = w;

  // Groups and subgroups (phases 0 and 1).
  const groupsByName = byName(env.groups, (g) => g.name);
  const groupId = new Map<string, string>();
  const subgroupId = new Map<string, string>();
  await each(spec.groups, (g) => {
    const existing = groupsByName.get(nameKey(g.name))?.[0];
    const id = existing?.id ?? ctx.ids.newId();
    groupId.set(nameKey(g.name), id);
    const wanted = { name: g.name, description: g.description ?? null };
    planEntity(
      KIND.group,
      g.name,
      0,
      existing as unknown as Record<string, unknown>,
      wanted,
      () => ({
        kind: 'group',
        fields: { id, project_id: projectId, environment_id: envId, ...wanted, subgroup_count: 0, deleted_at: null },
      }),
      () => keys.group(projectId, envId, id),
      `Group '${g.name}' was removed during the import`,
    );
    const subsByName = byName(
      env.subgroups.filter((s) => existing && s.group_id === existing.id),
      (s) => s.name,
    );
    for (const s of g.subgroups ?? []) {
      const found = subsByName.get(nameKey(s.name))?.[0];
      const sid = found?.id ?? ctx.ids.newId();
      subgroupId.set(`${nameKey(g.name)}>${nameKey(s.name)}`, sid);
      const sw = { name: s.name, description: s.description ?? null };
      planEntity(
        KIND.subgroup,
        `${g.name}/${s.name}`,
        1,
        found as unknown as Record<string, unknown>,
        sw,
        () => ({
          kind: 'subgroup',
          fields: { id: sid, project_id: projectId, environment_id: envId, group_id: id, ...sw, deleted_at: null },
        }),
        () => keys.subgroup(projectId, envId, sid),
        `Subgroup '${g.name}/${s.name}' was removed during the import`,
        found
          ? {}
          : {
              counters: [
                {
                  key: keys.group(projectId, envId, id),
                  deltas: { subgroup_count: 1 },
                  whileLive: `Group '${g.name}' was removed during the import`,
                  reference: true,
                },
              ],
            },
      );
    }
  });
  await sink.close(1);
  return { groupId, subgroupId };
}
export type Groups = Awaited<ReturnType<typeof planGroups>>;
