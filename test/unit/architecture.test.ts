import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph, extractImports, matchImportsField } from '../architecture/import-graph.ts';
import { deepImportsFromTests, violations } from '../architecture/rules.ts';
import {
  authorizationInRoutes,
  livenessExpressionsOutsideDb,
  loadAccessOutsideAccessModules,
  rawExpressionsOutsideDb,
  rawSingleWritesOutsideDb,
  relativeImportsWithoutFile,
  retryLoopsOutsideDb,
  zodNamedImports,
} from '../architecture/source-rules.ts';
import { storedItemCasts } from '../architecture/source-rules.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

type Files = Record<string, string>;

const IMPORTS = {
  '#domain/*': './shared/domain/*/index.ts',
  '#db/*': './shared/db/*.ts',
  '#http/*': './shared/http/*.ts',
  '#shared/*': './shared/*.ts',
};

/** A small tree shaped like the real one that breaks no rule. */
const CLEAN: Files = {
  'shared/config.ts': 'export const config = {};\n',
  'shared/db/keys.ts': "import { config } from '#shared/config';\nexport const keys = config;\n",
  'shared/http/errors.ts': "export const notFound = () => new Error('not found');\n",
  'shared/domain/identity/index.ts': "export * from './accounts';\n",
  'shared/domain/identity/accounts.ts': "import { keys } from '#db/keys';\nexport const account = keys;\n",
  'shared/domain/billing/index.ts': "export * from './plans';\n",
  'shared/domain/billing/plans.ts': "import { account } from '#domain/identity';\nexport const plan = account;\n",
  'shared/domain/tenancy/index.ts': "export * from './access';\nexport * from './projects';\n",
  'shared/domain/tenancy/access.ts':
    "import type { plan } from '#domain/billing';\nexport const access: typeof plan = {};\n",
  'shared/domain/tenancy/projects.ts': [
    "import { access } from './access';",
    "import { plan } from '#domain/billing';",
    "import { account } from '#domain/identity';",
    'export const project = [access, plan, account];',
  ].join('\n'),
  'shared/domain/catalog/index.ts': "export * from './items';\nexport * from './topology/links';\n",
  'shared/domain/catalog/items.ts': "import { project } from '#domain/tenancy';\nexport const item = project;\n",
  'shared/domain/catalog/topology/links.ts': "import { item } from '../items';\nexport const link = item;\n",
  'functions/projects/routes.ts': [
    "import { project } from '#domain/tenancy';",
    "import { item } from '#domain/catalog';",
    "import { notFound } from '#http/errors';",
    'export const routes = [project, item, notFound];',
  ].join('\n'),
};

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

