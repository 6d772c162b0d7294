import * as z from 'zod';
import { parameterFamily } from '#shared/parameter-family';
import { CUSTOM_FIELD_KEY as KEY } from './definition-entity.ts';

/**
 * `cf.<key>=<value>` list filters (GET /services, /service-floors, /networks): query parameters
 * named by the field's key, repeatable (any of the values; a multiselect passes when it holds any),
 * several keys all apply. They test the values the list's listing items hold (catalog/listing.ts),
 * in the same Query that reads the page: a filtered page reads what it passes over too, as the
 * tag filter does (docs/decisions/0967).
 */

const CF_PARAM = /^cf\.(.*)$/;

/** A list's query schema that also takes `cf.<key>` parameters (a malformed key is a 422 naming the parameter). */
export const withCustomFieldFilters = <S extends z.ZodRawShape>(shape: S) =>
  z
    .object(shape)
    .catchall(z.union([z.string(), z.array(z.string())]))
    .superRefine((q, ctx) => {
      for (const name of Object.keys(q)) {
        const m = CF_PARAM.exec(name);
        if (m && !KEY.test(m[1]))
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: 'Must be cf.<key>, the key as ^[a-z][a-z0-9_]{0,39}$',
          });
      }
    })
    .meta(
      parameterFamily({
        name: 'cf',
        pattern: `^cf\\.${KEY.source.slice(1)}`,
        description:
          "Custom field filters: a parameter `cf.<key>=<value>` per custom field (the object's property names are the parameters' names). Repeated (an array here), an item passes with any of the values; a multiselect passes when it holds any of them. Several keys: all apply.",
      }),
    );

/** The `cf.<key>` parameters of a parsed query as key → the values wanted (undefined: none). */
export function customFieldFilters(query: Record<string, unknown>): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    const m = CF_PARAM.exec(name);
    if (!m || value === undefined) continue;
    out[m[1]] = (Array.isArray(value) ? value : [value]).map(String);
  }
  return Object.keys(out).length ? out : undefined;
}
