import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { collect } from '../paging.ts';
import { defined, examples, inTarget, int, many, withOutput, withTarget } from './common.ts';
import { col, emit, say } from './output.ts';
import { findFloor, findService, inEnv } from './target.ts';
import { type Body, customFilterOption, customFilters, fields, setOption } from './write-fields.ts';

type ServiceRow = NonNullable<paths['/services']['get']['responses'][200]['content']['application/json']>[number];

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

/** `services`: list, show, create, update and delete the services of the environment. */
export function serviceCommands(program: Command) {
  const services = program.command('services').alias('svc').description('services of the environment');
  examples(
    customFilterOption(
      withOutput(withTarget(services.command('ls').description('list services (all pages)')))
        .option('--name <text>', 'name contains (ignoring case)')
        .option('--tag <tag>', 'has this tag (repeatable)', many)
        .option('--language <language>', 'programming language')
        .option('--location <location>', 'region or zone'),
    ).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd);
      const items = await collect(
        c.client.services({
          ...inEnv(t),
          ...defined({ name: o.name, tags: o.tag, language: o.language, location: o.location }),
          cf: customFilters(o.cf as string[] | undefined),
        }),
      );
      emit(items, o.output, SERVICE_COLUMNS);
    }),
    'infracat services ls',
    'infracat services ls --tag prod --name api -o json',
    'infracat services ls --cf tier=gold --cf tier=silver',
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
    'infracat services create api --field tier=gold --field on_call=true',
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
}
