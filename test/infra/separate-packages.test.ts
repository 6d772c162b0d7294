import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BANNER, SEPARATE_PACKAGES, separatePackageCommands } from '../../infra/cdk/aliases.ts';
import { separatePackagesOf } from '../../infra/cdk/stack.ts';

/**
 * The YAML libraries (`yaml`, and js-yaml for valid documents) are shipped beside the jobs worker's bundle, not in it (cold
 * start). The document code is bundled as the stack bundles it, the package put beside it by the
 * stack's commands, and a fresh `node` reads and writes a document with it from there.
 */
const ROOT = join(import.meta.dirname, '..', '..');
// Outside the project: no node_modules above the asset but its own.
const work = mkdtempSync(join(tmpdir(), 'separate-packages-'));
const asset = join(work, 'asset');

beforeAll(async () => {
  mkdirSync(asset, { recursive: true });
  // The SDK, as the Lambda runtime provides it: without lib-storage, which the runtime does not promise (aliases.ts).
  mkdirSync(join(work, 'node_modules/@aws-sdk'), { recursive: true });
  for (const pkg of readdirSync(join(ROOT, 'node_modules/@aws-sdk')).filter((p) => p !== 'lib-storage'))
    symlinkSync(join(ROOT, 'node_modules/@aws-sdk', pkg), join(work, 'node_modules/@aws-sdk', pkg));
  const probe = join(work, 'probe.ts');
  writeFileSync(
    probe,
    `export { parseDocument, toYaml } from '${join(ROOT, 'shared/domain/impex/yaml.ts')}';\nexport { exampleDocument } from '${join(ROOT, 'shared/domain/impex/document.ts')}';\n`,
  );
  await build({
    entryPoints: [probe],
    outfile: join(asset, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    banner: { js: BANNER },
    external: ['@aws-sdk/*', '@node-rs/argon2', ...Object.keys(SEPARATE_PACKAGES)],
    logLevel: 'error',
    absWorkingDir: ROOT,
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Parses the example's YAML with the bundle and answers the errors and the YAML again. */
function roundTrip(): { errors: unknown[]; same: boolean } {
  const script = [
    'const { parseDocument, toYaml, exampleDocument } = await import(process.argv[1]);',
    'const text = await toYaml(exampleDocument());',
    'const parsed = await parseDocument(text);',
    'process.stdout.write(JSON.stringify({ errors: parsed.errors, same: parsed.document !== null && (await toYaml(parsed.document)) === text }));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, join(asset, 'index.mjs')], {
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out.toString());
}

describe('packages shipped beside a bundle', () => {
  it('yaml: only the jobs worker gets it; its bundle does not carry it and reads and writes documents with the shipped copy', () => {
    expect(separatePackagesOf('functions/workers/jobs/handler.ts')).toEqual(
      expect.arrayContaining(['yaml', 'js-yaml']),
    );
    expect(separatePackagesOf('functions/impex/handler.ts')).not.toContain('yaml');
    expect(separatePackagesOf('functions/impex/handler.ts')).not.toContain('js-yaml');
    // the auth function signs people in through single sign-on too: openid-client beside it, loaded at its first use (issue 44)
    expect(separatePackagesOf('functions/auth/handler.ts')).toEqual(['@aws-lambda-powertools/tracer', 'openid-client']);
    expect(readFileSync(join(asset, 'index.mjs'), 'utf8')).not.toContain('Implicit keys need to be on a single line'); // the library's own text
    expect(readFileSync(join(asset, 'index.mjs'), 'utf8')).not.toContain('duplicated mapping key'); // js-yaml's own text
    // Not shipped yet: the bundle alone cannot read a document.
    expect(() => roundTrip()).toThrow(/yaml/);
    for (const pkg of ['yaml', 'js-yaml'] as const)
      for (const command of separatePackageCommands(ROOT, asset, pkg)) execFileSync('sh', ['-c', command]);
    expect(roundTrip()).toEqual({ errors: [], same: true });
  });

  it("lib-storage: only the jobs worker (the export's streamed upload) gets it; shipped, it loads beside the bundle with the runtime's S3 client", () => {
    expect(separatePackagesOf('functions/workers/jobs/handler.ts')).toContain('@aws-sdk/lib-storage');
    expect(separatePackagesOf('functions/impex/handler.ts')).not.toContain('@aws-sdk/lib-storage');
    const script =
      "const { Upload } = await import('@aws-sdk/lib-storage'); const { S3Client } = await import('@aws-sdk/client-s3'); process.stdout.write(String(typeof new Upload({ client: new S3Client({ region: 'us-east-1' }), params: { Bucket: 'b', Key: 'k', Body: 'x' } }).done));";
    const load = () =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: asset,
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    // Not shipped: the runtime's SDK alone has no lib-storage.
    expect(load).toThrow(/lib-storage/);
    for (const command of separatePackageCommands(ROOT, asset, '@aws-sdk/lib-storage'))
      execFileSync('sh', ['-c', command]);
    expect(load()).toBe('function');
    // The S3 client is not in the shipped file: it is the runtime's, as the bundle's own.
    expect(readFileSync(join(asset, 'node_modules/@aws-sdk/lib-storage/index.mjs'), 'utf8')).toMatch(
      /from"@aws-sdk\/client-s3"/,
    );
  });
});
