import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where a cold import's CPU goes, per module: `node --cpu-prof` of a fresh process importing a bundle,
 * `runs` times, each sample's self time given to the module it ran in. A position in the bundle is
 * mapped through the bundle's source map to its source file (a package by its name, a project file by
 * its path); external packages (the AWS SDK) are named by their own path; node's own work (its module
 * loader, compiling the bundle) is `node:<what>`, and V8's buckets keep their names ("(garbage
 * collector)", "(program)"). `COLD_PROFILE=1 npm run bench:cold` prints it per function beside the baseline.
 */
interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const moduleOf = (source: string, root: string): string => {
  const path = source.startsWith('file://') ? fileURLToPath(source) : source;
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return relative(root, path.replace(/^(\.\.\/)+/, `${root}/`));
};

/** Milliseconds of CPU per module, the median over `runs` profiles of `file`'s import. */
export function profileImport(file: string, root: string, env: NodeJS.ProcessEnv, runs = 5): Map<string, number> {
  const map = (() => {
    try {
      return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      return undefined;
    }
  })();
  const bundleUrl = `file://${file}`;
  const perRun: Map<string, number>[] = [];
  for (let r = 0; r < runs; r++) {
    const dir = mkdtempSync(join(tmpdir(), 'cold-prof-'));
    execFileSync(
      process.execPath,
      [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--cpu-prof-interval=100',
        '--input-type=module',
        '-e',
        'await import(process.argv[1]);',
        file,
      ],
      { cwd: root, env },
    );
    const profile = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8')) as Profile;
    rmSync(dir, { recursive: true, force: true });
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const times = new Map<string, number>();
    const cache = new Map<number, string>();
    const bucket = (node: ProfileNode): string => {
      const known = cache.get(node.id);
      if (known) return known;
      const { url, functionName, lineNumber, columnNumber } = node.callFrame;
      let name: string;
      if (!url) name = functionName.startsWith('(') ? functionName : `native ${functionName}`;
      else if (url === bundleUrl && map) {
        const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string };
        name = entry.originalSource
          ? moduleOf(new URL(entry.originalSource, bundleUrl).href, root)
          : 'bundle (unmapped)';
      } else if (url.startsWith('node:'))
        name = url.startsWith('node:internal/modules')
          ? 'node: module loader'
          : `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
      else name = moduleOf(url, root);
      cache.set(node.id, name);
      return name;
    };
    profile.samples.forEach((id, i) => {
      const name = bucket(byId.get(id)!);
      times.set(name, (times.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    perRun.push(times);
  }
  const names = new Set(perRun.flatMap((t) => [...t.keys()]));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return new Map(
    [...names]
      .map((n) => [n, median(perRun.map((t) => t.get(n) ?? 0))] as const)
      .filter(([n]) => n !== '(idle)')
      .sort((a, b) => b[1] - a[1]),
  );
}

/** The modules where `file` spends more than the baseline, largest first: `[module, ms, baseline ms]`. */
export function beyondBaseline(
  file: Map<string, number>,
  baseline: Map<string, number>,
  atLeast = 0.5,
): [string, number, number][] {
  return [...file]
    .map(([name, ms]) => [name, ms, baseline.get(name) ?? 0] as [string, number, number])
    .filter(([, ms, base]) => ms - base >= atLeast)
    .sort((a, b) => b[1] - b[2] - (a[1] - a[2]));
}
