import type { z } from 'zod';
import { unprocessable, type ValidationIssue } from '#shared/errors';

type Part = 'path' | 'query' | 'body';

/** Maps zod issues onto the 422 item shape `{loc, msg, type}`; an absent required value is `missing`. */
function toIssues(part: Part, error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    // zod reports an absent enum or union as invalid_value/invalid_union; for the client it is simply missing.
    const missing = ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code) && (issue as { input?: unknown }).input === undefined;
    return {
      loc: [part, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: missing ? 'Field required' : issue.message,
      type: missing ? 'missing' : issue.code,
    };
  });
}

/** Validates every part of a request and reports all problems at once, before anything is looked up. */
export function validateParts(parts: { part: Part; schema?: z.ZodType; value: unknown }[]): unknown[] {
  const issues: ValidationIssue[] = [];
  const values = parts.map(({ part, schema, value }) => {
    if (!schema) return value;
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    issues.push(...toIssues(part, result.error));
    return undefined;
  });
  if (issues.length) throw unprocessable(issues);
  return values;
}

export const jsonDecodeError = () =>
  unprocessable([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
