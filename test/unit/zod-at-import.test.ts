import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { zodCallsAtImport, zodSchemasAtImport } from '../architecture/zod-at-import.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const lines = (...src: string[]) => src.join('\n');
const filesUnder = (dir: string): string[] =>
  readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(repoRoot, join(repoRoot, dir, e.name))],
  );

const fixtures: string[] = [];
afterAll(() => {
  for (const root of fixtures) rmSync(root, { recursive: true, force: true });
});

describe('no zod schema built at import (docs/decisions/0956-no-zod-schema-built-at-import.md)', () => {
  it('finds a schema built at module level: a constant, an object literal, an argument, a chain, a spread shape', () => {
    const src = lines(
      "import * as z from 'zod';",
      'export const uuid = z.uuid();',
      'const text = z.string().nullable().default(null);',
      'export const fields = { name: z.string().min(1), port: z.coerce.number() };',
      'export const view = defineView(entity, { group_name: z.string().nullable() });',
      'export const Schema = z.object({',
      '  ...fields,',
      '  tags: z.array(z.string()),',
      '});',
      "const entity = defineEntity('x', { schema: () => z.object({}), extra: z.boolean() });",
    );
    expect(zodCallsAtImport(src)).toEqual([2, 3, 4, 5, 6, 8, 10]);
  });

  it('passes what is built at first use: lazySchema, lazyShape, functions, methods, arrow bodies, types', () => {
    const src = lines(
      "import * as z from 'zod';",
      "import { lazySchema, lazyShape } from '#shared/lazy-schema';",
      'export const uuid = lazySchema(() => z.uuid());',
      'export const serviceFields = lazyShape(() => ({ name: z.string(), tags: z.array(z.string()) }));',
      'export const view = defineView(entity, { type: () => z.string(), other: (x: number) => z.number().max(x) });',
      'export function input(): z.ZodObject {',
      '  return z.object({ name: z.string() });',
      '}',
      'export const route = {',
      '  body() {',
      '    return z.object({});',
      '  },',
      '  schema: async (): Promise<z.ZodType> => {',
      '    const s = z.string();',
      '    return s;',
      '  },',
      '};',
      'export type Input = z.infer<ReturnType<typeof uuid>>;',
      'const typed: z.ZodType | undefined = undefined;',
      "const note = 'z.string() in a string', pattern = /z.string()/;",
      '// z.object({}) in a comment',
      'const template = `z.string()`;',
    );
    expect(zodCallsAtImport(src)).toEqual([]);
  });

  it('names each finding by file and line, only under shared/ and functions/', () => {
    const root = mkdtempSync(join(tmpdir(), 'zod-at-import-'));
    fixtures.push(root);
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    const bad = "import * as z from 'zod';\nexport const email = z.email();\n";
    write('shared/fields.ts', bad);
    write('functions/auth/routes.ts', bad);
    write('infra/local/cli.ts', bad);
    write('shared/lazy.ts', "import * as z from 'zod';\nexport const email = () => z.email();\n");
    expect(
      zodSchemasAtImport(root, [
        'shared/fields.ts',
        'functions/auth/routes.ts',
        'infra/local/cli.ts',
        'shared/lazy.ts',
      ]),
    ).toEqual([
      'shared/fields.ts:2: a zod schema built at import: build it at first use (lazySchema, lazyShape, a function)',
      'functions/auth/routes.ts:2: a zod schema built at import: build it at first use (lazySchema, lazyShape, a function)',
    ]);
  });

  it('holds for the real tree', () => {
    const files = [...filesUnder('shared'), ...filesUnder('functions')];
    expect(files.length).toBeGreaterThan(300);
    expect(zodSchemasAtImport(repoRoot, files)).toEqual([]);
  });
});
