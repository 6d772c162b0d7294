import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, examples, inTarget, int, many, withOutput, withTarget } from './common.ts';
import { col, emit, say } from './output.ts';
import { findFloor, inEnv } from './target.ts';
import { type Body, customFilterOption, customFilters, fields, setOption } from './write-fields.ts';

type FloorRow = NonNullable<paths['/service-floors']['get']['responses'][200]['content']['application/json']>[number];

const FLOOR_COLUMNS = [
  col<FloorRow>('HOSTNAME', 'hostname'),
  col<FloorRow>('TYPE', 'type'),
  col<FloorRow>('PROVIDER', 'provider'),
  col<FloorRow>('IP', 'ip_address'),
  col<FloorRow>('CPU', 'cpu'),
  col<FloorRow>('MEMORY_MB', 'memory_mb'),
  col<FloorRow>('TAGS', 'tags'),
  col<FloorRow>('ID', 'id'),
];

/** `floors`: list, show, create, update and delete the service floors (servers) of the environment. */
export function floorCommands(program: Command) {
  const floors = program.command('floors').description('service floors (servers) of the environment');
  examples(
    customFilterOption(
      withOutput(withTarget(floors.command('ls').description('list floors')))
        .option('--hostname <text>', 'hostname contains')
        .option('--tag <tag>', 'has this tag (repeatable)', many)
        .option('--type <type>', 'vm, container, baremetal or other')
        .option('--location <location>', 'region')
        .option('--zone <zone>', 'zone'),
    ).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const query = {
        ...inEnv(t),
        ...defined({ hostname: o.hostname, tags: o.tag, type: o.type, location: o.location, zone: o.zone }),
        cf: customFilters(o.cf as string[] | undefined),
      } as NonNullable<paths['/service-floors']['get']['parameters']['query']>;
      emit((await c.client.api.GET('/service-floors', { params: { query } })).data!, o.output, FLOOR_COLUMNS);
    }),
    'infracat floors ls --type vm',
    'infracat floors ls --cf team=ops',
  );
  examples(
    withOutput(withTarget(floors.command('get <floor>').description('one floor, by hostname or id'))).action(
      async (ref, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        emit(await findFloor(c, t, ref), o.output);
      },
    ),
    'infracat floors get host-a',
  );
  const floorFlags = (cmd: Command) =>
    setOption(
      cmd
        .option('--type <type>', 'vm, container, baremetal or other')
        .option('--provider <provider>')
        .option('--region <region>')
        .option('--ip <address>', 'IP address')
        .option('--cpu <n>', 'CPUs', int)
        .option('--memory-mb <n>', 'memory in MB', int)
        .option('--storage-gb <n>', 'storage in GB', int)
        .option('--tag <tag>', 'tag (repeatable)', many),
    );
  const floorFields = (o: Record<string, unknown>) =>
    fields(o, {
      type: o.type,
      provider: o.provider,
      provider_region: o.region,
      ip_address: o.ip,
      cpu: o.cpu,
      memory_mb: o.memoryMb,
      storage_gb: o.storageGb,
      tags: o.tag,
    });
  examples(
    withOutput(withTarget(floorFlags(floors.command('create <hostname>').description('create a floor')))).action(
      async (hostname, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const body = { type: 'vm', ...floorFields(o), hostname, ...inEnv(t) } as Body<'/service-floors', 'post'>;
        emit((await c.client.api.POST('/service-floors', { body })).data!, o.output);
      },
    ),
    'infracat floors create host-a --type vm --cpu 4 --memory-mb 8192',
  );
  examples(
    withOutput(
      withTarget(
        floorFlags(floors.command('update <floor>').description('change a floor')).option(
          '--hostname <hostname>',
          'rename',
        ),
      ),
    ).action(async (ref, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const floor = await findFloor(c, t, ref);
      const body = { ...floorFields(o), ...defined({ hostname: o.hostname }) } as Body<
        '/service-floors/{floor_id}',
        'patch'
      >;
      emit(
        (await c.client.api.PATCH('/service-floors/{floor_id}', { params: { path: { floor_id: floor.id } }, body }))
          .data!,
        o.output,
      );
    }),
    'infracat floors update host-a --cpu 8',
  );
  examples(
    withTarget(floors.command('rm <floor>').description('delete a floor')).action(async (ref, _o, cmd) => {
      const { c, t } = await inTarget(cmd);
      const floor = await findFloor(c, t, ref);
      await c.client.api.DELETE('/service-floors/{floor_id}', { params: { path: { floor_id: floor.id } } });
      say(`Deleted floor ${floor.hostname}`);
    }),
    'infracat floors rm host-a',
  );
}
