import * as z from 'zod';
import { defineEntity, defineView } from '#db/entity';

/** Custom field definitions (a project's catalogue of the attributes its items may carry) and the catalogue's state. */

/** What a key looks like. */
export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,39}$/;

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'url', 'select', 'multiselect'] as const;
/** The kinds of item a definition may apply to. */
export const CUSTOM_FIELD_KINDS = ['service', 'service_floor', 'network'] as const;
export type CustomFieldKind = (typeof CUSTOM_FIELD_KINDS)[number];

/** A value as stored: what each type holds (a multiselect a list of its choices). */
export type CustomValue = string | number | boolean | string[];
export type CustomValues = Record<string, CustomValue>;

export const customFieldEntity = defineEntity('custom_field', () =>
  z.object({
    key: z.string(),
    project_id: z.uuid(),
    label: z.string(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    applies_to: z.array(z.enum(CUSTOM_FIELD_KINDS)),
    required: z.boolean().default(false),
    default: z.unknown().nullable().default(null),
    choices: z.array(z.string()).nullable().default(null),
    pattern: z.string().nullable().default(null),
    min: z.number().nullable().default(null),
    max: z.number().nullable().default(null),
    /** `deleting`: its deletion job is removing its values; the key stays taken and no write may set it. */
    status: z.enum(['active', 'deleting']).default('active'),
    created_at: z.string(),
    updated_at: z.string(),
    /** The sort key of its latest audit entry (shared/audit.ts). */
    audit_head: z.string().nullable().default(null),
  }),
);
export type CustomFieldDefinition = z.infer<typeof customFieldEntity.schema>;

export const customFieldView = defineView(customFieldEntity, {
  key: true,
  project_id: true,
  label: true,
  type: true,
  applies_to: true,
  required: true,
  default: true,
  choices: true,
  pattern: true,
  min: true,
  max: true,
  status: true,
  created_at: true,
  updated_at: true,
});

/** The catalogue's state: how many definitions it holds (at most 50) and its version, moved by every change of a definition. */
export const customFieldMetaEntity = defineEntity('custom_field_meta', () =>
  z.object({ count: z.number().int().default(0), version: z.number().int().default(0) }),
);
export type CustomFieldMeta = z.infer<typeof customFieldMetaEntity.schema>;
