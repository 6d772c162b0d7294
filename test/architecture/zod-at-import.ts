import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tokenize } from './import-graph.ts';

/** The folders whose modules every function bundles: a schema built at their import is paid by each cold start. */
const SCHEMA_AT_IMPORT_ROOTS = /^(shared|functions)\/.*\.ts$/;

type Token = ReturnType<typeof tokenize>[number];
type Frame = { close: string; fn: boolean; arrowBody: boolean };
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** What an object literal's `{` follows; any other `{` opens a body (a function's, a method's, a block's, a class's). */
const BEFORE_OBJECT_PUNCT = new Set(['(', ',', '=', ':', '[', '?', '|', '&', '!', '.', '+']);
const BEFORE_OBJECT_WORD = new Set(['return', 'default', 'yield', 'await', 'in', 'of', 'case', 'typeof']);
const objectLiteralAfter = (prev: Token | undefined) =>
  !prev ||
  (prev.t === 'punct' && BEFORE_OBJECT_PUNCT.has(prev.v)) ||
  (prev.t === 'id' && BEFORE_OBJECT_WORD.has(prev.v));

/**
 * Where a module calls zod while it is imported (docs/decisions/0956-no-zod-schema-built-at-import.md): a `z.…(`
 * call (`z.string()`, `z.object({…})`, `z.coerce.number()`) that no function body encloses: no `{…}` but an
 * object literal's, and no arrow's expression body (up to its `,` or `;` or the bracket around it). A block at
 * module level (`if (…) {`) counts as a body: the rule may miss a call there, never flag one in a function. Types (`z.infer<…>`, `z.ZodType`) are no calls and pass. Each
 * finding is `file:line`.
 */
export function zodCallsAtImport(src: string): number[] {
  const tokens = tokenize(src);
  const stack: Frame[] = [{ close: '', fn: false, arrowBody: false }];
  const found: number[] = [];
  const deferred = () => stack.some((f) => f.fn || f.arrowBody);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const top = stack[stack.length - 1];
    if (t.t === 'punct' && t.v in CLOSING) {
      stack.push({ close: CLOSING[t.v], fn: t.v === '{' && !objectLiteralAfter(tokens[i - 1]), arrowBody: false });
      continue;
    }
    if (t.t === 'punct' && t.v === top.close && stack.length > 1) {
      stack.pop();
      continue;
    }
    if (t.t === 'punct' && (t.v === ',' || t.v === ';')) top.arrowBody = false;
    if (t.t === 'punct' && t.v === '>' && tokens[i - 1]?.v === '=' && tokens[i + 1]?.v !== '{') top.arrowBody = true;
    if (t.t === 'id' && t.v === 'z' && tokens[i + 1]?.v === '.' && tokens[i - 1]?.v !== '.' && !deferred()) {
      let j = i + 1;
      while (tokens[j]?.v === '.' && tokens[j + 1]?.t === 'id') j += 2;
      if (tokens[j]?.v === '(' && !found.includes(t.line)) found.push(t.line);
    }
  }
  return found;
}

/** Every zod call made at import in `files` under shared/ and functions/, one readable line each. */
export function zodSchemasAtImport(root: string, files: readonly string[]): string[] {
  return files
    .filter((f) => SCHEMA_AT_IMPORT_ROOTS.test(f))
    .flatMap((file) =>
      zodCallsAtImport(readFileSync(join(root, file), 'utf8')).map(
        (line) =>
          `${file}:${line}: a zod schema built at import: build it at first use (lazySchema, lazyShape, a function)`,
      ),
    );
}
