import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The repository's one OpenAPI document (generated from the route table by `npm run openapi`). */
export const OPENAPI_PATH = fileURLToPath(new URL('../../../openapi.json', import.meta.url));
/** The committed types the client is written against. */
export const SCHEMA_PATH = fileURLToPath(new URL('../src/schema.d.ts', import.meta.url));
/** The service's rules on plan data (which change is a downgrade), the one place they are written. */
export const PLAN_RULES_SOURCE = fileURLToPath(
  new URL('../../../shared/domain/billing/plan-rules.ts', import.meta.url),
);
/** Their copy in the package, so the package imports nothing outside itself and the service nothing of the package. */
export const PLANS_PATH = fileURLToPath(new URL('../src/plans.ts', import.meta.url));

/** The TypeScript types of the document, as `npm run generate` writes them (openapi-typescript's defaults). */
export async function generateSchemaTypes(openapiPath = OPENAPI_PATH): Promise<string> {
  const document = JSON.parse(await readFile(openapiPath, 'utf8'));
  return COMMENT_HEADER + astToString(await openapiTS(document, { silent: true }));
}

/** The package's copy of the plan rules, as `npm run generate` writes it: the service's file under a line naming it. */
export async function generatePlanRules(source = PLAN_RULES_SOURCE): Promise<string> {
  return `// Copied from shared/domain/billing/plan-rules.ts by \`npm run generate -w clients/typescript\`: edit that file, not this one.\n${await readFile(source, 'utf8')}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(SCHEMA_PATH, await generateSchemaTypes());
  console.log(`wrote ${SCHEMA_PATH}`);
  await writeFile(PLANS_PATH, await generatePlanRules());
  console.log(`wrote ${PLANS_PATH}`);
}
