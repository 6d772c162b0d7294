import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type OutputFile } from 'esbuild';
import { FUNCTION_BUILD } from './aliases.ts';
import { stackFunctions } from './functions.ts';

/**
 * Every function's bundle comes from one esbuild build of all the stack's entries, made at the first
 * bundle a synthesis asks for: the entries share the parsing of the modules they have in common (as
 * needs.ts's build does), and no process is started per function (NodejsFunction's own bundling runs
 * `npx --no-install esbuild` for each: 27 npm starts and 27 builds; a `cdk synth` took 45 CPU-s, now 17). The
 * options are the ones NodejsFunction passed on esbuild's command line. In memory until a function's
 * asset is staged; a synthesis that skips bundling (the in-process test stacks) never builds.
 */
const built = new Map<string, OutputFile[]>();

/** Where the build's outputs would be (never written there): `<entry's folder>/<entry's name>/index.mjs`. */
const BUILD_DIR = '.function-bundles';

/** Where the build puts `entry`'s outputs. */
const bundleDir = (root: string, entry: string) => join(root, BUILD_DIR, entry.replace(/\.ts$/, ''));

function buildEvery(root: string, entries: string[]): void {
  const outdir = join(root, BUILD_DIR);
  const { outputFiles } = buildSync({
    entryPoints: entries.map((entry) => join(root, entry)),
    absWorkingDir: root,
    outdir,
    outbase: root,
    entryNames: '[dir]/[name]/index',
    outExtension: { '.js': '.mjs' },
    ...FUNCTION_BUILD,
    write: false,
    logLevel: 'warning',
  });
  for (const entry of entries)
    built.set(
      entry,
      outputFiles.filter((f) => dirname(f.path) === bundleDir(root, entry)),
    );
}

/** Writes `entry`'s bundle (index.mjs and its source map) into `outputDir`. */
export function writeBundle(root: string, entry: string, outputDir: string): void {
  if (!built.has(entry)) buildEvery(root, [...new Set([entry, ...stackFunctions().map((f) => f.entry)])]);
  const files = built.get(entry) ?? [];
  if (!files.some((f) => f.path.endsWith('index.mjs'))) throw new Error(`no bundle was built for ${entry}`);
  for (const file of files) {
    const target = join(outputDir, relative(bundleDir(root, entry), file.path));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.contents);
  }
}

/** Bundles one function locally: its bundle (`writeBundle`), then `afterBundling`'s shell commands, run in `root`. */
class FunctionBundling implements ILocalBundling {
  // Fields, not closures: CDK stages an asset once per source folder and bundling options (functions left
  // out), and every function's source folder is the root: its entry tells one function's asset from another's.
  readonly root: string;
  readonly entry: string;
  readonly afterBundling: (outputDir: string) => string[];

  constructor(root: string, entry: string, afterBundling: (outputDir: string) => string[]) {
    this.root = root;
    this.entry = entry;
    this.afterBundling = afterBundling;
  }

  tryBundle(outputDir: string): boolean {
    writeBundle(this.root, this.entry, outputDir);
    const commands = this.afterBundling(outputDir);
    if (commands.length)
      execFileSync('bash', ['-c', commands.join(' && ')], { cwd: this.root, stdio: ['ignore', 'inherit', 'inherit'] });
    return true;
  }
}

/** A function's code, bundled by `FunctionBundling` and hashed by its output, as NodejsFunction's is. */
export const bundledCode = (root: string, entry: string, afterBundling: (outputDir: string) => string[]): Code =>
  Code.fromAsset(root, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('dummy'), // never used: bundling is always local (synth stays offline and Docker-free)
      local: new FunctionBundling(root, entry, afterBundling),
    },
  });
