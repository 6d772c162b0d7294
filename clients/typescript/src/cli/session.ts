import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What `infracat` keeps between runs: the service, the session's refresh token, the chosen project and environment. */
export interface Session {
  url: string;
  email?: string;
  refresh_token?: string;
  project?: { id: string; name: string };
  environment?: { id: string; name: string };
}

/** `INFRACAT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/infracat`, else `~/.config/infracat`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.INFRACAT_CONFIG_DIR) return env.INFRACAT_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'infracat');
}

export const sessionPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'session.json');

export function loadSession(env: NodeJS.ProcessEnv = process.env): Session | undefined {
  try {
    return JSON.parse(readFileSync(sessionPath(env), 'utf8')) as Session;
  } catch {
    return undefined;
  }
}

/**
 * Writes the session file with mode 0600 (its folder 0700): it holds a refresh token. Written beside
 * it and renamed over it, so another `infracat` starting meanwhile reads the old file or the new one,
 * never a truncated one (it would think it is not signed in).
 */
export function saveSession(session: Session, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = sessionPath(env);
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, file);
}
