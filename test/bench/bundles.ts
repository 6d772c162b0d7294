import { build } from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bundles`: the size of every function's bundle, built with the options the stack's
 * NodejsFunction uses (ESM, node24, minified, AWS SDK and argon2 external).
 */
const root = join(import.meta.dirname, '../..');
const entries = [
  ...readdirSync(join(root, 'functions')).map((g) => [g, join(root, 'functions', g, 'handler.ts')]),
  ...readdirSync(join(root, 'functions/workers')).map((w) => [`workers/${w}`, join(root, 'functions/workers', w, 'handler.ts')]),
].filter(([, entry]) => existsSync(entry));

const rows: { function: string; bytes: number }[] = [];
for (const [name, entry] of entries) {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    external: ['@aws-sdk/*', '@node-rs/argon2'],
    logLevel: 'error',
  });
  rows.push({ function: name, bytes: out.outputFiles[0].contents.byteLength });
}
console.table(rows);
