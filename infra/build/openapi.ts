import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allRoutes } from '../../functions/route-table.ts';
import { buildOpenApi } from '#http/openapi';

/** `npm run openapi`: writes openapi.json (committed; the docs function serves it) from the route table. */
const file = join(import.meta.dirname, '../../openapi.json');
writeFileSync(file, `${JSON.stringify(buildOpenApi(allRoutes()), null, 2)}\n`);
console.log('wrote openapi.json');
