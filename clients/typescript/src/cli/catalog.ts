import type { Command } from 'commander';
import type { paths } from '../schema.js';
import { collect } from '../paging.js';
import { defined, examples, fieldsOf, inTarget, int, many, optionsOf, withOutput, withTarget } from './common.js';
import { connect } from './context.js';
import { CliError } from './errors.js';
import { col, emit, say } from './output.js';
import { findEnd, findFloor, findNetwork, findService, inEnv } from './target.js';

type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

type ServiceRow = NonNullable<paths['/services']['get']['responses'][200]['content']['application/json']>[number];
type FloorRow = NonNullable<paths['/service-floors']['get']['responses'][200]['content']['application/json']>[number];
type NetworkRow = NonNullable<paths['/networks']['get']['responses'][200]['content']['application/json']>[number];
type ConnectionRow = NonNullable<
  paths['/service-connections']['get']['responses'][200]['content']['application/json']
>[number];
type NamedConnection = ConnectionRow & { a_name: string | null; b_name: string | null };

const SERVICE_COLUMNS = [
  col<ServiceRow>('NAME', 'name'),
  col<ServiceRow>('TYPE', 'type'),
  col<ServiceRow>('CATEGORY', 'category'),
  col<ServiceRow>('PORT', 'port'),
  col<ServiceRow>('PROVIDER', 'provider'),
  col<ServiceRow>('GROUP', 'group_name'),
  col<ServiceRow>('TAGS', 'tags'),
  col<ServiceRow>('ID', 'id'),
];
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
const NETWORK_COLUMNS = [
  col<NetworkRow>('NAME', 'name'),
  col<NetworkRow>('CIDR', 'cidr'),
  col<NetworkRow>('VLAN', 'vlan_id'),
  col<NetworkRow>('GATEWAY', 'gateway'),
  col<NetworkRow>('PRIVATE', 'is_private'),
  col<NetworkRow>('ID', 'id'),
];

/** `--set` plus the named flags (named flags win). */
const fields = (o: Record<string, unknown>, named: Record<string, unknown>) => ({
  ...fieldsOf(o.set as string[] | undefined),
  ...defined(named),
});
const setOption = (cmd: Command) =>
  cmd.option(
    '--set <key=value>',
    'any other field (repeatable; JSON values: --set replicas=3 --set \'links=["https://x"]\')',
    many,
  );

