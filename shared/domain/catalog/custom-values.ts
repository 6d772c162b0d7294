import * as z from 'zod';

/** An item's custom field values as stored and answered: by key, each a string, number, boolean or (multiselect) list of strings. */
export const customValues = () =>
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(200)]));
