import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * The project's import graph, read straight from the sources: every `.ts` / `.tsx` file under the given roots, the
 * module specifiers it imports, and the file each one resolves to. Relative specifiers resolve the way the bundler
 * does (`./x` → `x.ts`, `x.tsx`, `x/index.ts`; an asset such as `./styles.css` to itself); `#…` specifiers through
 * package.json `imports`, whatever aliases it declares. Bare package specifiers (`zod`, `node:fs`, `@infracat/client`)
 * are no edges: they are listed apart (`packages`). Imports in `.d.ts` files are type-only edges.
 *
 * This stands in for dependency-cruiser, which needs the TypeScript compiler's JavaScript API (TypeScript 7 has none).
 */

export type EdgeKind = 'static' | 'type' | 'dynamic';

export interface Edge {
  /** Importing file, relative to the root, `/`-separated. */
  from: string;
  /** Imported file, relative to the root, `/`-separated. */
  to: string;
  specifier: string;
  /** `import type …` / `export type … from`: erased at compile time, so no runtime dependency. */
  typeOnly: boolean;
  kind: EdgeKind;
  line: number;
}

export interface Unresolved {
  from: string;
  specifier: string;
  line: number;
}

export interface ImportGraph {
  root: string;
  /** Every scanned file, relative to the root, sorted. */
  files: string[];
  edges: Edge[];
  /** Relative or `#` specifiers that name no file: a broken import, or a form this reader does not understand. */
  unresolved: Unresolved[];
  /** Bare package specifiers (`preact`, `@infracat/client/schema`, `node:fs`), where each is imported. */
  packages: Unresolved[];
}

export interface RawImport {
  specifier: string;
  kind: EdgeKind;
  line: number;
}

/** The API's code, and the two packages beside it: the dashboard and the typed client with its command-line tool. */
export const DEFAULT_ROOTS = ['shared', 'functions', 'infra', 'web/src', 'clients/typescript/src'];

export function buildImportGraph(root: string, roots: readonly string[] = DEFAULT_ROOTS): ImportGraph {
  const resolver = createResolver(root);
  const files = roots.flatMap((dir) => listTsFiles(root, dir)).sort();
  const edges: Edge[] = [];
  const unresolved: Unresolved[] = [];
  const packages: Unresolved[] = [];
  for (const from of files) {
    const declarations = from.endsWith('.d.ts'); // never runs: all its imports are type-level
    for (const raw of extractImports(readFileSync(posix.join(root, from), 'utf8'))) {
      const { specifier, line } = raw;
      const kind = declarations ? 'type' : raw.kind;
      if (!isProjectSpecifier(specifier)) {
        packages.push({ from, specifier, line });
        continue;
      }
      const to = resolver(from, specifier);
      if (to === undefined) unresolved.push({ from, specifier, line });
      else edges.push({ from, to, specifier, typeOnly: kind === 'type', kind, line });
    }
  }
  return { root, files, edges, unresolved, packages };
}

