import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, InvalidArgumentError } from 'commander';
import { ApiError } from '../errors.js';
import type { paths } from '../schema.js';
import { catalogCommands } from './catalog.js';
import { completionScript, SHELLS } from './completion.js';
import { examples, inTarget, int, optionsOf, withOutput, withTarget } from './common.js';
import { ssoLogin } from './sso-login.js';
import {
  CHOICE_NOT_KEPT,
  cliClient,
  connect,
  keepChoice,
  login,
  notTheApi,
  serviceUrl,
  sessionFor,
} from './context.js';
import { CliError, lockoutHint } from './errors.js';
import { impexCommands } from './impex.js';
import { webhookCommands } from './webhooks.js';
import { apiKeyCommands } from './api-keys.js';
import { planCommands } from './plans.js';
import { col, emit, say } from './output.js';
import { saveSession } from './session.js';
import { findEnvironment, findProject, findService, inEnv, isId } from './target.js';

type AuditEntry = NonNullable<
  paths['/projects/{project_id}/audit-log']['get']['responses'][200]['content']['application/json']
>[number];
type Affected =
  paths['/services/{service_id}/blast-radius']['get']['responses'][200]['content']['application/json']['affected'][number];

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const positive = (v: string) => {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError(`not a number above 0: ${v}`);
  return n;
};

