import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../../functions/route-table';
import { buildOpenApi } from '#http/openapi';

describe('the committed openapi.json', () => {
  it('matches the document built from the route table', () => {
    const committed = JSON.parse(readFileSync(join(import.meta.dirname, '../../openapi.json'), 'utf8'));
    // Through JSON, as the file is written: compares what a client would be served.
    const built = JSON.parse(JSON.stringify(buildOpenApi(allRoutes())));
    expect(committed, 'openapi.json is stale: run `npm run openapi` and commit the result').toStrictEqual(built);
  });
});
