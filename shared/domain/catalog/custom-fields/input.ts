import * as z from 'zod';
import { MAX_CUSTOM_FIELDS } from './limits.ts';

/**
 * `custom_fields` in a create or update body: values by key (on update `null` removes one, keys not
 * given are kept). Only its shape is checked before any lookup; each value is checked against the
 * project's definitions by the write (catalogue.ts), a problem named `custom_fields.<key>`.
 */
export const customFieldsInput = () =>
  z
    .record(z.string().max(40), z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(200), z.null()]))
    .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, {
      message: `At most ${MAX_CUSTOM_FIELDS} custom fields`,
    })
    .nullish();
