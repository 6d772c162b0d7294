import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { rename, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard's build (`web/dist`): rebuilt by `npm start`, `npm run build:web`, the CDK app and once
 * per test run whenever its sources changed, so a fresh clone needs nothing but `npm ci && npm start`.
 * The local server serves it (infra/local/web.ts), CloudFront in the cloud.
 */
export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));
export const WEB_DIST = join(WEB_ROOT, 'dist');
const STAMP = '.source-hash';
const LOCKFILE = fileURLToPath(new URL('../../package-lock.json', import.meta.url));
/** The client package's modules the dashboard imports (`@infracat/client/<module>`, web/tsconfig.json's `paths`). */
const CLIENT_SRC = fileURLToPath(new URL('../../clients/typescript/src/', import.meta.url));

/** Every file the build reads (web/ but its output and modules, the client package's sources), in a stable order; then the lockfile. */
function webSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(WEB_ROOT);
  walk(CLIENT_SRC);
  return files;
}

/** The content hash of every file the build reads: it says whether `dist` is current. */
export function webSourceHash(): string {
  const hash = createHash('sha256');
  for (const path of webSources()) {
    hash.update(relative(WEB_ROOT, path).split(sep).join('/')).update('\0');
    hash.update(readFileSync(path)).update('\0');
  }
  hash.update(readFileSync(LOCKFILE));
  return hash.digest('hex');
}

/** True when no file the build reads (nor a folder of them: a file removed) was changed after `dist`'s stamp was taken: then its hash need not be read. */
function untouchedSinceStamp(): boolean {
  try {
    const stamped = statSync(join(WEB_DIST, STAMP)).mtimeMs;
    const dirs = new Set<string>();
    for (const path of webSources()) {
      if (statSync(path).mtimeMs >= stamped) return false;
      dirs.add(dirname(path));
    }
    return [...dirs, LOCKFILE].every((path) => statSync(path).mtimeMs < stamped);
  } catch {
    return false;
  }
}

const currentHash = (): string | undefined => {
  try {
    return readFileSync(join(WEB_DIST, STAMP), 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** True when `web/dist` was built from the sources as they are. */
export const webBuildIsCurrent = (): boolean => currentHash() === webSourceHash();

/**
 * Builds `web/dist` with Vite unless it is current. The build goes to a sibling folder first and is
 * then moved in place, so a server reading `dist` never sees half a build.
 */
export async function ensureWebBuild(
  opts: { force?: boolean; say?: (line: string) => void } = {},
): Promise<{ built: boolean; ms: number }> {
  const started = performance.now();
  // Unchanged since the last build by the files' times (a stat each), else by their content.
  if (!opts.force && untouchedSinceStamp()) return { built: false, ms: 0 };
  const hashedAt = new Date();
  const hash = webSourceHash();
  if (!opts.force && currentHash() === hash) {
    await utimes(join(WEB_DIST, STAMP), hashedAt, hashedAt).catch(() => undefined); // the times agree with the content again
    return { built: false, ms: 0 };
  }
  opts.say?.('Building the dashboard (web/ changed since the last build)...');
  const { build } = await import('vite');
  const outDir = join(WEB_ROOT, `.dist-${process.pid}`);
  await build({
    configFile: join(WEB_ROOT, 'vite.config.ts'),
    root: WEB_ROOT,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  await writeFile(join(outDir, STAMP), hash);
  // The stamp's time is when the sources were read: a file changed during the build is newer than it.
  await utimes(join(outDir, STAMP), hashedAt, hashedAt);
  // Two renames, so `dist` is missing only between them; another process building at the same time
  // (a test run beside `npm start`) may win the second one: its build of the same sources is as good.
  const old = join(WEB_ROOT, `.dist-old-${process.pid}`);
  await rename(WEB_DIST, old).catch(() => undefined);
  try {
    await rename(outDir, WEB_DIST);
  } catch (err) {
    if (currentHash() !== hash) throw err;
    await rm(outDir, { recursive: true, force: true });
  }
  await rm(old, { recursive: true, force: true });
  return { built: true, ms: Math.round(performance.now() - started) };
}