export function catalogCommands(program: Command) {
  // services
  const services = program.command('services').alias('svc').description('services of the environment');
  examples(
    withOutput(withTarget(services.command('ls').description('list services (all pages)')))
      .option('--name <text>', 'name contains (ignoring case)')
      .option('--tag <tag>', 'has this tag (repeatable)', many)
      .option('--language <language>', 'programming language')
      .option('--location <location>', 'region or zone')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const items = await collect(
          c.client.services({
            ...inEnv(t),
            ...defined({ name: o.name, tags: o.tag, language: o.language, location: o.location }),
          }),
        );
        emit(items, o.output, SERVICE_COLUMNS);
      }),
    'infracat services ls',
    'infracat services ls --tag prod --name api -o json',
  );
  examples(
    withOutput(withTarget(services.command('get <service>').description('one service, by name or id'))).action(
      async (ref, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        emit(await findService(c, t, ref), o.output);
      },
    ),
    'infracat services get api',
  );
  const serviceFlags = (cmd: Command) =>
    setOption(
      cmd
        .option('--port <port>', 'port', int)
        .option('--category <category>')
        .option('--provider <provider>')
        .option('--region <region>', 'provider region')
        .option('--language <language>', 'programming language')
        .option('--repository <url>', 'repository URL')
        .option('--tag <tag>', 'tag (repeatable; replaces the tags)', many)
        .option('--floor <floor>', 'the floor it runs on (hostname or id)'),
    );
  const serviceFields = async (
    c: Parameters<typeof findFloor>[0],
    t: Parameters<typeof findFloor>[1],
    o: Record<string, unknown>,
  ) =>
    fields(o, {
      port: o.port,
      category: o.category,
      provider: o.provider,
      provider_region: o.region,
      programming_language: o.language,
      repository_url: o.repository,
      tags: o.tag,
      service_floor_id: o.floor ? (await findFloor(c, t, o.floor as string)).id : undefined,
    });
  examples(
    withOutput(withTarget(serviceFlags(services.command('create <name>').description('register a service')))).action(
      async (name, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const body = { ...(await serviceFields(c, t, o)), name, ...inEnv(t) } as Body<'/services', 'post'>;
        emit((await c.client.api.POST('/services', { body })).data!, o.output);
      },
    ),
    'infracat services create api --port 8080 --tag prod --floor host-a',
    'infracat services create worker --set replicas=3',
  );
  examples(
    withOutput(
      withTarget(
        serviceFlags(services.command('update <service>').description('change a service (by name or id)')).option(
          '--name <name>',
          'rename',
        ),
      ),
    ).action(async (ref, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const service = await findService(c, t, ref);
      const body = { ...(await serviceFields(c, t, o)), ...defined({ name: o.name }) } as Body<
        '/services/{service_id}',
        'patch'
      >;
      emit(
        (await c.client.api.PATCH('/services/{service_id}', { params: { path: { service_id: service.id } }, body }))
          .data!,
        o.output,
      );
    }),
    'infracat services update api --port 9090',
    'infracat services update api --name api-v2',
  );
  examples(
    withTarget(
      services.command('rm <service>').description('delete a service (with its connections and links)'),
    ).action(async (ref, _o, cmd) => {
      const { c, t } = await inTarget(cmd);
      const service = await findService(c, t, ref);
      await c.client.api.DELETE('/services/{service_id}', { params: { path: { service_id: service.id } } });
      say(`Deleted service ${service.name}`);
    }),
    'infracat services rm api',
  );

  // floors
  const floors = program.command('floors').description('service floors (servers) of the environment');
  examples(
    withOutput(withTarget(floors.command('ls').description('list floors')))
      .option('--hostname <text>', 'hostname contains')
      .option('--tag <tag>', 'has this tag (repeatable)', many)
      .option('--type <type>', 'vm, container, baremetal or other')
      .option('--location <location>', 'region')
      .option('--zone <zone>', 'zone')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const query = {
          ...inEnv(t),
          ...defined({ hostname: o.hostname, tags: o.tag, type: o.type, location: o.location, zone: o.zone }),
        } as NonNullable<paths['/service-floors']['get']['parameters']['query']>;
        emit((await c.client.api.GET('/service-floors', { params: { query } })).data!, o.output, FLOOR_COLUMNS);
      }),
    'infracat floors ls --type vm',
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

  // networks
  const networks = program.command('networks').alias('nets').description('networks of the environment');
  examples(
    withOutput(withTarget(networks.command('ls').description('list networks')))
      .option('-q, --query <text>', 'name, CIDR or description contains')
      .option('--vlan <id>', 'VLAN id', int)
      .option('--mask <bits>', 'prefix length', int)
      .option('--range <cidr>', 'inside this range')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const query = { ...inEnv(t), ...defined({ q: o.query, vlan_id: o.vlan, mask: o.mask, range: o.range }) };
        emit((await c.client.api.GET('/networks', { params: { query } })).data!, o.output, NETWORK_COLUMNS);
      }),
    'infracat networks ls --range 10.0.0.0/8',
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

  // connections
  const connections = program
    .command('connections')
    .alias('conns')
    .description('connections between services and floors');
  /** Each end's name beside its id (`a_name`, `b_name`: a service's name, a floor's hostname), in every format. */
  const named = async (
    c: Parameters<typeof findFloor>[0],
    t: Parameters<typeof findFloor>[1],
    rows: ConnectionRow[],
  ): Promise<NamedConnection[]> => {
    const [svc, fl] = await Promise.all([
      collect(c.client.services(inEnv(t))),
      c.client.api.GET('/service-floors', { params: { query: inEnv(t) } }),
    ]);
    const names = new Map<string, string>([
      ...svc.map((s) => [s.id, s.name] as const),
      ...fl.data!.map((f) => [f.id, f.hostname ?? f.id] as const),
    ]);
    return rows.map((r) => ({ ...r, a_name: names.get(r.a_id) ?? null, b_name: names.get(r.b_id) ?? null }));
  };
  const end = (type: string, name: string | null, id: string) =>
    type === 'floor' ? `floor:${name ?? id}` : (name ?? id);
  const CONNECTION_COLUMNS = [
    col<NamedConnection>('A', (r) => end(r.a_type, r.a_name, r.a_id)),
    col<NamedConnection>('DIRECTION', 'direction'),
    col<NamedConnection>('B', (r) => end(r.b_type, r.b_name, r.b_id)),
    col<NamedConnection>('NAME', 'name'),
    col<NamedConnection>('GROUP', 'group_kind'),
    col<NamedConnection>('ID', 'id'),
  ];
  examples(
    withOutput(withTarget(connections.command('ls').description('list connections')))
      .option('--entity <service|floor>', 'touching this service or floor (name, service:<name>, floor:<hostname>)')
      .option('--chain <id>', 'in this chain or hub')
      .action(async (_o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const entity = o.entity ? (await findEnd(c, t, o.entity as string)).id : undefined;
        const { data } = await c.client.api.GET('/service-connections', {
          params: { query: { ...inEnv(t), ...defined({ entity_id: entity, chain_id: o.chain }) } },
        });
        emit(await named(c, t, data!), o.output, CONNECTION_COLUMNS);
      }),
    'infracat connections ls --entity api',
  );
  examples(
    withOutput(withTarget(connections.command('get <id>').description('one connection'))).action(
      async (id, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const { data } = await c.client.api.GET('/service-connections', { params: { query: inEnv(t) } });
        const found = data!.find((r) => r.id === id);
        if (!found) throw new CliError(`No connection '${id}' in ${t.project.name}/${t.environment.name}.`);
        emit((await named(c, t, [found]))[0], o.output);
      },
    ),
    'infracat connections get 3f0c…',
  );
  examples(
    withOutput(
      withTarget(
        connections
          .command('create <a> <b>')
          .description('connect two entities (service:<name>, floor:<hostname>, or a name)'),
      ),
    )
      .option('--direction <direction>', 'none, a_to_b, b_to_a or both', 'none')
      .option('--name <label>')
      .action(async (a, b, _o, cmd) => {
        const { c, t, o } = await inTarget(cmd);
        const [ea, eb] = [await findEnd(c, t, a), await findEnd(c, t, b)];
        const body = {
          ...inEnv(t),
          a_type: ea.type,
          a_id: ea.id,
          b_type: eb.type,
          b_id: eb.id,
          ...defined({ direction: o.direction, name: o.name }),
        } as Body<'/service-connections', 'post'>;
        emit((await c.client.api.POST('/service-connections', { body })).data!, o.output);
      }),
    'infracat connections create api floor:host-a --direction a_to_b',
    'infracat connections create web api --name "calls"',
  );
  examples(
    withOutput(connections.command('update <id>').description("change a connection's direction or name"))
      .option('--direction <direction>', 'none, a_to_b, b_to_a or both')
      .option('--name <label>')
      .action(async (id, _o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const body = defined({ direction: o.direction, name: o.name }) as Body<
          '/service-connections/{connection_id}',
          'patch'
        >;
        emit(
          (
            await c.client.api.PATCH('/service-connections/{connection_id}', {
              params: { path: { connection_id: id } },
              body,
            })
          ).data!,
          o.output,
        );
      }),
    'infracat connections update 3f0c… --direction both',
  );
  examples(
    connections
      .command('rm <id>')
      .description('delete a connection')
      .action(async (id, _o, cmd) => {
        const c = await connect(optionsOf(cmd));
        await c.client.api.DELETE('/service-connections/{connection_id}', { params: { path: { connection_id: id } } });
        say(`Deleted connection ${id}`);
      }),
    'infracat connections rm 3f0c…',
  );
}
