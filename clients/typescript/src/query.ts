import { createQuerySerializer } from 'openapi-fetch';

const standard = createQuerySerializer();

/**
 * openapi-fetch's query string, with an object-valued parameter sent as the document describes it
 * (`style: form`, `explode`): its property names are the parameters' names, an array value the
 * parameter repeated. The lists' custom field filters are such a family: `{ cf: { 'cf.tier': ['gold',
 * 'silver'] } }` is `cf.tier=gold&cf.tier=silver` (openapi-fetch would send an object as `cf[cf.tier]=…`).
 */
export function querySerializer(query: Record<string, unknown>): string {
  const flat: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(flat, value);
    else flat[name] = value;
  }
  return standard(flat);
}
