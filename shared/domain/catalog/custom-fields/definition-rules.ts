import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import type { ValidationIssue } from '#shared/errors';
import {
  CUSTOM_FIELD_KEY,
  CUSTOM_FIELD_KINDS,
  CUSTOM_FIELD_TYPES,
  type CustomFieldDefinition,
} from './definition-entity.ts';
import { matchersOf, patternProblem } from './patterns.ts';
import { checkValue, TEXT_MAX } from './values.ts';

/** A definition's request bodies (the shapes, checked before any lookup) and the rules between its fields. */

export const MAX_CHOICES = 200;

const definitionFields = () => ({
  label: z.string().trim().min(1).max(100),
  type: z.enum(CUSTOM_FIELD_TYPES),
  applies_to: z
    .array(z.enum(CUSTOM_FIELD_KINDS))
    .min(1)
    .max(CUSTOM_FIELD_KINDS.length)
    .transform((kinds) => [...new Set(kinds)]),
  required: z.boolean(),
  /** A value of the field's type (checked against the definition), or null for none. */
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(MAX_CHOICES)]).nullable(),
  choices: z.array(z.string().trim().min(1).max(100)).min(1).max(MAX_CHOICES).nullable(),
  pattern: z.string().min(1).max(200).nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});

export const createCustomFieldBody = lazySchema(() => {
  const f = definitionFields();
  return z.object({
    key: z.string().regex(CUSTOM_FIELD_KEY, 'Must match ^[a-z][a-z0-9_]{0,39}$'),
    label: f.label,
    type: f.type,
    applies_to: f.applies_to,
    required: f.required.default(false),
    default: f.default.optional(),
    choices: f.choices.optional(),
    pattern: f.pattern.optional(),
    min: f.min.optional(),
    max: f.max.optional(),
  });
});
/** Every field but the key may change (null clears an optional one). */
export const updateCustomFieldBody = lazySchema(() => {
  const f = definitionFields();
  return z.object({
    label: f.label.optional(),
    type: f.type.optional(),
    applies_to: f.applies_to.optional(),
    required: f.required.optional(),
    default: f.default.optional(),
    choices: f.choices.optional(),
    pattern: f.pattern.optional(),
    min: f.min.optional(),
    max: f.max.optional(),
  });
});
export type CreateCustomFieldInput = z.output<ReturnType<typeof createCustomFieldBody>>;
export type UpdateCustomFieldInput = z.output<ReturnType<typeof updateCustomFieldBody>>;

type Shape = Pick<
  CustomFieldDefinition,
  'key' | 'type' | 'required' | 'default' | 'choices' | 'pattern' | 'min' | 'max'
>;

/**
 * The rules between a definition's fields, each a 422 naming its field: choices exactly for select
 * and multiselect (no repeats), a pattern only for text and one RE2 can run, min/max only for number
 * and text (text: lengths 0 to TEXT_MAX, whole numbers), min ≤ max, and a default that is a value of the field.
 */
export async function definitionIssues(d: Shape): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const add = (field: string, msg: string) => issues.push({ loc: ['body', field], msg, type: 'value_error' });
  const choosing = d.type === 'select' || d.type === 'multiselect';
  if (choosing && !d.choices?.length) add('choices', `Required for a ${d.type} field`);
  if (!choosing && d.choices) add('choices', 'Only a select or multiselect field has choices');
  if (d.choices && new Set(d.choices).size !== d.choices.length) add('choices', 'Choices must be distinct');
  if (d.pattern !== null) {
    if (d.type !== 'text') add('pattern', 'Only a text field has a pattern');
    else {
      const problem = await patternProblem(d.pattern);
      if (problem) add('pattern', problem);
    }
  }
  for (const bound of ['min', 'max'] as const) {
    const v = d[bound];
    if (v === null) continue;
    if (d.type !== 'number' && d.type !== 'text') add(bound, 'Only a number or text field has a min or max');
    else if (!Number.isFinite(v)) add(bound, 'Must be a finite number');
    else if (d.type === 'text' && (!Number.isInteger(v) || v < 0 || v > TEXT_MAX))
      add(bound, `A text length: a whole number from 0 to ${TEXT_MAX}`);
  }
  if (d.min !== null && d.max !== null && d.min > d.max) add('max', 'Must be at least min');
  if (d.default !== null && !issues.length) {
    const matchers = await matchersOf([d]);
    const out = checkValue({ ...d, applies_to: [], status: 'active' }, d.default, matchers);
    if ('problem' in out) add('default', out.problem);
  }
  return issues;
}
