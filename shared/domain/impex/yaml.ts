import type { Document, LineCounter } from 'yaml';
import type * as z from 'zod';
import { environmentDocument, IMPEX_API_VERSION, type EnvironmentDocument } from './document.ts';
import type { DocumentPart, DocumentSection } from './export.ts';
import { pointer, type ImportError } from './parse.ts';
import { comparePaths, documentProblems, type Path, type Problem } from './problems.ts';

/*
 * Everything that needs the YAML library, apart from the rest of the document code: the library
 * (about 110 KB, some 10 ms of CPU to evaluate) is loaded only where a document is read or written
 * as text (the jobs worker), and there at its first export or import, not at the worker's cold
 * start: it ships beside the bundle (infra/cdk/aliases.ts) and is imported on first use.
 */
const loadYaml = () => import('yaml');
/**
 * js-yaml builds the values as it reads, with no node tree: a 24 MB document (50,000 services)
 * parses in some 200 MB at its peak, where `yaml`'s Document with its ranges and its CST take over
 * 1 GB (js-yaml 5 keeps an array of every parser event: 650 MB, hence the 4.x line). It reads
 * valid documents; `yaml` (with lines) every other one. Shipped beside the bundle and loaded on
 * first use, as `yaml` is.
 */
const loadFastYaml = () => import('js-yaml');

/**
 * The line of the node at `path`: for a mapping key, the key's line; where the path leads nowhere
 * (a required field missing), the line of the deepest node that exists.
 */
function lineOf(
  { isMap, isScalar, isSeq }: Awaited<ReturnType<typeof loadYaml>>,
  doc: Document,
  lines: LineCounter,
  path: Path,
): number | null {
  let node: unknown = doc.contents;
  let offset: number | undefined = (node as { range?: [number] } | null)?.range?.[0];
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
      if (!pair) break;
      offset = (pair.key as { range?: [number] } | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
      node = node.items[segment];
      offset = (node as { range?: [number] }).range?.[0] ?? offset;
    } else break;
  }
  return offset === undefined ? null : lines.linePos(offset).line;
}

/** A zod issue as paths and messages; an unknown field is reported at the field itself. */
function issueProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((k) => ({ path: [...path, k], message: `Unknown field '${k}'` }));
  return [{ path, message: issue.message }];
}

/** A document with problems keeps its `spec` as read when it could be read (its plan still lists what the environment has beyond it). */
type Parsed = { document: EnvironmentDocument; errors: [] } | { document: null; errors: ImportError[]; spec?: unknown };

/**
 * Parses a YAML or JSON document (JSON is YAML) and validates all of it: syntax, then the
 * apiVersion (an unknown one is one clear error: nothing else is read under an unknown
 * version), then the schema and the rules across entities together, so every problem is reported
 * at once, each with its JSON pointer and line, in the order of the text.
 *
 * A valid document is read without a node tree (`parseValid`); lines are only needed for
 * problems, so any document that is not valid there is parsed again with its lines.
 */
export async function parseDocument(text: string): Promise<Parsed> {
  return (await parseValid(text)) ?? parseWithLines(text);
}

/**
 * The document when it is valid, read by js-yaml with YAML 1.2's core schema (as `yaml` reads it;
 * duplicate keys refused); null for anything else: a syntax error, an alias (`yaml` expands a
 * bounded number of them), a wrong apiVersion, a problem of the schema or of the rules. Where the
 * two libraries read a scalar differently (js-yaml also reads `0b101` and `+0x1F` as numbers),
 * a value `yaml` would have refused may be taken; one it takes is never refused (a problem here
 * means `yaml` reads the document again).
 */
async function parseValid(text: string): Promise<Parsed | null> {
  const jsYaml = await loadFastYaml();
  let raw: unknown;
  try {
    raw = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return null;
  }
  if ((raw as { apiVersion?: unknown } | null)?.apiVersion !== IMPEX_API_VERSION) return null;
  // Only an alias (`*name`) shares an object; without a '*' in the text there is none to look for.
  if (text.includes('*') && sharesObjects(raw)) return null;
  const parsed = environmentDocument.safeParse(raw);
  raw = undefined; // the rules read the validated copy: one copy of a big document held, not two
  return parsed.success && !documentProblems(parsed.data).length ? { document: parsed.data, errors: [] } : null;
}

