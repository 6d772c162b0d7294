import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A random key kept in a file (local runtime only; the cloud keeps keys in Secrets Manager / KMS).
 * Generated once and then reused, so data and tokens survive restarts. Two processes racing to create
 * it both end up reading the one file that won (`wx` never overwrites).
 */
export async function localKeyFile(path: string, bytes: number): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, randomBytes(bytes).toString('base64url'), { mode: 0o600, flag: 'wx' }).catch(() => undefined);
    return (await readFile(path, 'utf8')).trim();
  }
}
