import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, examples, inTarget, int, withOutput, withTarget } from './common.ts';
import { col, emit, say } from './output.ts';
import { findNetwork, inEnv } from './target.ts';
import { type Body, customFilterOption, customFilters, fields, setOption } from './write-fields.ts';

type NetworkRow = NonNullable<paths['/networks']['get']['responses'][200]['content']['application/json']>[number];

const NETWORK_COLUMNS = [
  col<NetworkRow>('NAME', 'name'),
  col<NetworkRow>('CIDR', 'cidr'),
  col<NetworkRow>('VLAN', 'vlan_id'),
  col<NetworkRow>('GATEWAY', 'gateway'),
  col<NetworkRow>('PRIVATE', 'is_private'),
  col<NetworkRow>('ID', 'id'),
];

/** `networks`: list, show, create, update and delete the networks of the environment. */
export function networkCommands(program: Command) {
  const networks = program.command('networks').alias('nets').description('networks of the environment');
  examples(
    customFilterOption(
      withOutput(withTarget(networks.command('ls').description('list networks')))
        .option('-q, --query <text>', 'name, CIDR or description contains')
        .option('--vlan <id>', 'VLAN id', int)
        .option('--mask <bits>', 'prefix length', int)
        .option('--range <cidr>', 'inside this range'),
    ).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const query = {
        ...inEnv(t),
        ...defined({ q: o.query, vlan_id: o.vlan, mask: o.mask, range: o.range }),
        cf: customFilters(o.cf as string[] | undefined),
      };
      emit((await c.client.api.GET('/networks', { params: { query } })).data!, o.output, NETWORK_COLUMNS);
    }),
    'infracat networks ls --range 10.0.0.0/8',
    'infracat networks ls --cf team=ops',
  );
  examples(
    withOutput(withTarget(networks.command('get <network>').description('one network, by name or id'))).action(
      async (ref, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        emit(await findNetwork(c, t, ref), o.output);
      },
    ),
    'infracat networks get lan',
  );
  const networkFlags = (cmd: Command) =>
    setOption(
      cmd
        .option('--cidr <cidr>')
        .option('--gateway <address>')
        .option('--vlan <id>', 'VLAN id', int)
        .option('--description <text>')
        .option('--public', 'not a private network'),
    );
  const networkFields = (o: Record<string, unknown>) =>
    fields(o, {
      cidr: o.cidr,
      gateway: o.gateway,
      vlan_id: o.vlan,
      description: o.description,
      is_private: o.public ? false : undefined,
    });
  examples(
    withOutput(withTarget(networkFlags(networks.command('create <name>').description('create a network')))).action(
      async (name, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const body = { ...networkFields(o), name, ...inEnv(t) } as Body<'/networks', 'post'>;
        emit((await c.client.api.POST('/networks', { body })).data!, o.output);
      },
    ),
    'infracat networks create lan --cidr 10.0.0.0/24 --vlan 10',
  );
  examples(
    withOutput(
      withTarget(
        networkFlags(networks.command('update <network>').description('change a network')).option(
          '--name <name>',
          'rename',
        ),
      ),
    ).action(async (ref, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const network = await findNetwork(c, t, ref);
      const body = { ...networkFields(o), ...defined({ name: o.name }) } as Body<'/networks/{network_id}', 'patch'>;
      emit(
        (await c.client.api.PATCH('/networks/{network_id}', { params: { path: { network_id: network.id } }, body }))
          .data!,
        o.output,
      );
    }),
    'infracat networks update lan --gateway 10.0.0.1',
  );
  examples(
    withTarget(networks.command('rm <network>').description('delete a network')).action(async (ref, _o, cmd) => {
      const { c, t } = await inTarget(cmd);
      const network = await findNetwork(c, t, ref);
      await c.client.api.DELETE('/networks/{network_id}', { params: { path: { network_id: network.id } } });
      say(`Deleted network ${network.name}`);
    }),
    'infracat networks rm lan',
  );
}