function listTsFiles(root: string, dir: string): string[] {
  const abs = posix.join(root, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'cdk.out') continue;
    const rel = posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTsFiles(root, rel));
    else if (entry.isFile() && /\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

const isProjectSpecifier = (s: string) =>
  s.startsWith('./') || s.startsWith('../') || s === '.' || s === '..' || s.startsWith('#');

// ---------------------------------------------------------------------------------------------------------------
// Resolution

type Resolver = (from: string, specifier: string) => string | undefined;

export function createResolver(root: string): Resolver {
  const imports = readPackageImports(root);
  const isFile = (rel: string) => {
    try {
      return statSync(posix.join(root, rel)).isFile();
    } catch {
      return false;
    }
  };
  const toFile = (rel: string): string | undefined => {
    const p = posix.normalize(rel);
    if (p.startsWith('../')) return undefined; // outside the project
    const candidates = [`${p}.ts`, `${p}.tsx`, `${p}.d.ts`, `${p}/index.ts`, `${p}/index.tsx`];
    if (/\.[cm]?js$/.test(p))
      candidates.push(...['.$1ts', '.$1tsx', '.d.$1ts'].map((ext) => p.replace(/\.([cm]?)js$/, ext)));
    // A specifier that names a file with its extension: a module, or data (the generated openapi.json) or an asset
    // (a stylesheet) that imports nothing. A `.js` name stands for its `.ts` source or its `.d.ts` declarations.
    if (!/\.[cm]?js$/.test(p)) candidates.unshift(p);
    return candidates.find(isFile);
  };
  return (from, specifier) => {
    if (specifier.startsWith('#')) {
      const target = matchImportsField(imports, specifier);
      return target === undefined ? undefined : toFile(target);
    }
    return toFile(posix.join(posix.dirname(from), specifier));
  };
}

type ImportsField = Record<string, unknown>;

function readPackageImports(root: string): ImportsField {
  const file = posix.join(root, 'package.json');
  if (!existsSync(file)) return {};
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { imports?: ImportsField };
  return pkg.imports ?? {};
}

/**
 * Node's `imports` lookup (PACKAGE_IMPORTS_RESOLVE): an exact key wins; otherwise the `*` pattern with the longest
 * prefix (then the longest key) whose prefix and suffix fit, and every `*` in its target takes the matched part.
 */
export function matchImportsField(imports: ImportsField, specifier: string): string | undefined {
  if (Object.hasOwn(imports, specifier) && !specifier.includes('*')) return targetPath(imports[specifier], undefined);
  let best: { key: string; prefix: string; match: string } | undefined;
  for (const key of Object.keys(imports)) {
    const star = key.indexOf('*');
    if (star < 0 || key.indexOf('*', star + 1) >= 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (!specifier.startsWith(prefix) || specifier === prefix || !specifier.endsWith(suffix)) continue;
    if (specifier.length < key.length) continue;
    if (
      best &&
      (prefix.length < best.prefix.length || (prefix.length === best.prefix.length && key.length <= best.key.length))
    )
      continue;
    best = { key, prefix, match: specifier.slice(prefix.length, specifier.length - suffix.length) };
  }
  return best ? targetPath(imports[best.key], best.match) : undefined;
}

/** A target is a `./` path, or conditions (`{ types, import, default, … }`) or a fallback array around one. */
function targetPath(target: unknown, match: string | undefined): string | undefined {
  if (typeof target === 'string') {
    if (!target.startsWith('./')) return undefined; // a package, not a project file
    return match === undefined ? target : target.replaceAll('*', match);
  }
  if (Array.isArray(target)) {
    for (const t of target) {
      const p = targetPath(t, match);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    const conditions = target as Record<string, unknown>;
    for (const c of ['types', 'import', 'node', 'default']) {
      if (c in conditions) {
        const p = targetPath(conditions[c], match);
        if (p !== undefined) return p;
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Extraction

type Token = { t: 'id' | 'str' | 'punct' | 'other'; v: string; line: number };

const REGEX_AFTER_KEYWORD = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);

/**
 * Splits source into identifiers, string literals and punctuation, dropping comments, template literals and
 * regular-expression literals, so that an `import` mentioned in a comment or a string is not taken for one.
 * Strings and regexes cannot span lines, so a misread one costs at most the rest of its line.
 */
export function tokenize(src: string, onComment?: (text: string, line: number) => void): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  const n = src.length;
  const push = (t: Token['t'], v: string, at: number) => tokens.push({ t, v, line: at });
  const skipTemplate = () => {
    // i is just past an opening backtick; skip to the closing one, stepping over `${ … }` (which may nest templates).
    while (i < n) {
      const c = src[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return;
      } else if (c === '$' && src[i + 1] === '{') {
        i += 2;
        let depth = 1;
        while (i < n && depth > 0) {
          const d = src[i];
          if (d === '\n') line++;
          if (d === '{') depth++;
          else if (d === '}') depth--;
          else if (d === '`') {
            i++;
            skipTemplate();
            continue;
          } else if (d === "'" || d === '"') {
            i = endOfQuoted(src, i);
            continue;
          }
          i++;
        }
      } else {
        if (c === '\n') line++;
        i++;
      }
    }
  };
  while (i < n) {
    const c = src[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\ufeff') {
      i++;
    } else if (c === '/' && src[i + 1] === '/') {
      const start = i;
      while (i < n && src[i] !== '\n') i++;
      onComment?.(src.slice(start, i), line);
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      onComment?.(src.slice(i, stop), line);
      for (let k = i; k < stop; k++) if (src[k] === '\n') line++;
      i = stop;
    } else if (c === "'" || c === '"') {
      const end = endOfQuoted(src, i);
      push('str', unescapeString(src.slice(i + 1, src[end - 1] === c ? end - 1 : end)), line);
      i = end;
    } else if (c === '`') {
      const at = line;
      i++;
      skipTemplate();
      push('other', '`', at);
    } else if (/[A-Za-z_$\u00a0-\uffff]/.test(c)) {
      const m = /^[\w$\u00a0-\uffff]+/.exec(src.slice(i, i + 256));
      const word = m ? m[0] : c;
      push('id', word, line);
      i += word.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^[0-9a-zA-Z_.]+/.exec(src.slice(i, i + 64));
      push('other', m![0], line);
      i += m![0].length;
    } else if (c === '/' && regexAllowed(tokens.at(-1))) {
      const end = endOfRegex(src, i);
      if (end < 0) {
        push('punct', c, line);
        i++;
      } else {
        push('other', src.slice(i, end), line);
        i = end;
      }
    } else {
      push('punct', c, line);
      i++;
    }
  }
  return tokens;
}

function regexAllowed(prev: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.t === 'id') return REGEX_AFTER_KEYWORD.has(prev.v);
  if (prev.t === 'punct') return !(prev.v === ')' || prev.v === ']' || prev.v === '}');
  return false;
}

/** Index just past the closing quote, or the end of the line for an unterminated string. */
function endOfQuoted(src: string, start: number): number {
  const q = src[start];
  let i = start + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === q) return i + 1;
    else if (c === '\n') return i;
    else i++;
  }
  return src.length;
}

/** Index just past a regex literal's flags, or -1 when no closing slash is on the line (so it was a division). */
function endOfRegex(src: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') return -1;
    if (c === '\\') i += 2;
    else if (c === '[' || c === ']') {
      inClass = c === '[';
      i++;
    } else if (c === '/' && !inClass) {
      i++;
      while (i < src.length && /[a-z]/i.test(src[i])) i++;
      return i;
    } else i++;
  }
  return -1;
}

const unescapeString = (s: string) => s.replace(/\\(.)/g, '$1');

/**
 * The module specifiers a source file imports:
 * `import … from 's'`, `import type … from 's'`, `import 's'`, `import('s')`,
 * `export … from 's'`, `export type … from 's'`, `export * from 's'`, `export * as n from 's'`.
 * An import whose every name is marked `type` inline (`import { type A } from 's'`) is kept as a runtime import:
 * under `verbatimModuleSyntax` it still loads the module. A dynamic `import()` of a computed specifier is skipped.
 */
export function extractImports(src: string): RawImport[] {
  const tok = tokenize(src);
  const out: RawImport[] = [];
  const is = (k: number, v: string) => tok[k] !== undefined && tok[k].t !== 'str' && tok[k].v === v;
  const isStr = (k: number) => tok[k]?.t === 'str';
  /** From k, step over an import/export clause to `from 's'`; the index of the string, or -1. */
  const fromClause = (k: number): number => {
    let depth = 0;
    for (; k < tok.length; k++) {
      const t = tok[k];
      if (t.t === 'punct' && t.v === '{') depth++;
      else if (t.t === 'punct' && t.v === '}') depth--;
      else if (depth === 0 && t.t === 'id' && t.v === 'from' && isStr(k + 1)) return k + 1;
      else if (t.t === 'str' && depth > 0)
        continue; // `{ 'quoted name' as x }`
      else if (t.t === 'id' || (t.t === 'punct' && (t.v === ',' || t.v === '*'))) continue;
      else return -1;
      if (depth < 0) return -1;
    }
    return -1;
  };
  for (let k = 0; k < tok.length; k++) {
    const t = tok[k];
    if (t.t !== 'id' || (t.v !== 'import' && t.v !== 'export')) continue;
    if (is(k - 1, '.') || is(k + 1, '.') || is(k + 1, ':')) continue; // import.meta, obj.import, { import: … }
    if (t.v === 'import') {
      if (is(k + 1, '(') && isStr(k + 2) && (is(k + 3, ')') || is(k + 3, ','))) {
        out.push({ specifier: tok[k + 2].v, kind: 'dynamic', line: t.line });
      } else if (isStr(k + 1)) {
        out.push({ specifier: tok[k + 1].v, kind: 'static', line: t.line });
      } else {
        // `import type X from`, `import type { … } from`, `import type * as n from` — but `import type from 's'` and
        // `import type, { … } from 's'` import a default binding named `type`.
        const typeOnly =
          is(k + 1, 'type') &&
          (is(k + 2, '{') || is(k + 2, '*') || (tok[k + 2]?.t === 'id' && !(tok[k + 2].v === 'from' && isStr(k + 3))));
        const s = fromClause(k + 1);
        if (s >= 0) out.push({ specifier: tok[s].v, kind: typeOnly ? 'type' : 'static', line: t.line });
      }
    } else {
      const typeOnly = is(k + 1, 'type');
      const start = typeOnly ? k + 2 : k + 1;
      if (!is(start, '{') && !is(start, '*')) continue; // export const / function / default …
      const s = fromClause(start);
      if (s >= 0) out.push({ specifier: tok[s].v, kind: typeOnly ? 'type' : 'static', line: t.line });
    }
  }
  return out;
}
