import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A module a reader can hold in mind: no hand-written source file under these folders runs past 300 lines
 * (as formatted by Biome). Generated files (the client's schema types, the plan rules' copy) are not counted.
 */
const ROOTS = ['shared', 'functions', 'web/src', 'clients/typescript/src', 'infra'];
const GENERATED = new Set(['clients/typescript/src/schema.d.ts', 'clients/typescript/src/plans.ts']);
const MAX_LINES = 300;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|tsx|css)$/.test(entry.name) ? [path] : [];
  });
}

function longFiles(root: string, max = MAX_LINES): string[] {
  return ROOTS.flatMap((r) => sourceFiles(join(root, r)))
    .map((path) => ({ file: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
    .filter(({ file, lines }) => !GENERATED.has(file) && lines > max)
    .map(
      ({ file, lines }) => `${file}: ${lines} lines (at most ${max}: split it into modules named for what they hold)`,
    );
}

describe('source files', () => {
  it('reports a file over the limit, and not one at it', () => {
    expect(longFiles(repoRoot, 1).length).toBeGreaterThan(0);
    expect(longFiles(repoRoot, 100_000)).toEqual([]);
  });

  it('has no hand-written file over 300 lines', () => {
    expect(longFiles(repoRoot)).toEqual([]);
  });
});
