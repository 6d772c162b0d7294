import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { collect } from '../paging.ts';
import { defined, examples, inTarget, optionsOf, withOutput, withTarget } from './common.ts';
import { connect } from './context.ts';
import { CliError } from './errors.ts';
import { col, emit, say } from './output.ts';
import { findEnd, type findFloor, inEnv } from './target.ts';
import type { Body } from './write-fields.ts';

type ConnectionRow = NonNullable<
  paths['/service-connections']['get']['responses'][200]['content']['application/json']
>[number];
type NamedConnection = ConnectionRow & { a_name: string | null; b_name: string | null };

/** `connections`: list, show, create, update and delete the connections between services and floors. */
export function connectionCommands(program: Command) {
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
