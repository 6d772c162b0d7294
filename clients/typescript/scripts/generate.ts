import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The repository's one OpenAPI document (generated from the route table by `npm run openapi`). */
export const OPENAPI_PATH = fileURLToPath(new URL('../../../openapi.json', import.meta.url));
/** The committed types the client is written against. */
export const SCHEMA_PATH = fileURLToPath(new URL('../src/schema.d.ts', import.meta.url));

/** The TypeScript types of the document, as `npm run generate` writes them (openapi-typescript's defaults). */
export async function generateSchemaTypes(openapiPath = OPENAPI_PATH): Promise<string> {
  const document = JSON.parse(await readFile(openapiPath, 'utf8'));
  return COMMENT_HEADER + astToString(await openapiTS(document, { silent: true }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(SCHEMA_PATH, await generateSchemaTypes());
  console.log(`wrote ${SCHEMA_PATH}`);
}
