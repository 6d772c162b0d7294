/** What a catalog command's create or update sends: the route's JSON body, from `--set` and the named flags. */
import type { Command } from 'commander';
import type { paths } from '../schema.d.ts';
import { defined, fieldsOf, many } from './common.ts';

/** The JSON body of a route's POST or PATCH. */
export type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** `--set` plus the named flags (named flags win), and `--field` as `custom_fields` (merged into the item's: null removes one). */
export const fields = (o: Record<string, unknown>, named: Record<string, unknown>) => ({
  ...fieldsOf(o.set as string[] | undefined),
  ...defined(named),
  ...(o.field ? { custom_fields: fieldsOf(o.field as string[]) } : {}),
});
export const setOption = (cmd: Command) =>
  cmd
    .option(
      '--set <key=value>',
      'any other field (repeatable; JSON values: --set replicas=3 --set \'links=["https://x"]\')',
      many,
    )
    .option('--field <key=value>', 'a custom field value (repeatable; JSON values; key=null removes it)', many);

/** A list command's `--cf key=value` option (services, floors, networks ls); its values go through `customFilters`. */
export const customFilterOption = (cmd: Command) =>
  cmd.option('--cf <key=value>', "custom field has this value (repeatable: any of a key's values)", many);

/** `--cf key=value` list filters as the API's `cf.<key>` parameters (repeatable: any of a key's values). */
export function customFilters(pairs: string[] = []): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) continue;
    const key = `cf.${pair.slice(0, at)}`;
    out[key] = [...(out[key] ?? []), pair.slice(at + 1)];
  }
  return out;
}
