import type { z } from 'zod';
import type { Key } from './batch-get';

/**
 * One definition per aggregate (an "entity"): the zod object schema of the stored item is the one
 * source of truth, and everything else is derived from it once, when the module loads:
 *
 * - the type: `z.output<typeof entity.schema>` (`EntityItem<typeof entity>`);
 * - `make(fields)`: a new item, `defaults` filled in under what the caller gives (undefined = default);
 * - `stored(key, item)`: the item as written (key, `type` discriminator, fields);
 * - `decode(raw)`: an item as read, as the domain sees it: only the schema's fields (key and
 *   bookkeeping attributes such as PK, SK, type, GSI keys are left out), defaults filled in for
 *   fields missing on items written before the field existed. CHEAP on purpose: no zod parse per
 *   item (list paths decode hundreds); the field list comes from the schema's shape once, and what
 *   is stored was validated on its way in;
 * - `out(item)` and `outSchema`: what a client sees (the `out` fields, in that order) and the
 *   route's response schema (a pick of the item schema, so the two cannot drift apart). An
 *   internal entity (no API resource) gives no `out`.
 */
export function defineEntity<S extends z.ZodRawShape, D extends Partial<z.output<z.ZodObject<S>>>, O extends keyof S & string = never>(def: {
  /** The `type` attribute of stored items. */
  type: string;
  schema: z.ZodObject<S>;
  defaults: D;
  out?: readonly O[];
}) {
  type Item = z.output<z.ZodObject<S>>;
  type Out = Pick<Item, O & keyof Item>;
  const fields = Object.keys(def.schema.shape);
  const defaults = def.defaults as Record<string, unknown>;
  const outFields: readonly string[] = def.out ?? [];

  return {
    type: def.type,
    schema: def.schema,
    defaults: def.defaults,

    make(given: Omit<Item, keyof D> & Partial<Item>): Item {
      const item: Record<string, unknown> = { ...defaults };
      for (const [field, value] of Object.entries(given)) if (value !== undefined) item[field] = value;
      return item as Item;
    },

    stored: (key: Key, item: Item): Record<string, unknown> => ({ ...key, type: def.type, ...item }),

    decode(raw: Record<string, unknown>): Item {
      const item: Record<string, unknown> = {};
      for (const field of fields) {
        const value = raw[field];
        if (value !== undefined) item[field] = value;
        else if (field in defaults) item[field] = defaults[field];
      }
      return item as Item;
    },

    out(item: Item): Out {
      const o: Record<string, unknown> = {};
      for (const field of outFields) o[field] = (item as Record<string, unknown>)[field];
      return o as Out;
    },

    outSchema: (def.schema as unknown as Pickable).pick(Object.fromEntries(outFields.map((f) => [f, true]))) as unknown as z.ZodObject<Pick<S, O>>,
  };
}

/** `pick` with a mask built at run time (zod types masks from literal keys). */
type Pickable = { pick(mask: Record<string, true>): z.ZodType };

/** The item type of an entity. */
export type EntityItem<E extends { schema: z.ZodType }> = z.output<E['schema']>;
