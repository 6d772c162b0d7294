import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, InvalidArgumentError } from 'commander';
import { ApiError } from '../errors.ts';
import { auditCommand } from './audit.ts';
import { watchCommand } from './watch.ts';
import { completionScript, SHELLS } from './completion.ts';
import { connectionCommands } from './connections.ts';
import { examples, optionsOf, withOutput } from './common.ts';
import { floorCommands } from './floors.ts';
import { networkCommands } from './networks.ts';
import { serviceCommands } from './services.ts';
import { searchCommand } from './search.ts';
import { cliClient, connect, login, notTheApi, serviceUrl, sessionFor } from './context.ts';
import { CliError, lockoutHint } from './errors.ts';
import { impactCommand } from './impact.ts';
import { impexCommands } from './impex.ts';
import { webhookCommands } from './webhooks.ts';
import { apiKeyCommands } from './api-keys.ts';
import { planCommands } from './plans.ts';
import { emit, say } from './output.ts';
import { projectCommands } from './projects.ts';
import { saveSession } from './session.ts';

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
          ? await (await import('./sso-login.ts')).ssoLogin(o as typeof o & { email?: string }, (line) =>
              console.error(line),
            )
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

  projectCommands(program);

  serviceCommands(program);
  floorCommands(program);
  networkCommands(program);
  connectionCommands(program);

  impactCommand(program);

  impexCommands(program);
  planCommands(program);

  auditCommand(program);
  searchCommand(program);
  watchCommand(program);

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