export function buildProgram(): Command {
  const program = new Command('infracat')
    .description(
      'The Infrastructure Catalog from the terminal and CI: the catalog, and whole environments as files (plan/apply).',
    )
    .version(version)
    .option(
      '--url <url>',
      'the service address (env INFRACAT_URL; default: the signed-in one, else http://localhost:3000)',
    )
    .option(
      '--timeout <seconds>',
      'give up on a request the service has not answered after this long (env INFRACAT_TIMEOUT; default 30)',
      positive,
    )
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true });
  examples(
    program,
    'infracat login',
    'infracat use shop production',
    'infracat services ls',
    'infracat plan -f env.yaml',
    'infracat apply -f env.yaml --yes',
  );
  program.addHelpText(
    'after',
    `Environment: INFRACAT_URL, INFRACAT_API_KEY (an API key with scope write to apply; for CI: no session file),
INFRACAT_EMAIL + INFRACAT_PASSWORD (+ INFRACAT_TOTP_CODE) to sign in without prompts,
INFRACAT_PROJECT / INFRACAT_ENVIRONMENT, INFRACAT_TIMEOUT, INFRACAT_CONFIG_DIR (default $XDG_CONFIG_HOME/infracat or ~/.config/infracat), INFRACAT_NO_BROWSER (login --sso only prints the address).
Exit codes: 0 ok, 1 error, 2 (plan) changes pending.
`,
  );

  // session
  examples(
    withOutput(
      program
        .command('login')
        .description('sign in (asks for the password and, when the account has one, the second factor)'),
    )
      .option('--email <email>', 'the account (default: asked, or INFRACAT_EMAIL)')
      .option('--password-stdin', 'read the password from stdin')
      .option(
        '--sso',
        "single sign-on through your organisation's identity provider: prints the address to open (and opens a browser where there is one)",
      )
      .action(async (_o, cmd) => {
        const o = optionsOf(cmd);
        const c = (o as { sso?: boolean }).sso
          ? await ssoLogin(o as typeof o & { email?: string }, (line) => console.error(line))
          : await login(o as typeof o & { email?: string; passwordStdin?: boolean });
        const { data: me } = await c.client.api.GET('/auth/me');
        if (o.output === 'table') say(`Signed in to ${c.url} as ${me!.email}`);
        else emit({ url: c.url, email: me!.email, id: me!.id }, o.output);
      }),
    'infracat login',
    'infracat login --url https://catalog.example.com --email ann@example.com',
    'infracat login --sso --email ann@corp.example',
    'printf %s "$PW" | infracat login --email ann@example.com --password-stdin',
  );
  examples(
    program
      .command('logout')
      .description('sign out: ends the session on the service and forgets it here')
      .action(async (_o, cmd) => {
        const url = serviceUrl(optionsOf(cmd));
        const session = sessionFor(url);
        if (!session?.refresh_token) return say(`Not signed in to ${url}.`);
        const client = cliClient(optionsOf(cmd), url, { refreshToken: session.refresh_token });
        await client.logout().catch((err) => {
          if (!(err instanceof ApiError && err.status === 401)) throw err; // already over on the service
        });
        saveSession({ url, email: session.email });
        say(`Signed out of ${url}.`);
      }),
    'infracat logout',
  );
  examples(
    withOutput(program.command('whoami').description('the signed-in account, service, project and environment')).action(
      async (_o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const { data: me } = await c.client.api.GET('/auth/me');
        emit(
          {
            email: me!.email,
            id: me!.id,
            name: me!.name,
            url: c.url,
            project: c.session.project?.name ?? null,
            environment: c.session.environment?.name ?? null,
          },
          o.output,
        );
      },
    ),
    'infracat whoami',
    'infracat whoami -o json',
  );

  // projects and environments
  examples(
    withOutput(
      program
        .command('use <project> [environment]')
        .description('choose the project (and environment) later commands work in, by name or id'),
    ).action(async (projectRef, envRef, _o, cmd) => {
      const o = optionsOf(cmd);
      const c = await connect(o);
      const project = await findProject(c, projectRef);
      let environment: { id: string; name: string } | undefined;
      if (envRef) environment = await findEnvironment(c, project.id, envRef);
      else {
        const { data: envs } = await c.client.api.GET('/environments', {
          params: { query: { project_id: project.id } },
        });
        if (envs!.length === 1) environment = envs![0];
      }
      c.session.project = { id: project.id, name: project.name };
      c.session.environment = environment ? { id: environment.id, name: environment.name } : undefined;
      const kept = keepChoice(c);
      if (o.output === 'table')
        say(
          kept
            ? `Using ${project.name}${environment ? `/${environment.name}` : ' (no environment chosen: `infracat envs ls`, then `infracat use <project> <environment>`)'}`
            : `Found ${project.name}${environment ? `/${environment.name}` : ''} (${CHOICE_NOT_KEPT}).`,
        );
      else
        emit(c.session.project && { project: c.session.project, environment: c.session.environment ?? null }, o.output);
    }),
    'infracat use shop',
    'infracat use shop production',
  );
  const projects = program.command('projects').description('projects you are a member of');
  examples(
    withOutput(projects.command('ls').description('list projects')).action(async (_o, cmd) => {
      const o = optionsOf(cmd);
      const c = await connect(o);
      const { data } = await c.client.api.GET('/projects');
      const current = c.session.project?.id;
      emit(data!, o.output, [
        col('', (p) => (p.id === current ? '*' : '')),
        col('NAME', 'name'),
        col('OWNER', 'is_owner'),
        col('ID', 'id'),
      ]);
    }),
    'infracat projects ls',
  );
  examples(
    withOutput(projects.command('create <name>').description('create a project (you are its owner) and use it')).action(
      async (name, _o, cmd) => {
        const o = optionsOf(cmd);
        const c = await connect(o);
        const { data } = await c.client.api.POST('/projects', { body: { name } });
        c.session.project = { id: data!.id, name: data!.name };
        c.session.environment = undefined;
        const kept = keepChoice(c);
        if (o.output === 'table')
          say(
            kept
              ? `Created project ${data!.name} (${data!.id}) and using it; next: \`infracat envs create <name>\`.`
              : `Created project ${data!.name} (${data!.id}) (${CHOICE_NOT_KEPT}).`,
          );
        else emit(data!, o.output);
      },
    ),
    'infracat projects create shop',
  );
  const envs = program.command('envs').alias('environments').description('environments of the project');
  examples(
    withOutput(
      envs.command('ls').description('list environments').option('-p, --project <project>', 'project name or id'),
    ).action(async (_o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.GET('/environments', { params: { query: { project_id: t.project.id } } });
      const current = t.environment?.id;
      emit(data!, o.output, [col('', (e) => (e.id === current ? '*' : '')), col('NAME', 'name'), col('ID', 'id')]);
    }),
    'infracat envs ls',
    'infracat envs ls --project shop -o yaml',
  );
  examples(
    withOutput(
      envs
        .command('create <name>')
        .description('create an environment in the project and use it')
        .option('-p, --project <project>', 'project name or id'),
    ).action(async (name, _o, cmd) => {
      const { c, t, o } = await inTarget(cmd, false);
      const { data } = await c.client.api.POST('/environments', { body: { name, project_id: t.project.id } });
      c.session.project = t.project;
      c.session.environment = { id: data!.id, name: data!.name };
      const kept = keepChoice(c);
      if (o.output === 'table')
        say(
          kept
            ? `Created environment ${t.project.name}/${data!.name} and using it.`
            : `Created environment ${t.project.name}/${data!.name} (${CHOICE_NOT_KEPT}).`,
        );
      else emit(data!, o.output);
    }),
    'infracat envs create production',
    'infracat envs create staging --project shop',
  );

  catalogCommands(program);

  // blast radius
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

  impexCommands(program);
  planCommands(program);

  // audit
  examples(
    withOutput(program.command('audit').description("the project's audit log, newest first (--me: your account's)"))
      .option('-p, --project <project>', 'project name or id')
      .option('--me', "your account's log instead")
      .option('--limit <n>', 'at most this many entries (default 50; 0: all)', int, 50)
      .option('--entity-type <type>')
      .option('--entity <id>', 'entity id')
      .option('--actor <id>', 'actor account id')
      .option('--action <action>', 'e.g. service.update')
      .option('--since <time>', 'ISO 8601')
      .option('--until <time>', 'ISO 8601')
      .action(async (_o, cmd) => {
        const o = optionsOf(cmd);
        const filters = Object.fromEntries(
          Object.entries({
            entity_type: o.entityType,
            entity_id: o.entity,
            actor_id: o.actor,
            action: o.action,
            since: o.since,
            until: o.until,
          }).filter(([, v]) => v !== undefined),
        );
        const limit = (o.limit as number) || Infinity;
        const { collect } = await import('../paging.js');
        let entries: AuditEntry[];
        if (o.me)
          entries = (await collect((await connect(o)).client.myAuditLog(filters), limit)) as unknown as AuditEntry[]; // the same entries, without project fields
        else {
          const { c, t } = await inTarget(cmd, false);
          entries = await collect(c.client.auditLog(t.project.id, filters), limit);
        }
        emit(entries, o.output, [
          col('AT', 'at'),
          col('ACTION', 'action'),
          col('ENTITY', (e) => `${e.entity_type} ${e.entity_id ?? ''}`.trim()),
          col('ACTOR', (e) => (e.actor as { email?: string } | null)?.email ?? ''),
        ]);
      }),
    'infracat audit',
    'infracat audit --action service.update --since 2026-01-01 -o json',
    'infracat audit --me --limit 0',
  );

  webhookCommands(program);
  apiKeyCommands(program);

  examples(
    program
      .command('completion')
      .description('print the shell completion script')
      .addArgument(new Argument('<shell>').choices(SHELLS))
      .action((shell) => {
        process.stdout.write(completionScript(program, shell));
      }),
    'eval "$(infracat completion bash)"',
    'infracat completion fish > ~/.config/fish/completions/infracat.fish',
  );

  return program;
}

