import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, examples, inTarget, int, withOutput, withTarget } from './common.ts';
import { col, emit } from './output.ts';

type SearchRow = NonNullable<
  paths['/search']['get']['responses'][200]['content']['application/json']
>['results'][number];

/** `search <q>`: services, floors and networks of the project by name, hostname, tag, address or network, best first. */
export function searchCommand(program: Command) {
  examples(
    withOutput(
      withTarget(
        program
          .command('search <q>')
          .description(
            'find services, floors and networks by name, hostname, tag, IP address or network (in every environment, or --env)',
          ),
      ),
    )
      .option('--kinds <kinds>', 'only these kinds: service, service_floor, network (comma-separated)')
      .option('--limit <n>', 'at most this many results (1 to 100, default 20)', int)
      .action(async (q: string, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd, false);
        const query = {
          project_id: t.project.id,
          q,
          ...defined({
            environment_id: o.env ? t.environment.id : undefined,
            kinds: o.kinds,
            limit: o.limit,
          }),
        };
        const { data } = await c.client.api.GET('/search', { params: { query } });
        emit(data!.results, o.output, [
          col<SearchRow>('KIND', 'kind'),
          col<SearchRow>('NAME', 'name'),
          col<SearchRow>('MATCH', (r) => `${r.match.field}: ${r.match.value}`),
          col<SearchRow>('ENVIRONMENT', 'environment_id'),
          col<SearchRow>('ID', 'id'),
        ]);
      }),
    'infracat search payments',
    'infracat search 10.0.1.5 -o json',
    'infracat search db --kinds service_floor --env prod',
  );
}
