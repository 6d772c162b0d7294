import { createHash } from 'node:crypto';
import type { EnvironmentContents } from '../read.ts';
import { canonical } from './compare.ts';

/**
 * What a saved plan was made against: a hash of every live item of the environment as
 * the plan read it (each write moves an item's `updated_at` or removes it from the live lists), so
 * applying the plan can tell, exactly, whether anything changed since; and the version of the
 * project's custom field definitions its values were checked against. The project (whose counters
 * other environments move) is left out.
 */
export function environmentFingerprint(env: EnvironmentContents): string {
  const hash = createHash('sha256');
  for (const kind of [
    'groups',
    'subgroups',
    'floors',
    'networks',
    'services',
    'links',
    'connections',
    'chains',
  ] as const) {
    hash.update(kind);
    for (const item of env[kind]) hash.update(JSON.stringify(canonical(item)));
  }
  // The custom field definitions the document's values were checked against.
  hash.update(`custom_fields:${env.valueRules.catalogue.meta?.version ?? 0}`);
  return `sha256:${hash.digest('hex')}`;
}
