import { keys } from '#db/keys';
import { nameKey } from '../../problems.ts';
import { KIND } from '../report.ts';
import type { WalkContext } from '../walk-context.ts';

/** Plans the document's links. */
export async function planLinks(w: WalkContext, serviceId: Map<string, string>) {
  const { projectId, envId, spec, env, ctx, sink, each, record, units } = w;

  // Links (phase 5): a pair not linked yet is created.
  const linked = new Set(env.links.map((l) => `${l.from_service_id}>${l.to_service_id}`));
  await each(spec.service_links, (l) => {
    const name = `${l.from} -> ${l.to}`;
    const from = serviceId.get(nameKey(l.from));
    const to = serviceId.get(nameKey(l.to));
    if (!from || !to) {
      record(KIND.link, name, 'error', 'a service it joins is ambiguous');
      return;
    }
    if (linked.has(`${from}>${to}`)) {
      record(KIND.link, name, 'unchanged');
      return;
    }
    linked.add(`${from}>${to}`);
    units.push({
      item: record(KIND.link, name, 'create'),
      phase: 5,
      create: {
        kind: 'link',
        fields: {
          id: ctx.ids.newId(),
          project_id: projectId,
          environment_id: envId,
          from_service_id: from,
          to_service_id: to,
        },
      },
      guards: [from, to].map((sid) => ({
        key: keys.service(projectId, envId, sid),
        gone: `Service of link '${name}' was removed during the import`,
        edge: true,
      })),
      counters: [],
    });
  });
  await sink.close(5);
}
