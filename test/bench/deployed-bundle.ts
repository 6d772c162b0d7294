import { build, type BuildOptions } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTION_BUILD, separatePackageCommands } from '../../infra/cdk/aliases.ts';
import { separatePackagesOf } from '../../infra/cdk/stack.ts';

/**
 * A function bundled as the stack bundles it (infra/cdk/aliases.ts, `FUNCTION_BUILD`). The benches that measure a function (`npm run bundles`,
 * `bench:cold`, `bench:scale`'s jobs) build it with these options, so they measure what is deployed.
 */
export const ROOT = join(import.meta.dirname, '../..');

export const DEPLOYED_BUILD = {
  ...FUNCTION_BUILD,
  logLevel: 'error',
  absWorkingDir: ROOT,
} satisfies BuildOptions;

/** Bundles `entry` into `outfile` as deployed; answers the bundle's size in bytes. */
export async function bundleAsDeployed(entry: string, outfile: string): Promise<number> {
  await build({ ...DEPLOYED_BUILD, entryPoints: [entry], outfile });
  return statSync(outfile).size;
}

/**
 * Puts beside a bundle in `dir` the packages the stack ships beside the function `entry`'s bundle
 * (its `node_modules/<pkg>/index.mjs`, aliases.ts), with the stack's own commands. `entry` is
 * relative to the project root, as in the stack.
 */
export function shipSeparatePackages(entry: string, dir: string): void {
  for (const pkg of separatePackagesOf(entry))
    for (const command of separatePackageCommands(ROOT, dir, pkg)) execFileSync('sh', ['-c', command]);
}
