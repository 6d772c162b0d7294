/** What a catalog command's create or update sends: the route's JSON body, from `--set` and the named flags. */
import type { Command } from 'commander';
import type { paths } from '../schema.js';
import { defined, fieldsOf, many } from './common.js';

/** The JSON body of a route's POST or PATCH. */
export type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** `--set` plus the named flags (named flags win). */
export const fields = (o: Record<string, unknown>, named: Record<string, unknown>) => ({
  ...fieldsOf(o.set as string[] | undefined),
  ...defined(named),
});
export const setOption = (cmd: Command) =>
  cmd.option(
    '--set <key=value>',
    'any other field (repeatable; JSON values: --set replicas=3 --set \'links=["https://x"]\')',
    many,
  );
