import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../errors.ts';
import { cliClient, serviceUrl, sessionFor, type Connected, type GlobalOptions } from './context.ts';
import { saveSession, type Session } from './session.ts';
import { prompts } from './prompts.ts';
import { CliError } from './errors.ts';

/** How long the CLI waits for the browser to come back. */
const WAIT_MS = 5 * 60_000;

/**
 * `infracat login --sso`: single sign-on through the project's identity provider. A
 * loopback redirect (RFC 8252): the CLI listens on 127.0.0.1 on a free port, prints the sign-in
 * address (and opens a browser where there is one); the service sends the browser back to it with a
 * one-time login code, which the CLI exchanges for its session.
 */
export async function ssoLogin(
  opts: GlobalOptions & { email?: string },
  say: (line: string) => void,
): Promise<Connected> {
  const url = serviceUrl(opts);
  const email = opts.email || process.env.INFRACAT_EMAIL || (await prompts.input('E-mail'));
  let answer!: (code: string | null) => void;
  const code = new Promise<string | null>((resolve) => (answer = resolve));
  const server = createServer((req, res) => {
    const got = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (got.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>infracat</title><p>You can close this tab and return to the terminal.</p>');
    answer(got.searchParams.get('login_code'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const returnTo = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    const start = `${url}/auth/sso/start?${new URLSearchParams({ email, return_to: returnTo })}`;
    say(`Open this address to sign in:\n  ${start}`);
    openBrowser(start);
    const timer = setTimeout(() => answer(null), WAIT_MS);
    const loginCode = await code;
    clearTimeout(timer);
    if (!loginCode) throw new CliError('No answer from the browser: sign-in was not completed.');
    const client = cliClient(opts, url);
    const { data, error } = await client.api.POST('/auth/sso/token', { body: { login_code: loginCode } });
    if (error || !data)
      throw new CliError((error as { detail?: string } | undefined)?.detail ?? 'Single sign-on failed');
    await client.signedIn(data);
    const stored = sessionFor(url);
    const session: Session = { url, email };
    if (stored && stored.email?.toLowerCase() === email.toLowerCase())
      Object.assign(session, { project: stored.project, environment: stored.environment });
    session.refresh_token = client.session.refreshToken;
    saveSession(session);
    return { client, url, session };
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(err.detail);
    throw err;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** Opens `address` in a browser where there is one; silently nothing otherwise (the address is printed). */
function openBrowser(address: string): void {
  if (process.env.INFRACAT_NO_BROWSER) return;
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [address]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', address]]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', [address]]
          : [undefined, []];
  if (!cmd) return;
  try {
    spawn(cmd, args as string[], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    /* no browser: the address is printed */
  }
}
