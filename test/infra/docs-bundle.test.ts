import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiEvent } from '../../infra/local/api-event.ts';
import { afterBundlingCommands } from '../../infra/cdk/stack.ts';
import { servedScript } from '../../functions/docs/reference-page.ts';

/**
 * The docs function as Lambda runs it: bundled as the stack bundles it, with the
 * stack's afterBundling commands run over the output, imported by a fresh `node` and invoked. The
 * Redoc script is then read from beside the bundle (there is no node_modules/redoc above it).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = 'functions/docs/handler.ts';
// Two levels under .bench: `../../node_modules` from the bundle is not the project's.
const work = join(ROOT, '.bench', `docs-bundle-${randomUUID()}`);
const asset = join(work, 'asset');
const REDOC = servedScript(readFileSync(join(ROOT, 'node_modules/redoc/bundles/redoc.standalone.js'), 'utf8'));

beforeAll(async () => {
  mkdirSync(asset, { recursive: true });
  await build({
    entryPoints: [join(ROOT, ENTRY)],
    outfile: join(asset, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    external: ['@aws-sdk/*', '@node-rs/argon2'],
    logLevel: 'error',
    absWorkingDir: ROOT,
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** One invocation of the bundled handler in a fresh node. */
function invoke(path: string): { statusCode: number; headers: Record<string, string>; body: string } {
  const event = apiEvent({ method: 'GET', url: path, routeKey: `GET ${path.split('?')[0]}` });
  const script =
    'const { handler } = await import(process.argv[1]); process.stdout.write(JSON.stringify(await handler(JSON.parse(process.argv[2]), { awsRequestId: "test" })));';
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', script, join(asset, 'index.mjs'), JSON.stringify(event)],
    {
      cwd: work,
      env: { ...process.env, AWS_REGION: 'us-east-1', LOG_LEVEL: 'silent' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(out.toString());
}

describe('the docs function bundle', () => {
  it("serves the page and the Redoc script copied beside it by the stack's afterBundling commands (and fails without them)", () => {
    expect(invoke('/docs/redoc.standalone.js').statusCode).toBe(500); // nothing copied yet: the file is not bundled in

    for (const command of afterBundlingCommands(ENTRY, ROOT, asset)) execFileSync('sh', ['-c', command]);
    const page = invoke('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const src = /<script src="([^"]+)"/.exec(page.body)![1];
    const script = invoke(src);
    expect([script.statusCode, script.headers['content-type'], script.headers['cache-control']]).toEqual([
      200,
      'application/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    expect(script.body).toBe(REDOC);
  });

  it('copies the script only beside the docs function', () => {
    expect(afterBundlingCommands(ENTRY, ROOT, '/out').filter((c) => c.includes('redoc'))).toEqual([
      `cp "${ROOT}/node_modules/redoc/bundles/redoc.standalone.js" "/out/"`,
    ]);
    expect(afterBundlingCommands('functions/auth/handler.ts', ROOT, '/out').some((c) => c.includes('redoc'))).toBe(
      false,
    );
  });
});
