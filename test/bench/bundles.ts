import { build } from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYED_BUILD, ROOT as root } from './deployed-bundle.ts';

/**
 * `npm run bundles`: the size of every function's bundle, built with the options the stack's
 * NodejsFunction uses (deployed-bundle.ts; the packages shipped beside a bundle are not in it).
 */
const entries = [
  ...readdirSync(join(root, 'functions')).map((g) => [g, join(root, 'functions', g, 'handler.ts')]),
  ...readdirSync(join(root, 'functions/workers')).map((w) => [
    `workers/${w}`,
    join(root, 'functions/workers', w, 'handler.ts'),
  ]),
].filter(([, entry]) => existsSync(entry));

const rows: { function: string; bytes: number }[] = [];
for (const [name, entry] of entries) {
  const out = await build({
    ...DEPLOYED_BUILD,
    entryPoints: [entry],
    outfile: join(root, '.bench', 'bundles', 'index.mjs'),
    write: false,
    sourcemap: false,
  });
  rows.push({ function: name, bytes: out.outputFiles[0].contents.byteLength });
}
console.table(rows);