/** Whether a mapping or sequence appears twice in the value: js-yaml resolves an alias to the same object (unbounded expansion for whoever walks it). */
function sharesObjects(value: unknown): boolean {
  const seen = new WeakSet<object>();
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (seen.has(v)) return true;
    seen.add(v);
    for (const x of Object.values(v)) stack.push(x);
  }
  return false;
}

/** The `yaml` library's Document with a LineCounter: every problem with its line. */
async function parseWithLines(text: string): Promise<Parsed> {
  const yaml = await loadYaml();
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  // One syntax error, the first: the parser's later ones (and any schema problem) follow from it, so they would only bury the line to fix.
  const [syntax] = doc.errors;
  if (syntax)
    return {
      document: null,
      errors: [
        { path: '', line: lines.linePos(syntax.pos[0]).line, message: `Not valid YAML or JSON: ${syntax.message}` },
      ],
    };
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return {
      document: null,
      errors: [{ path: '', line: null, message: `Not valid YAML or JSON: ${(err as Error).message}` }],
    };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      document: null,
      errors: [
        { path: '', line: 1, message: 'The document must be a mapping with apiVersion, kind, metadata and spec' },
      ],
    };
  }
  const apiVersion = (raw as { apiVersion?: unknown }).apiVersion;
  if (apiVersion !== IMPEX_API_VERSION) {
    const message =
      apiVersion === undefined
        ? `apiVersion is missing: this service reads documents of apiVersion '${IMPEX_API_VERSION}'`
        : `Unknown apiVersion '${String(apiVersion)}': this service reads documents of apiVersion '${IMPEX_API_VERSION}'`;
    return {
      document: null,
      errors: [{ path: '/apiVersion', line: lineOf(yaml, doc, lines, ['apiVersion']), message }],
    };
  }
  const parsed = environmentDocument.safeParse(raw);
  const problems = [...(parsed.success ? [] : parsed.error.issues.flatMap(issueProblems)), ...documentProblems(raw)];
  if (parsed.success && !problems.length) return { document: parsed.data, errors: [] };
  const located = problems.map((p) => ({ p, line: lineOf(yaml, doc, lines, p.path) }));
  located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || comparePaths(a.p.path, b.p.path));
  return {
    document: null,
    errors: located.map(({ p, line }) => ({ path: pointer(p.path), line, message: p.message })),
    spec: (raw as { spec?: unknown }).spec,
  };
}

/** Keys in the document's order, no line folding, no anchors (two exports of the same data are byte-identical). */
const RENDERING = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/** The document as YAML. */
export async function toYaml(doc: EnvironmentDocument): Promise<string> {
  return (await loadYaml()).stringify(doc, RENDERING);
}

/** `text` from its `n`th line on. */
function fromLine(text: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = text.indexOf('\n', at) + 1;
  return text.slice(at);
}

/**
 * The document as YAML text, a part at a time (an export is never held whole), byte for
 * byte what `toYaml` gives for the whole document. The library renders each part in the place it
 * has in the whole document, as `spec:` → `<section>:` → its items, so that every item comes out at
 * the indentation and in the style the whole rendering gives it; the lines of that place already
 * written (`spec:`, and the section's key after its first part) are left out.
 */
export function yamlText(parts: AsyncIterable<DocumentPart>): AsyncGenerator<string> {
  // The library loads from the call on, beside whatever comes before the first part is asked for.
  const loading = loadYaml();
  loading.catch(() => {});
  return rendered(parts, loading);
}

async function* rendered(
  parts: AsyncIterable<DocumentPart>,
  loading: ReturnType<typeof loadYaml>,
): AsyncGenerator<string> {
  const yaml = await loading;
  let section: DocumentSection | undefined;
  for await (const part of parts) {
    if ('head' in part) {
      yield yaml.stringify(part.head, RENDERING);
      continue;
    }
    const first = part.section !== section;
    if (!first && !part.items.length) continue;
    const text = yaml.stringify({ spec: { [part.section]: part.items } }, RENDERING);
    yield fromLine(text, section === undefined ? 0 : first ? 1 : 2);
    section = part.section;
  }
}
