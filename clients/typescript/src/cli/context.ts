import { ApiError } from '../errors.ts';
import { createInfracatClient, type ClientOptions, type InfracatClient } from '../client.ts';
import { loadSession, saveSession, type Session } from './session.ts';
import { prompts } from './prompts.ts';
import { CliError } from './errors.ts';

export { CliError };

export const DEFAULT_URL = 'http://localhost:3000';

export interface GlobalOptions {
  url?: string;
  /** Seconds each request may take (`--timeout`). */
  timeout?: number;
  project?: string;
  env?: string;
}

/** `--timeout`, else `INFRACAT_TIMEOUT` (seconds), else the client's default (30 s). */
export function timeoutMs(opts: GlobalOptions): number | undefined {
  const raw = opts.timeout ?? process.env.INFRACAT_TIMEOUT;
  if (raw === undefined || raw === '') return undefined;
  const seconds = Number(raw);
  if (!(seconds > 0))
    throw new CliError(`The timeout is a number of seconds above 0, not '${raw}' (--timeout or INFRACAT_TIMEOUT).`);
  return seconds * 1000;
}

/** The typed client as every command makes it: this service, the CLI's User-Agent, the timeout. */
export const cliClient = (opts: GlobalOptions, url: string, more: Omit<ClientOptions, 'baseUrl'> = {}) =>
  createInfracatClient({ baseUrl: url, userAgent: 'infracat', timeoutMs: timeoutMs(opts), ...more });

const sameUrl = (a?: string, b?: string) => !!a && !!b && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * Says so when `url` is not this service (another web server, a wrong port): GET /plans, public and
 * the same on every deployment, answers a JSON list here. Undefined when it does (or cannot be reached).
 */
export async function notTheApi(url: string): Promise<string | undefined> {
  const answer = await fetch(`${url}/plans`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
  if (!answer) return undefined;
  const type = answer.headers.get('content-type') ?? '';
  const body: unknown = type.includes('json')
    ? await answer.json().catch(() => undefined)
    : await answer.body?.cancel();
  if (answer.ok && Array.isArray(body)) return undefined;
  return `${url} does not look like an Infrastructure Catalog API (GET /plans answered ${answer.status}${type ? ` ${type.split(';')[0]}` : ''})`;
}

/** `--url`, else `INFRACAT_URL`, else the signed-in session's, else http://localhost:3000. */
export function serviceUrl(opts: GlobalOptions, session = loadSession()): string {
  return (opts.url || process.env.INFRACAT_URL || session?.url || DEFAULT_URL).replace(/\/+$/, '');
}

/** The stored session when it is for this service. */
export function sessionFor(url: string): Session | undefined {
  const session = loadSession();
  return session && sameUrl(session.url, url) ? session : undefined;
}

export interface Connected {
  client: InfracatClient;
  url: string;
  session: Session;
  /** Signed in with `INFRACAT_API_KEY`: nothing is read from or written to the session file. */
  keyed?: boolean;
}

/** What a command says when a choice of project or environment is not kept (an API key's run). */
export const CHOICE_NOT_KEPT =
  'not remembered with INFRACAT_API_KEY: pass --project/--env, or set INFRACAT_PROJECT/INFRACAT_ENVIRONMENT';

/** Keeps the chosen project and environment in the session file for the next command; an API key's run keeps nothing (answers false). */
export function keepChoice(c: Connected): boolean {
  if (c.keyed) return false;
  saveSession(c.session);
  return true;
}

const envCredentials = () =>
  process.env.INFRACAT_EMAIL && process.env.INFRACAT_PASSWORD
    ? { email: process.env.INFRACAT_EMAIL, password: process.env.INFRACAT_PASSWORD }
    : undefined;

/**
 * A client signed in for this service: `INFRACAT_API_KEY` first (a machine's credential: the key is
 * exchanged for short-lived access tokens, nothing is stored, the session file is not read); else the
 * stored session (its refresh token, rotated on every refresh and written back), or else
 * `INFRACAT_EMAIL` + `INFRACAT_PASSWORD` (+ `INFRACAT_TOTP_CODE`), which sign in without a prompt and
 * are then kept as the session (so a second factor's code is spent once, not on every command).
 */
export async function connect(opts: GlobalOptions): Promise<Connected> {
  const apiKey = process.env.INFRACAT_API_KEY?.trim();
  if (apiKey) return connectWithApiKey(opts, apiKey);
  const url = serviceUrl(opts);
  const stored = sessionFor(url);
  const creds = envCredentials();
  const session: Session = { ...(stored ?? {}), url };
  const useStored = !!stored?.refresh_token && (!creds || creds.email.toLowerCase() === stored.email?.toLowerCase());
  const client = cliClient(opts, url, {
    refreshToken: useStored ? stored!.refresh_token : undefined,
    onTokens: (t) => {
      session.refresh_token = t.refresh_token;
      saveSession(session);
    },
  });
  if (useStored) {
    try {
      await client.refresh();
      return { client, url, session };
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
      if (!creds) throw new CliError(`${err.detail}: your session has ended. Sign in again with \`infracat login\`.`);
    }
  }
  if (!creds)
    throw new CliError(
      `Not signed in to ${url}. Run \`infracat login\` (in CI: set INFRACAT_API_KEY, or INFRACAT_EMAIL and INFRACAT_PASSWORD).`,
    );
  if (stored && stored.email?.toLowerCase() !== creds.email.toLowerCase()) {
    delete session.project;
    delete session.environment;
  }
  session.email = creds.email;
  await client.login({ ...creds, totpCode: process.env.INFRACAT_TOTP_CODE || undefined, secondFactor: noSecondFactor });
  return { client, url, session };
}

/** A client on an API key: exchanged at once, so a wrong or revoked key fails here with what to do. */
async function connectWithApiKey(opts: GlobalOptions, apiKey: string): Promise<Connected> {
  const url = (opts.url || process.env.INFRACAT_URL || DEFAULT_URL).replace(/\/+$/, '');
  const client = cliClient(opts, url, { apiKey });
  try {
    await client.refresh();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401)
      throw new CliError(
        `INFRACAT_API_KEY: ${err.detail}. Create a new one (infracat api-keys create, signed in as yourself) and set it again.`,
      );
    throw err;
  }
  return { client, url, session: { url }, keyed: true };
}

const noSecondFactor = async (): Promise<string> => {
  throw new CliError(
    'This account signs in with a second factor: set INFRACAT_TOTP_CODE (an authenticator or recovery code).',
  );
};

/** Signs in interactively (or from the environment variables), and stores the session. */
export async function login(opts: GlobalOptions & { email?: string; passwordStdin?: boolean }): Promise<Connected> {
  const url = serviceUrl(opts);
  const stored = sessionFor(url);
  const email = opts.email || process.env.INFRACAT_EMAIL || (await prompts.input('E-mail'));
  const password = opts.passwordStdin
    ? await readStdin()
    : process.env.INFRACAT_PASSWORD || (await prompts.password('Password'));
  const session: Session = { url, email };
  if (stored && stored.email?.toLowerCase() === email.toLowerCase())
    Object.assign(session, { project: stored.project, environment: stored.environment });
  const client = cliClient(opts, url);
  const totpCode = process.env.INFRACAT_TOTP_CODE || undefined;
  await client.login({
    email,
    password,
    totpCode,
    secondFactor: () => prompts.input('Authenticator code (or a recovery code)'),
  });
  session.refresh_token = client.session.refreshToken;
  saveSession(session);
  return { client, url, session };
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.replace(/\r?\n$/, '');
}