function writeTree(files: Files, imports: Record<string, unknown> = IMPORTS): string {
  const root = mkdtempSync(join(tmpdir(), 'import-graph-'));
  tempDirs.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fixture', type: 'module', imports }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The violations of the clean tree with some files added or replaced. */
const check = (changes: Files = {}) => violations(buildImportGraph(writeTree({ ...CLEAN, ...changes })));

describe('extractImports', () => {
  it('finds every import and re-export form, single- or double-quoted, and tells type-only ones apart', () => {
    const src = [
      "import a from './a';",
      'import type { B } from "./b";',
      "import { type C, d } from './c';",
      "import * as e from './e';",
      "import f, { g } from './f';",
      'import {',
      '  h,',
      '  i as ii,',
      "} from './h';",
      "export { j } from './j';",
      "export type { K } from './k';",
      "export * from './l';",
      'export * as m from "./m";',
      "import './side-effect';",
      "const n = await import('./n');",
      "import type * as o from './o';",
      "import type from './default-named-type';",
      "import { zod } from 'zod';",
    ].join('\n');
    expect(extractImports(src).map(({ specifier, kind }) => `${kind} ${specifier}`)).toEqual([
      'static ./a',
      'type ./b',
      'static ./c', // inline `type` marks: the module is still loaded under verbatimModuleSyntax
      'static ./e',
      'static ./f',
      'static ./h',
      'static ./j',
      'type ./k',
      'static ./l',
      'static ./m',
      'static ./side-effect',
      'dynamic ./n',
      'type ./o',
      'static ./default-named-type',
      'static zod',
    ]);
  });

  it('ignores imports in comments, strings, templates and regexes, and non-import uses of the keywords', () => {
    const src = [
      "// import x from './line-comment';",
      "/* export * from './block-comment'; */",
      "/**\n * import y from './doc-comment';\n */",
      'const s = "import y from \'./in-a-string\'";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal, for the import scanner under test
      "const t = `import z from './in-a-template' ${`import('./nested')`}`;",
      "const re = /import q from '.\\/regex'/;",
      'const half = (1 + 2) / 2; const quote = "\'";',
      'const url = import.meta.url;',
      "const opts = { import: './not-an-import' };",
      'export const from = 1;',
      'export function f() { return import(name); }',
      "import { real } from './real';",
    ].join('\n');
    expect(extractImports(src)).toEqual([{ specifier: './real', kind: 'static', line: 14 }]);
  });
});

describe('resolution', () => {
  it('applies package.json imports patterns generically: longest prefix wins, every * substituted, exact keys', () => {
    const imports = {
      '#lib/*': './lib/*/main.ts',
      '#lib/special/*': './special/*.ts',
      '#twice/*': './t/*/*.ts',
      '#config': './shared/config.ts',
      '#pkg/*': 'some-package/*',
    };
    expect(matchImportsField(imports, '#lib/a')).toBe('./lib/a/main.ts');
    expect(matchImportsField(imports, '#lib/special/b')).toBe('./special/b.ts');
    expect(matchImportsField(imports, '#twice/x')).toBe('./t/x/x.ts');
    expect(matchImportsField(imports, '#config')).toBe('./shared/config.ts');
    expect(matchImportsField(imports, '#pkg/x')).toBeUndefined();
    expect(matchImportsField(imports, '#nope/x')).toBeUndefined();
    expect(matchImportsField({ '#c/*': { types: './c/*.ts', default: './c/*.js' } }, '#c/x')).toBe('./c/x.ts');
  });

  it('resolves relative and aliased specifiers to files, skips packages, and reports what names no file', () => {
    const root = writeTree(
      {
        'shared/x.ts':
          "import { y } from './y';\nimport { z } from './z';\nimport { w } from './w.js';\nimport { m } from '#lib/m';\nimport 'zod';\nimport { gone } from './gone';\nimport { nope } from '#nope/a';\n",
        'shared/y.ts': 'export const y = 1;\n',
        'shared/z/index.ts': 'export const z = 1;\n',
        'shared/w.ts': 'export const w = 1;\n',
        'lib/m/main.ts': 'export const m = 1;\n',
        'shared/ambient.d.ts': "import type { y } from './y';\nimport { w } from './w';\n",
      },
      { '#lib/*': './lib/*/main.ts' },
    );
    const graph = buildImportGraph(root, ['shared']);
    expect(graph.files).toEqual([
      'shared/ambient.d.ts',
      'shared/w.ts',
      'shared/x.ts',
      'shared/y.ts',
      'shared/z/index.ts',
    ]);
    expect(graph.edges.map((e) => `${e.from}: ${e.specifier} → ${e.to}${e.typeOnly ? ' (type-only)' : ''}`)).toEqual([
      'shared/ambient.d.ts: ./y → shared/y.ts (type-only)',
      'shared/ambient.d.ts: ./w → shared/w.ts (type-only)', // a declaration file never runs
      'shared/x.ts: ./y → shared/y.ts',
      'shared/x.ts: ./z → shared/z/index.ts',
      'shared/x.ts: ./w.js → shared/w.ts',
      'shared/x.ts: #lib/m → lib/m/main.ts',
    ]);
    expect(violations(graph)).toEqual([
      "shared/x.ts:6 → './gone': resolves to no file",
      "shared/x.ts:7 → '#nope/a': resolves to no file",
    ]);
  });
});

describe('rules on fixture trees', () => {
  it('the clean fixture has no violations', () => {
    expect(check()).toEqual([]);
  });

  describe('1. contexts import only contexts below them', () => {
    it('adding a wrong-way import makes the check fail', () => {
      expect(check()).toEqual([]);
      expect(
        check({
          'shared/domain/identity/login.ts':
            "import { project } from '#domain/tenancy';\nexport const login = project;\n",
        }),
      ).toEqual([
        'shared/domain/identity/login.ts → shared/domain/tenancy/index.ts: identity may not import tenancy',
        // The contexts' folders now import each other in a loop (rule 9).
        'entries of one folder in a loop: shared/domain/billing/ → shared/domain/identity/ → shared/domain/tenancy/ → shared/domain/billing/ (shared/domain/billing/plans.ts → shared/domain/identity/index.ts; shared/domain/identity/login.ts → shared/domain/tenancy/index.ts; shared/domain/tenancy/access.ts → shared/domain/billing/index.ts (type-only))',
      ]);
    });

    it('counts type-only imports too', () => {
      // audit imports nothing here, so the wrong-way import is the only problem (no cycle closes through it).
      expect(
        check({
          'shared/domain/audit/index.ts': 'export type Entry = { id: string };\n',
          'shared/domain/billing/plans.ts':
            "import type { Entry } from '#domain/audit';\nexport const plan = 1 as unknown as Entry;\n",
        }),
      ).toEqual(['shared/domain/billing/plans.ts → shared/domain/audit/index.ts: billing may not import audit']);
    });

    it('lets the outer contexts import catalog and everything below, but not each other', () => {
      const outer = {
        'shared/domain/impex/index.ts': "export * from './export';\n",
        'shared/domain/impex/export.ts':
          "import { item } from '#domain/catalog';\nimport { account } from '#domain/identity';\nexport const out = [item, account];\n",
        'shared/domain/discovery/index.ts': "export * from './scan';\n",
        'shared/domain/discovery/scan.ts': "import { project } from '#domain/tenancy';\nexport const scan = project;\n",
      };
      expect(check(outer)).toEqual([]);
      expect(
        check({
          ...outer,
          'shared/domain/discovery/scan.ts': "import { out } from '#domain/impex';\nexport const scan = out;\n",
        }),
      ).toEqual(['shared/domain/discovery/scan.ts → shared/domain/impex/index.ts: discovery may not import impex']);
    });

    it('refuses a context folder that is not in the layering', () => {
      expect(check({ 'shared/domain/reports/index.ts': 'export const r = 1;\n' })).toEqual([
        'shared/domain/reports/index.ts: reports is not a known context (add it to CONTEXT_LAYERS in test/architecture/rules.ts)',
      ]);
    });
  });

  describe('2. other code reaches a context only through its index.ts', () => {
    it('reports a deep import from another context', () => {
      expect(
        check({
          'shared/domain/catalog/items.ts':
            "import { access } from '../tenancy/access';\nexport const item = access;\n",
        }),
      ).toEqual([
        'shared/domain/catalog/items.ts → shared/domain/tenancy/access.ts: deep import into tenancy: import its index.ts instead',
      ]);
    });

    it('reports a deep import from a route', () => {
      expect(
        check({
          'functions/projects/routes.ts':
            "import { project } from '../../shared/domain/tenancy/projects';\nexport const routes = [project];\n",
        }),
      ).toEqual([
        'functions/projects/routes.ts → shared/domain/tenancy/projects.ts: deep import into tenancy: import its index.ts instead',
      ]);
    });

    it('allows the index, relatively or by alias, and sibling files inside a context', () => {
      expect(
        check({
          'shared/domain/catalog/items.ts':
            "import { project } from '../tenancy';\nimport { access } from '#domain/tenancy';\nexport const item = [project, access];\n",
        }),
      ).toEqual([]);
    });
  });

  describe('3. functions do not import shared/db', () => {
    it('reports a route importing the database layer, type-only or not', () => {
      expect(
        check({
          'functions/projects/costs.ts':
            "import { keys } from '#db/keys';\nimport type { config } from '../../shared/db/keys';\nexport const c = [keys, config];\n",
        }),
      ).toEqual([
        'functions/projects/costs.ts → shared/db/keys.ts: functions may not import shared/db (go through the domain)',
      ]);
    });

    it('allows the domain to use shared/db', () => {
      expect(
        check({
          'shared/domain/catalog/items.ts':
            "import { keys } from '#db/keys';\nimport { project } from '#domain/tenancy';\nexport const item = [keys, project];\n",
        }),
      ).toEqual([]);
    });
  });

  describe('4. the domain does not import shared/http', () => {
    it('reports domain code importing shared/http, type-only or not', () => {
      expect(
        check({
          'shared/domain/tenancy/access.ts':
            "import { notFound } from '#http/errors';\nexport const access = notFound;\n",
          'shared/domain/catalog/topology/links.ts':
            "import type { notFound } from '../../../http/errors';\nexport const link: typeof notFound = () => new Error();\n",
        }),
      ).toEqual([
        'shared/domain/catalog/topology/links.ts → shared/http/errors.ts: domain code may not import shared/http',
        'shared/domain/tenancy/access.ts → shared/http/errors.ts: domain code may not import shared/http',
      ]);
    });

    it('allows routes to use shared/http', () => {
      expect(
        check({
          'functions/projects/other.ts': "import { notFound } from '#http/errors';\nexport const o = notFound;\n",
        }),
      ).toEqual([]);
    });
  });

  describe('5. no import cycles', () => {
    it('reports a runtime cycle with its path', () => {
      expect(
        check({
          'shared/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
          'shared/b.ts': "import { c } from './c';\nexport const b = () => c;\n",
          'shared/c.ts': "import { a } from './a';\nexport const c = () => a;\n",
        }),
      ).toEqual(['import cycle: shared/a.ts → shared/b.ts → shared/c.ts → shared/a.ts']);
    });

    it('counts a cycle closed only by an import type, and says which hop is type-only', () => {
      expect(
        check({
          'shared/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
          'shared/b.ts': "import type { a } from './a';\nexport const b: typeof a | undefined = undefined;\n",
        }),
      ).toEqual(['import cycle: shared/a.ts → shared/b.ts → shared/a.ts (type-only: shared/b.ts → shared/a.ts)']);
      expect(
        check({
          'shared/a.ts': "import type { b } from './b';\nexport type a = b;\n",
          'shared/b.ts': "export type { a as b } from './a';\n",
        }),
      ).toEqual([
        'import cycle: shared/a.ts → shared/b.ts → shared/a.ts (type-only: shared/a.ts → shared/b.ts, shared/b.ts → shared/a.ts)',
      ]);
    });

    it('counts a dynamic import() as a runtime edge and says so', () => {
      expect(
        check({
          'shared/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
          'shared/b.ts': "export const b = () => import('./a');\n",
        }),
      ).toEqual([
        'import cycle: shared/a.ts → shared/b.ts → shared/a.ts (dynamic import(): shared/b.ts → shared/a.ts)',
      ]);
    });

    it('reports a file importing its own context index.ts (with the cycle that makes)', () => {
      expect(
        check({
          'shared/domain/catalog/topology/links.ts':
            "import { item } from '#domain/catalog';\nexport const link = item;\n",
        }),
      ).toEqual([
        "shared/domain/catalog/topology/links.ts → shared/domain/catalog/index.ts: a file inside catalog must import its siblings directly, not catalog's own index.ts",
        'import cycle: shared/domain/catalog/index.ts → shared/domain/catalog/topology/links.ts → shared/domain/catalog/index.ts',
        'entries of one folder in a loop: shared/domain/catalog/index.ts → shared/domain/catalog/topology/ → shared/domain/catalog/index.ts (shared/domain/catalog/index.ts → shared/domain/catalog/topology/links.ts; shared/domain/catalog/topology/links.ts → shared/domain/catalog/index.ts)',
      ]);
    });

    it('does not count an index re-exporting its own files as a cycle', () => {
      expect(
        check({
          'shared/domain/catalog/index.ts':
            "export * from './items';\nexport * from './topology/links';\nexport { item as default } from './items';\n",
        }),
      ).toEqual([]);
    });
  });
});

describe('6. shared code outside the domain imports no context', () => {
  it('reports shared/context.ts taking a type from a context, and shared/auth calling into one', () => {
    expect(
      check({
        'shared/context.ts':
          "import type { account } from '#domain/identity';\nexport const ctx: typeof account | undefined = undefined;\n",
        'shared/auth/authenticate.ts':
          "import { account } from '../domain/identity';\nexport const authenticate = () => account;\n",
      }),
    ).toEqual([
      'shared/auth/authenticate.ts → shared/domain/identity/index.ts: shared code outside shared/domain may not import a context (identity)',
      'shared/context.ts → shared/domain/identity/index.ts: shared code outside shared/domain may not import a context (identity)',
    ]);
  });

  it('lets shared code import shared code, and a context import shared code', () => {
    expect(
      check({
        'shared/actor.ts': 'export interface Actor { id: string }\n',
        'shared/context.ts':
          "import type { Actor } from './actor';\nexport const ctx: Actor | undefined = undefined;\n",
        'shared/domain/identity/accounts.ts':
          "import type { Actor } from '#shared/actor';\nimport { keys } from '#db/keys';\nexport const account: Actor | typeof keys = keys;\n",
      }),
    ).toEqual([]);
  });
});

describe('7. web/ and clients/ stay inside their own package', () => {
  const web = {
    'web/src/main.tsx':
      "import { h } from 'preact';\nimport { App } from './app';\nimport './styles.css';\nexport const main = () => h(App, {});\n",
    'web/src/app.tsx':
      "import type { paths } from '@infracat/client/schema';\nimport { createInfracatClient } from '@infracat/client/client';\nexport const App = (_: Partial<paths>) => createInfracatClient && null;\n",
    'web/src/styles.css': 'body { margin: 0; }\n',
    'clients/typescript/src/index.ts': "export * from './client';\nexport type { paths } from './schema.js';\n",
    'clients/typescript/src/client.ts':
      "import createClient from 'openapi-fetch';\nexport const client = createClient;\n",
    'clients/typescript/src/schema.d.ts': 'export interface paths { x: 1 }\n',
  };

  it('allows their own files (.tsx, assets, .js names of .d.ts files), npm packages and, in web, @infracat/client and its modules', () => {
    expect(check(web)).toEqual([]);
  });

  it('reports web importing shared/ or functions/, or a package of the repository other than the client', () => {
    expect(
      check({
        ...web,
        'web/src/app.tsx':
          "import type { Account } from '../../shared/context';\nimport { routes } from '../../functions/projects/routes';\nimport { nope } from '@infracat/web-kit';\nexport const App = [routes, nope] as unknown as Account;\n",
        'shared/context.ts': 'export type Account = { id: string };\n',
      }),
    ).toEqual([
      'web/src/app.tsx → functions/projects/routes.ts: web is a package of its own: it may import only its own files, npm packages and @infracat/client',
      'web/src/app.tsx → shared/context.ts: web is a package of its own: it may import only its own files, npm packages and @infracat/client',
      "web/src/app.tsx:3 → '@infracat/web-kit': web may not import @infracat/web-kit (only @infracat/client)",
    ]);
  });

  it('reports the service (shared/, functions/, infra/) importing anything of the client package, type-only included', () => {
    const rules = {
      ...web,
      'clients/typescript/src/plans.ts':
        'export const isFreePlan = (p: { price_cents: number }) => p.price_cents === 0;\n',
    };
    expect(
      check({
        ...rules,
        'shared/domain/billing/plan-changes.ts':
          "export { isFreePlan } from '../../../clients/typescript/src/plans';\n",
        'functions/billing/routes.ts':
          "import type { paths } from '../../clients/typescript/src/schema.js';\nexport type P = paths;\n",
        'infra/local/seed.ts':
          "import { client } from '../../clients/typescript/src/client';\nexport const c = client;\n",
      }),
    ).toEqual([
      'functions/billing/routes.ts → clients/typescript/src/schema.d.ts: the service may not import the client package: dependencies point from the client to the API, never back',
      'infra/local/seed.ts → clients/typescript/src/client.ts: the service may not import the client package: dependencies point from the client to the API, never back',
      'shared/domain/billing/plan-changes.ts → clients/typescript/src/plans.ts: the service may not import the client package: dependencies point from the client to the API, never back',
    ]);
  });

  it('reports the client importing infra/ or the dashboard', () => {
    expect(
      check({
        ...web,
        'infra/local/ports.ts': 'export const API_PORT = 3000;\n',
        'clients/typescript/src/client.ts':
          "import { API_PORT } from '../../../infra/local/ports';\nimport { App } from '../../../web/src/app';\nimport { web } from '@infracat/web';\nexport const client = [API_PORT, App, web];\n",
      }),
    ).toEqual([
      'clients/typescript/src/client.ts → infra/local/ports.ts: clients is a package of its own: it may import only its own files, npm packages',
      'clients/typescript/src/client.ts → web/src/app.tsx: clients is a package of its own: it may import only its own files, npm packages',
      "clients/typescript/src/client.ts:3 → '@infracat/web': clients may not import @infracat/web",
    ]);
  });
});

describe('rule 8: the deployed shape imports no code a function runs', () => {
  it('allows its own files and the shared emulator plumbing, and reports the domain, the functions or the stack', () => {
    expect(
      check({
        'shared/http/router.ts': 'export const createRouter = () => 0;\n',
        'infra/local/dynamo.ts': 'export const startDynamo = () => 0;\n',
        'infra/deployed/start.ts':
          "import { createRouter } from '#http/router';\nimport { startDynamo } from '../local/dynamo';\nimport { routes } from '../../functions/projects/routes';\nexport const s = [createRouter, startDynamo, routes];\n",
      }),
    ).toEqual([
      'infra/deployed/start.ts → functions/projects/routes.ts: infra/deployed serves the synthesized template alone: it may import only its own files and DEPLOYED_MAY_IMPORT',
    ]);
  });
});

describe('2. (tests) end-to-end tests, their helpers and the benches reach a context through its index', () => {
  it('reports an end-to-end test or a helper importing a file behind an index, and accepts a unit test of that file', () => {
    const root = writeTree({
      ...CLEAN,
      'test/e2e/projects.test.ts':
        "import { project } from '#domain/tenancy';\nimport { access } from '../../shared/domain/tenancy/access';\nexport const t = [project, access];\n",
      'test/helpers/catalog.ts':
        "import { link } from '../../shared/domain/catalog/topology/links';\nexport const h = link;\n",
      'test/unit/links.test.ts':
        "import { link } from '../../shared/domain/catalog/topology/links';\nexport const u = link;\n",
    });
    expect(deepImportsFromTests(root)).toEqual([
      'test/e2e/projects.test.ts:2 → shared/domain/tenancy/access.ts: deep import into tenancy: import its index.ts instead',
      'test/helpers/catalog.ts:1 → shared/domain/catalog/topology/links.ts: deep import into catalog: import its index.ts instead',
    ]);
  });
});

describe('9. no two folders import each other, nor loop through the entries beside them', () => {
  it('reports two folders that import each other, a type-only import included, with one import each way', () => {
    expect(
      check({
        'shared/auth/signing-key.ts': "export const signingKey = () => 'k';\n",
        'shared/auth/caller.ts': "import { keys } from '../db/keys';\nexport const caller = keys;\n",
        'shared/db/cursor.ts':
          "import type { signingKey } from '../auth/signing-key';\nexport const cursor: typeof signingKey | undefined = undefined;\n",
      }),
    ).toEqual([
      'entries of one folder in a loop: shared/auth/ → shared/db/ → shared/auth/ (shared/auth/caller.ts → shared/db/keys.ts; shared/db/cursor.ts → shared/auth/signing-key.ts (type-only))',
    ]);
  });

  it('reports a folder and a file beside it that import each other (the catalog and its topology/)', () => {
    expect(
      check({
        'shared/domain/catalog/listings.ts':
          "import { link } from './topology/links';\nexport const linkListing = link;\n",
        'shared/domain/catalog/topology/edges.ts':
          "import { linkListing } from '../listings';\nexport const edges = linkListing;\n",
      }),
    ).toEqual([
      'entries of one folder in a loop: shared/domain/catalog/listings.ts → shared/domain/catalog/topology/ → shared/domain/catalog/listings.ts (shared/domain/catalog/listings.ts → shared/domain/catalog/topology/links.ts; shared/domain/catalog/topology/edges.ts → shared/domain/catalog/listings.ts)',
    ]);
  });

  it('reports a loop through a file between two folders (services/ → items.ts → topology/ → services/)', () => {
    expect(
      check({
        'shared/domain/catalog/services/delete.ts': "import { item } from '../items';\nexport const del = item;\n",
        'shared/domain/catalog/items.ts':
          "import { project } from '#domain/tenancy';\nimport type { link } from './topology/links';\nexport const item: typeof link | typeof project = project;\n",
        'shared/domain/catalog/topology/links.ts':
          "import { forbidden } from '../services/refusals';\nexport const link = forbidden;\n",
        'shared/domain/catalog/services/refusals.ts': "export const forbidden = 'Insufficient permissions';\n",
      }),
    ).toEqual([
      'entries of one folder in a loop: shared/domain/catalog/items.ts → shared/domain/catalog/topology/ → shared/domain/catalog/services/ → shared/domain/catalog/items.ts (shared/domain/catalog/items.ts → shared/domain/catalog/topology/links.ts (type-only); shared/domain/catalog/topology/links.ts → shared/domain/catalog/services/refusals.ts; shared/domain/catalog/services/delete.ts → shared/domain/catalog/items.ts)',
    ]);
  });

  it("accepts folders that import one way (an index over its subfolder, a subfolder using its parent's files)", () => {
    expect(
      check({
        'shared/auth/caller.ts': "import { keys } from '../db/keys';\nexport const caller = keys;\n",
        'shared/domain/catalog/topology/edges.ts': "import { item } from '../items';\nexport const edges = item;\n",
      }),
    ).toEqual([]);
  });
});

describe('source rules: authorization stays in the domain; zod is imported as a namespace', () => {
  const routesCheck = (routes: string) => {
    const root = writeTree({ ...CLEAN, 'functions/projects/routes.ts': routes });
    return authorizationInRoutes(root, buildImportGraph(root).files);
  };

  it('reports a route that loads access or checks a permission itself', () => {
    const routes = [
      "import { loadAccess } from '#domain/tenancy';",
      'export const handler = async (id: string) => {',
      '  const access = await loadAccess(id, "u");',
      "  access.require('services.manage', 'Not authorized');",
      '};',
    ].join('\n');
    expect(routesCheck(routes)).toEqual([
      'functions/projects/routes.ts:3: loadAccess(…) in a route: authorization belongs to the domain',
      'functions/projects/routes.ts:4: .require(…) in a route: authorization belongs to the domain',
    ]);
  });

  it('reports a domain file that loads access and checks an item itself, and accepts the access modules', () => {
    const handCheck = [
      "import { loadAccess } from '#domain/tenancy';",
      'export async function getThing(id: string, projectId: string) {',
      '  const access = await loadAccess(projectId, "u", { extra: [{ PK: projectId, SK: id }] });',
      '  if (!access.extra.get(id)) throw new Error("Thing not found");',
      '}',
    ].join('\n');
    const access =
      'export async function loadAccess(projectId: string, userId: string) { return { projectId, userId }; }\nexport const accessToProject = (p: string, u: string) => loadAccess(p, u);\n';
    const root = writeTree({
      ...CLEAN,
      'shared/domain/catalog/things.ts': handCheck,
      'shared/domain/tenancy/access.ts': access,
    });
    expect(loadAccessOutsideAccessModules(root, buildImportGraph(root).files)).toEqual([
      'shared/domain/catalog/things.ts:3: loadAccess(…) outside the access modules: reach an item by id through accessToItem, a project through accessToProject',
    ]);
  });

  it('reports a named zod import (it bundles all of zod)', () => {
    const root = writeTree({
      ...CLEAN,
      'shared/schemas.ts': "import { z } from 'zod';\nexport const id = z.uuid();\n",
    });
    expect(zodNamedImports(root, ['shared/schemas.ts'])).toEqual([
      "shared/schemas.ts:1: import * as z from 'zod' instead (keeps bundles small)",
    ]);
  });

  it('refuses a relative import that does not name its file, outside the dashboard', () => {
    const root = writeTree({
      ...CLEAN,
      'shared/a.ts': "import { b } from './b';\nimport { c } from './c.ts';\nexport const a = () => import('../d');\n",
      'web/src/e.ts': "import { f } from './f';\n",
    });
    expect(relativeImportsWithoutFile(root, ['shared/a.ts', 'web/src/e.ts'])).toEqual([
      "shared/a.ts:1: import './b' by its file name (Node runs these sources without a bundler)",
      "shared/a.ts:3: import '../d' by its file name (Node runs these sources without a bundler)",
    ]);
  });

  it('accepts a route that hands the context and input to one domain function', () => {
    expect(
      routesCheck(
        "import { updateProject } from '#domain/tenancy';\nexport const handler = (ctx: object, input: object) => updateProject(ctx, input);\n",
      ),
    ).toEqual([]);
  });
});

describe('source rule: the live rule is written in shared/db alone', () => {
  const livenessCheck = (files: Files) => {
    const root = writeTree({ ...CLEAN, ...files });
    return livenessExpressionsOutsideDb(root, buildImportGraph(root).files);
  };

  it('reports a domain file that writes a liveness test on deleted_at or archived_at itself', () => {
    const members = [
      "import { keys } from '#db/keys';",
      "export const filter = { filter: 'chain_id = :chain AND deleted_at = :null', values: { ':null': null } };",
      "export const check = { ConditionExpression: 'attribute_not_exists(archived_at)', key: keys };",
      "export const guard = '(attribute_not_exists(deleted_at) OR deleted_at = :null)';",
    ].join('\n');
    expect(livenessCheck({ 'shared/domain/catalog/members.ts': members })).toEqual([
      'shared/domain/catalog/members.ts:2: deleted_at = :null: a liveness test belongs to shared/db/live.ts',
      'shared/domain/catalog/members.ts:3: attribute_not_exists(archived_at): a liveness test belongs to shared/db/live.ts',
      'shared/domain/catalog/members.ts:4: attribute_not_exists(deleted_at): a liveness test belongs to shared/db/live.ts',
      'shared/domain/catalog/members.ts:4: deleted_at = :null: a liveness test belongs to shared/db/live.ts',
    ]);
  });

  it('accepts the live rule in shared/db and a write that sets deleted_at', () => {
    expect(
      livenessCheck({
        'shared/db/live.ts': "export const LIVE = '(attribute_not_exists(deleted_at) OR deleted_at = :null)';\n",
        'shared/domain/catalog/chains.ts':
          "export const del = 'SET deleted_at = :now, updated_at = :now, archived_at = :null';\n",
      }),
    ).toEqual([]);
  });
});

describe('source rule: a stored item enters through its entity, never a cast', () => {
  const castsCheck = (files: Files) => {
    const root = writeTree({ ...CLEAN, ...files });
    return storedItemCasts(root, buildImportGraph(root).files);
  };

  it('reports a cast of a read item to a type or undefined, and a cast of a DynamoDB answer', () => {
    const reads = [
      "import { batchGet, keyId } from '#db/batch-get';",
      'export const project = (items: Map<string, object>, id: string) => items.get(keyId({ PK: id, SK: id })) as Project | undefined;',
      'export const env = (items: Map<string, object>) => items.get("e") as (Environment & { version?: number }) | undefined;',
      'export const get = <T>(items: Map<string, object>) => items.get("x") as T | undefined;',
      'export const rows = (out: { Items?: object[] }) => (out.Items ?? []) as Row[];',
    ].join('\n');
    expect(castsCheck({ 'shared/domain/tenancy/reads.ts': reads })).toEqual([
      "shared/domain/tenancy/reads.ts:2: as Project | undefined: a stored item enters through its entity's decode, not a cast",
      "shared/domain/tenancy/reads.ts:3: as (Environment & { version?: number }) | undefined: a stored item enters through its entity's decode, not a cast",
      "shared/domain/tenancy/reads.ts:4: as T | undefined: a stored item enters through its entity's decode, not a cast",
      "shared/domain/tenancy/reads.ts:5: .Items ?? []) as Row[]: a stored item enters through its entity's decode, not a cast",
    ]);
  });

  it('reports a cast through unknown of a read item: a DynamoDB answer, an item with its keys stripped', () => {
    const reads = [
      "import { stripKeys } from '#db/strip-keys';",
      'export const plans = (items: Record<string, unknown>[]) => items.map((i) => stripKeys(i) as unknown as Plan);',
      'export const one = (out: { Item?: object }) => out.Item as unknown as Plan;',
      'export const many = (out: { Items?: object[] }) => out.Items as unknown as Plan[];',
    ].join('\n');
    expect(castsCheck({ 'shared/domain/billing/plans.ts': reads })).toEqual([
      "shared/domain/billing/plans.ts:2: stripKeys(i) as unknown as Plan: a stored item enters through its entity's decode, not a cast",
      "shared/domain/billing/plans.ts:3: .Item as unknown as Plan: a stored item enters through its entity's decode, not a cast",
      "shared/domain/billing/plans.ts:4: .Items as unknown as Plan[]: a stored item enters through its entity's decode, not a cast",
    ]);
  });

  it("accepts a read through the entity's decode, and a transaction step's item", () => {
    expect(
      castsCheck({
        'shared/domain/tenancy/reads.ts': [
          "import { keyId } from '#db/batch-get';",
          "import { projectEntity } from './project-entity';",
          'export const project = (items: Map<string, object>, id: string) => projectEntity.decodeFound(items.get(keyId({ PK: id, SK: id })));',
          'export const put = (step: { Put?: { Item: object } }) => step.Put!.Item as Record<string, unknown>;',
        ].join('\n'),
      }),
    ).toEqual([]);
  });
});

describe('source rule: single-item writes are sent by shared/db alone', () => {
  const writesCheck = (files: Files) => {
    const root = writeTree({ ...CLEAN, ...files });
    return rawSingleWritesOutsideDb(root, buildImportGraph(root).files);
  };

  it('reports a domain file that sends a conditional PutItem, UpdateItem or DeleteItem itself', () => {
    const claims = [
      "import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';",
      "export const claim = (item: object) => new PutCommand({ TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(PK)' });",
      "export const use = () => new UpdateCommand({ TableName: 't', Key: {}, UpdateExpression: 'SET a = :a' });",
    ].join('\n');
    expect(writesCheck({ 'shared/domain/identity/claims.ts': claims })).toEqual([
      'shared/domain/identity/claims.ts:2: PutCommand outside shared/db: write through #db/items (conditionalPut, conditionalUpdate, conditionalDelete)',
      'shared/domain/identity/claims.ts:3: UpdateCommand outside shared/db: write through #db/items (conditionalPut, conditionalUpdate, conditionalDelete)',
    ]);
  });

  it('accepts the writes of shared/db and a domain file that calls them', () => {
    expect(
      writesCheck({
        'shared/db/items.ts':
          "import { DeleteCommand } from '@aws-sdk/lib-dynamodb';\nexport const del = () => new DeleteCommand({ TableName: 't', Key: {} });\n",
        'shared/domain/identity/claims.ts':
          "import { conditionalPut } from '#db/items';\nexport const claim = (item: object) => conditionalPut(item, { ConditionExpression: 'attribute_not_exists(PK)' });\n",
      }),
    ).toEqual([]);
  });
});

describe('source rule: write conditions and updates are written in shared/db alone', () => {
  const expressionsCheck = (files: Files) => {
    const root = writeTree({ ...CLEAN, ...files });
    return rawExpressionsOutsideDb(root, buildImportGraph(root).files);
  };

  it('reports a domain file that writes a condition or an update expression itself', () => {
    const runs = [
      "import { conditionalUpdate } from '#db/items';",
      'export const move = (key: object, c: { expression: string }) => conditionalUpdate(key, {',
      "  UpdateExpression: 'SET #st = :st, #seq = if_not_exists(#seq, :zero) + :one',",
      '  ConditionExpression: c.expression,',
      '});',
      "export const open = { ConditionExpression: 'attribute_not_exists(PK) OR window_ends_ms <= :now' };",
    ].join('\n');
    expect(
      expressionsCheck({
        'shared/domain/discovery/runs.ts': runs,
        'functions/jobs/handler.ts': 'export const step = { Update: { UpdateExpression: `ADD hits :one` } };\n',
      }),
    ).toEqual([
      'functions/jobs/handler.ts:1: UpdateExpression written outside shared/db: write it through a named helper of shared/db',
      'shared/domain/discovery/runs.ts:3: UpdateExpression written outside shared/db: write it through a named helper of shared/db',
      'shared/domain/discovery/runs.ts:4: ConditionExpression written outside shared/db: write it through a named helper of shared/db',
      'shared/domain/discovery/runs.ts:6: ConditionExpression written outside shared/db: write it through a named helper of shared/db',
    ]);
  });

  it("accepts the helpers of shared/db, a domain file that calls them, and a read of a step's expression", () => {
    expect(
      expressionsCheck({
        'shared/db/sequence.ts':
          "export const step = { UpdateExpression: 'SET #seq = if_not_exists(#seq, :zero) + :one', ConditionExpression: '#st IN (:queued, :running)' };\n",
        'shared/domain/impex/unit-writes.ts':
          "import { IF_ABSENT } from '#db/keys';\nexport const fresh = (s: { Put: { ConditionExpression?: string } }) => s.Put.ConditionExpression === IF_ABSENT.ConditionExpression;\n",
      }),
    ).toEqual([]);
  });
});

describe('source rule: retries are written in shared/db alone', () => {
  const loopsCheck = (files: Files) => {
    const root = writeTree({ ...CLEAN, ...files });
    return retryLoopsOutsideDb(root, buildImportGraph(root).files);
  };

  it('reports a loop that counts attempts and a loop that catches a lost race and goes round again', () => {
    const limits = [
      "import { conditionalUpdate } from '#db/items';",
      'export async function count(key: object) {',
      '  for (let attempt = 0; attempt < 5; attempt++) {',
      '    if ((await conditionalUpdate(key, {})).ok) return;',
      '  }',
      '}',
      'export async function claim(write: () => Promise<void>) {',
      '  while (true) {',
      '    try {',
      '      return await write();',
      '    } catch (err) {',
      "      if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;",
      '    }',
      '  }',
      '}',
    ].join('\n');
    expect(loopsCheck({ 'shared/domain/identity/limits.ts': limits })).toEqual([
      'shared/domain/identity/limits.ts:3: a hand-written retry loop outside shared/db: retry through #db/retry (retry, onContention, throughOutage)',
      'shared/domain/identity/limits.ts:8: a hand-written retry loop outside shared/db: retry through #db/retry (retry, onContention, throughOutage)',
    ]);
  });

  it('accepts the retry of shared/db, a call to it, and a loop that tries each item once', () => {
    expect(
      loopsCheck({
        'shared/db/retry.ts':
          'export async function retry(fn: () => Promise<void>) {\n  for (let attempt = 1; attempt < 3; attempt++) await fn();\n}\n',
        'shared/domain/lifecycle/batch.ts': [
          "import { onContention } from '#db/retry';",
          'export async function run(units: (() => Promise<void>)[], lost: (e: unknown) => boolean) {',
          '  for (const unit of units) {',
          '    try {',
          '      await onContention(unit, lost);',
          '    } catch (err) {',
          '      if (!(err instanceof Error)) throw err;',
          '    }',
          '  }',
          '}',
        ].join('\n'),
      }),
    ).toEqual([]);
  });
});

describe('the repository', () => {
  it('breaks no architecture rule', () => {
    expect(violations(buildImportGraph(repoRoot))).toEqual([]);
  });

  it('reaches every context through its index from the end-to-end tests, their helpers and the benches', () => {
    expect(deepImportsFromTests(repoRoot)).toEqual([]);
  });

  it('keeps every permission check out of the route files', () => {
    expect(authorizationInRoutes(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('checks items addressed by id only in the access modules (accessToItem)', () => {
    expect(loadAccessOutsideAccessModules(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('sends single-item writes only from shared/db', () => {
    expect(rawSingleWritesOutsideDb(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('reads stored items through their entities, never a cast', () => {
    expect(storedItemCasts(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('writes liveness tests only in shared/db', () => {
    expect(livenessExpressionsOutsideDb(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('writes condition and update expressions only in shared/db', () => {
    expect(rawExpressionsOutsideDb(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('writes retry loops only in shared/db', () => {
    expect(retryLoopsOutsideDb(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('imports zod as a namespace, so each function bundles only the zod it uses', () => {
    expect(zodNamedImports(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });

  it('names the file of every relative import Node runs itself (admin command, CLI)', () => {
    expect(relativeImportsWithoutFile(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });
});
