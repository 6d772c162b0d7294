import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { examples, inTarget, int, withOutput, withTarget } from './common.ts';
import { CliError } from './errors.ts';
import { emit } from './output.ts';
import { findService, inEnv, isId } from './target.ts';

type Affected =
  paths['/services/{service_id}/blast-radius']['get']['responses'][200]['content']['application/json']['affected'][number];

/** `impact`: the blast radius of a service (or a floor), as a tree with distance and path. */
export function impactCommand(program: Command) {
  examples(
    withOutput(
      withTarget(
        program
          .command('impact <service>')
          .description('the blast radius of a service: what depends on it, as a tree with distance and path'),
      ),
    )
      .option('--depth <n>', 'how far to follow', int)
      .option('--floor', 'the argument is a floor (hostname or id)')
      .action(async (ref, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const query = o.depth ? { max_depth: o.depth as number } : {};
        let data: paths['/services/{service_id}/blast-radius']['get']['responses'][200]['content']['application/json'];
        if (o.floor) {
          const floor = isId(ref)
            ? { id: ref }
            : (
                await c.client.api.GET('/service-floors', { params: { query: { ...inEnv(t), hostname: ref } } })
              ).data!.find((f) => f.hostname?.toLowerCase() === ref.toLowerCase());
          if (!floor) throw new CliError(`No floor '${ref}' in ${t.project.name}/${t.environment.name}.`);
          data = (
            await c.client.api.GET('/service-floors/{floor_id}/blast-radius', {
              params: { path: { floor_id: floor.id }, query },
            })
          ).data!;
        } else {
          const service = await findService(c, t, ref);
          data = (
            await c.client.api.GET('/services/{service_id}/blast-radius', {
              params: { path: { service_id: service.id }, query },
            })
          ).data!;
        }
        if (o.output !== 'table') return emit(data, o.output);
        const names = new Map<string, string>([
          [data.origin.id, data.origin.name ?? data.origin.id],
          ...data.affected.map((a) => [a.id, a.name ?? a.id] as const),
        ]);
        const children = new Map<string, Affected[]>();
        for (const a of data.affected) {
          const parent = a.path.length > 1 ? a.path[a.path.length - 2].id : data.origin.id;
          children.set(parent, [...(children.get(parent) ?? []), a]);
        }
        const lines = [`${data.origin.name ?? data.origin.id} (${data.origin.type})`];
        const walk = (id: string, indent: string, seen: Set<string>) => {
          const kids = children.get(id) ?? [];
          kids.forEach((a, i) => {
            const last = i === kids.length - 1;
            const path = a.path.map((p) => names.get(p.id) ?? p.id).join(' → ');
            lines.push(
              `${indent}${last ? '└─' : '├─'} ${a.name ?? a.id} (${a.type})  distance ${a.distance}  via ${a.via}  path: ${path}`,
            );
            if (!seen.has(a.id)) walk(a.id, indent + (last ? '   ' : '│  '), new Set([...seen, a.id]));
          });
        };
        walk(data.origin.id, '', new Set([data.origin.id]));
        lines.push(
          '',
          `${data.counts.services} service${data.counts.services === 1 ? '' : 's'} and ${data.counts.floors} floor${data.counts.floors === 1 ? '' : 's'} affected${data.truncated ? ' (truncated: raise --depth)' : ''}.`,
        );
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    'infracat impact db',
    'infracat impact host-a --floor --depth 3 -o json',
  );
}
