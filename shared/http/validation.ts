import type * as z from 'zod';
import { unprocessable, type ValidationIssue } from '#shared/errors';

type Part = 'path' | 'query' | 'body';

/** Maps zod issues onto the 422 item shape `{loc, msg, type}`; an absent required value is `missing`. */
function toIssues(part: Part, error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    // zod reports an absent enum or union as invalid_value/invalid_union; for the client it is simply missing.
    const missing =
      ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code) &&
      (issue as { input?: unknown }).input === undefined;
    return {
      loc: [part, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: missing ? 'Field required' : issue.message,
      type: missing ? 'missing' : issue.code,
    };
  });
}

/** A NUL character, or a UTF-16 surrogate not in a high-low pair (JSON's `"\ud800"`): text no client means to send. */
const NUL = /\0/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const NUL_CHARACTER = 'String must not contain NUL characters';
export const LONE_SURROGATE_MSG = 'String must not contain unpaired UTF-16 surrogates';

/** Every string in a request part (values and keys, nested to any depth) that is not valid text, by its location. */
function textIssues(loc: (string | number)[], value: unknown, out: ValidationIssue[]): void {
  if (typeof value === 'string') {
    if (NUL.test(value)) out.push({ loc, msg: NUL_CHARACTER, type: 'string_nul_character' });
    else if (LONE_SURROGATE.test(value)) out.push({ loc, msg: LONE_SURROGATE_MSG, type: 'string_unpaired_surrogate' });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      textIssues([...loc, i], v, out);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      textIssues([...loc, k], k, out);
      textIssues([...loc, k], v, out);
    }
  }
}

/**
 * Validates every part of a request and reports all problems at once, before anything is looked up.
 * Text comes first: a part holding a NUL or an unpaired surrogate anywhere is refused with those
 * fields named (its schema's issues are not reported on top of them).
 */
export function validateParts(parts: { part: Part; schema?: z.ZodType; value: unknown }[]): unknown[] {
  const issues: ValidationIssue[] = [];
  const values = parts.map(({ part, schema, value }) => {
    if (!schema) return value;
    const bad: ValidationIssue[] = [];
    textIssues([part], value, bad);
    if (bad.length) {
      issues.push(...bad);
      return undefined;
    }
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    issues.push(...toIssues(part, result.error));
    return undefined;
  });
  if (issues.length) throw unprocessable(issues);
  return values;
}

export const jsonDecodeError = () => unprocessable([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