/** A failure that another server's answer would explain: a refusal that is not the service's JSON, or a body the CLI could not read. */
const mayBeForeign = (err: unknown) =>
  err instanceof ApiError
    ? !(err.body && typeof err.body === 'object' && 'detail' in err.body)
    : (err instanceof TypeError && !/fetch failed/.test(err.message)) || err instanceof SyntaxError;

/** Runs the CLI: every failure is one line on stderr (the service's `detail`), never a stack trace. */
export async function main(argv = process.argv): Promise<void> {
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode; // commander printed its message (or the help / version)
      return;
    }
    const foreign = mayBeForeign(err) ? await notTheApi(serviceUrl(program.opts())) : undefined;
    if (foreign) process.stderr.write(`Error: ${foreign}\n`);
    else if (err instanceof ApiError)
      process.stderr.write(
        `Error: ${err.detail} (HTTP ${err.status})${err.status === 423 ? lockoutHint(err.body) : ''}\n`,
      );
    else if (err instanceof CliError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    } else if (err instanceof Error && /ExitPromptError|AbortPromptError/.test(err.name))
      process.stderr.write('Cancelled.\n');
    else if (err instanceof TypeError && /fetch failed/.test(err.message))
      process.stderr.write(
        `Error: cannot reach the service (${(err.cause as Error)?.message ?? err.message}). Check --url or INFRACAT_URL.\n`,
      );
    else process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (process.env.INFRACAT_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  }
}

await main();
