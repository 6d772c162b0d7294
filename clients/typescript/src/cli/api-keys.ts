import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, examples, many, optionsOf, withOutput } from './common.ts';
import { connect } from './context.ts';
import { col, emit, say } from './output.ts';
import { findProject } from './target.ts';

type ApiKey = paths['/me/api-keys']['get']['responses'][200]['content']['application/json'][number];
type Scope = ApiKey['scopes'][number];

const KEY_COLUMNS = [
  col<ApiKey>('NAME', 'name'),
  col<ApiKey>('SCOPES', 'scopes'),
  col<ApiKey>('PROJECTS', (k) => k.project_ids?.join(',') ?? 'all'),
  col<ApiKey>('PREFIX', 'prefix'),
  col<ApiKey>('EXPIRES', 'expires_at'),
  col<ApiKey>('LAST_USED', 'last_used_at'),
  col<ApiKey>('ID', 'id'),
];

/** The account's API keys (/me/api-keys): the credential for CI (`INFRACAT_API_KEY`). Made by a person signed in: a key's own token cannot manage keys. */
export function apiKeyCommands(program: Command) {
  const keys = program.command('api-keys').description("your API keys: a CI job's credential (INFRACAT_API_KEY)");
  examples(
    withOutput(keys.command('ls').description('list your API keys (never their values)')).action(async (_o, cmd) => {
      const o = optionsOf(cmd);
      const { data } = await (await connect(o)).client.api.GET('/me/api-keys');
      emit(data!, o.output, KEY_COLUMNS);
    }),
    'infracat api-keys ls',
  );
  examples(
    withOutput(keys.command('create <name>').description('create an API key (its value is printed once)'))
      .option(
        '--scope <scope>',
        'read (reads and plan) or write (also changes: apply needs it); repeatable; default read',
        many,
      )
      .option(
        '--project <project>',
        'limit the key to this project (name or id; repeatable); default: every project',
        many,
      )
      .option('--expires <time>', 'when the key stops working (ISO 8601, e.g. 2027-01-01T00:00:00Z); default: never')
      .action(async (name, _o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const projects = (o.project as string[] | undefined) ?? [];
        const project_ids = projects.length
          ? await Promise.all(projects.map(async (ref) => (await findProject(c, ref)).id))
          : undefined;
        const body = {
          name,
          ...defined({ scopes: o.scope as Scope[] | undefined, project_ids, expires_at: o.expires }),
        };
        const { data } = await c.client.api.POST('/me/api-keys', { body });
        emit(data!, o.output);
        if (o.output === 'table')
          say('Keep the key now: the service shows it only once. In CI, set it as INFRACAT_API_KEY.');
      }),
    'infracat api-keys create ci --scope read --scope write --project shop',
    'infracat api-keys create ci-plan --scope read --project shop',
    'infracat api-keys create dashboards --expires 2027-01-01T00:00:00Z -o json',
  );
  examples(
    keys
      .command('revoke <id>')
      .description('revoke an API key: its tokens stop working on their next request')
      .action(async (id, _o, cmd) => {
        const c = await connect(optionsOf(cmd));
        await c.client.api.DELETE('/me/api-keys/{key_id}', { params: { path: { key_id: id } } });
        say(`Revoked API key ${id}`);
      }),
    'infracat api-keys revoke 5b1e…',
  );
}
