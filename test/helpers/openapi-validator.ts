import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

/**
 * An OpenAPI response validator for the e2e suite: every real answer the test client receives is held
 * against the committed openapi.json (docs/decisions/0073-openapi-document.md).
 *
 * - The operation is found by method and path template (query stripped; literal segments win over
 *   parameters, as the router does). Its status must be declared, a header the response declares
 *   required must be there, and a JSON body is validated with ajv against the schema declared for that
 *   status (compiled once per schema).
 * - A request that matches no operation is not a finding when the answer is 404 with the `{detail}`
 *   body: the pipeline's Not Found for unknown routes (tests send such garbage on purpose).
 * - Local-only routes absent from the document (`LOCAL_ONLY`) are skipped; nothing else is.
 */

/** Routes only the local server answers (never deployed, so not in the document). */
export const LOCAL_ONLY: readonly RegExp[] = [
  /^\/_local\/pay\//, // the local payment provider's checkout and portal pages (infra/local/payments.ts)
  /^\/ws\/progress$/, // the local stand-in for the WebSocket API (infra/local/websocket.ts)
  /^\/invitations\/accept$/, // the dashboard's screen invitation mails link to (web/, served by infra/local/web.ts)
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components?: Record<string, Record<string, Json>>;
}
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  responses: Record<string, Json>;
}

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  /** The answer's header by name (for the headers a response declares required, e.g. 429's Retry-After). */
  header?: (name: string) => string | null;
}

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** Inlines `#/components/...` references (the document's own; zod's `#/$defs/...` stay for ajv). */
function deref(doc: Doc, node: Json, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, seen));
  if (!node || typeof node !== 'object') return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/')) {
    if (seen.includes(ref)) throw new Error(`circular reference ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .reduce<Json>(
        (at, key) => (at as Record<string, Json>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc as unknown as Json,
      );
    if (target === undefined) throw new Error(`unresolved reference ${ref}`);
    return deref(doc, target, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(doc, v, seen)]));
}

function compileOperation(method: string, template: string, responses: Record<string, Json>): Operation {
  const segments = template.split('/').filter(Boolean);
  const params = segments.filter((s) => /^\{\w+\}$/.test(s)).length;
  const source = segments
    .map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\-]/g, '\\$&')))
    .join('/');
  return { method, template, pattern: new RegExp(`^/${source}/?$`), literals: segments.length - params, responses };
}

export function responseValidator(doc: Doc) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  const operations = Object.entries(doc.paths)
    .flatMap(([template, ops]) =>
      Object.entries(ops).map(([method, op]) => compileOperation(method.toUpperCase(), template, op.responses)),
    )
    .sort((a, b) => b.literals - a.literals);
  const errorSchema = deref(doc, { $ref: '#/components/schemas/Error' });
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: Json) => {
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = ajv.compile(deref(doc, schema) as object)));
    return fn;
  };

  /** Problems with one answer (empty when it conforms): the operation, its status, its JSON body. */
  function check(method: string, url: string, answer: Answer): string[] {
    const path = url.split('?')[0].split('#')[0];
    if (LOCAL_ONLY.some((re) => re.test(path))) return [];
    const op = operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(path));
    const isJson = /^application\/([\w.-]+\+)?json\b/i.test(answer.contentType ?? '');
    const body = (): { ok: true; value: unknown } | { ok: false } => {
      try {
        return { ok: true, value: JSON.parse(answer.text) };
      } catch {
        return { ok: false };
      }
    };
    const validate = (key: string, schema: Json): string[] => {
      if (!isJson)
        return [`body is not JSON (content-type ${answer.contentType ?? 'none'}) but a JSON schema is declared`];
      const parsed = body();
      if (!parsed.ok) return ['body is not valid JSON'];
      const fn = validatorFor(key, schema);
      return fn(parsed.value)
        ? []
        : [`body does not match the declared schema: ${ajv.errorsText(fn.errors, { separator: '; ' })}`];
    };
    if (!op) {
      if (answer.status === 404) return validate('unknown route 404', errorSchema as Json);
      // A path the document has, asked with a method it lacks: 405 with the methods it has.
      if (answer.status === 405) {
        const allowed = [...new Set(operations.filter((o) => o.pattern.test(path)).map((o) => o.method))]
          .sort()
          .join(', ');
        const allow = answer.header?.('allow')?.split(', ').sort().join(', ');
        if (!allowed || allow !== allowed)
          return [
            `405 for ${method} ${path} with Allow ${allow}, but the document has ${allowed || 'no operation there'}`,
          ];
        return validate('unknown method 405', errorSchema as Json);
      }
      return [`no operation in openapi.json for ${method} ${path}, and the answer is ${answer.status}, not 404 or 405`];
    }
    const declared = op.responses[String(answer.status)];
    if (declared === undefined) {
      return [
        `status ${answer.status} is not declared for ${op.method} ${op.template} (declared: ${Object.keys(op.responses).join(', ')})`,
      ];
    }
    const response = deref(doc, declared) as {
      headers?: Record<string, { required?: boolean }>;
      content?: Record<string, { schema?: Json }>;
    };
    const missingHeaders = Object.entries(response.headers ?? {})
      .filter(([name, h]) => h.required && answer.header && answer.header(name) === null)
      .map(([name]) => `required header ${name} is missing`);
    const schema = response.content?.['application/json']?.schema;
    if (schema === undefined) return missingHeaders;
    // A shared response (`#/components/responses/NotFound`) is compiled once for every operation using it.
    const ref = (declared as { $ref?: unknown }).$ref;
    return [
      ...missingHeaders,
      ...validate(typeof ref === 'string' ? ref : `${op.method} ${op.template} ${answer.status}`, schema),
    ];
  }

  return { check };
}

let shared: ReturnType<typeof responseValidator> | undefined;

/**
 * Checks one answer the e2e client received against openapi.json and throws on a finding, naming
 * method, path, status and the problems. With `OPENAPI_FINDINGS_FILE` set, findings are appended to that
 * file (one JSON line each) instead of thrown: a whole-suite sweep that does not stop at the first.
 */
export function assertDocumented(method: string, path: string, answer: Answer): void {
  shared ??= responseValidator(
    JSON.parse(readFileSync(join(import.meta.dirname, '../../openapi.json'), 'utf8')) as Doc,
  );
  const problems = shared.check(method, path, answer);
  if (!problems.length) return;
  const file = process.env.OPENAPI_FINDINGS_FILE;
  if (file) {
    appendFileSync(
      file,
      `${JSON.stringify({ method, path, status: answer.status, problems, body: answer.text.slice(0, 300), test: testName() })}\n`,
    );
    return;
  }
  throw new Error(
    `OpenAPI response validation: ${method} ${path} answered ${answer.status}: ${problems.join(' | ')}\nbody: ${answer.text.slice(0, 500)}`,
  );
}

function testName(): string | undefined {
  const state = expect.getState();
  return `${state.testPath?.split('/').pop()} > ${state.currentTestName}`;
}
