import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  generatePlanRules,
  generateSchemaTypes,
  PLANS_PATH,
  SCHEMA_PATH,
} from '../../clients/typescript/scripts/generate.ts';

/** The typed client's types are generated from openapi.json; they may never drift apart. */
describe('the typed client (clients/typescript)', () => {
  it('has the types openapi-typescript makes of the committed openapi.json (run `npm run generate -w clients/typescript` after `npm run openapi`)', async () => {
    const fresh = await generateSchemaTypes();
    const committed = await readFile(SCHEMA_PATH, 'utf8');
    expect(fresh.length).toBeGreaterThan(10_000);
    expect(
      committed === fresh,
      'clients/typescript/src/schema.d.ts is stale: run `npm run generate -w clients/typescript`',
    ).toBe(true);
  });

  it("carries the service's plan rules (shared/domain/billing/plan-rules.ts) as the copy `npm run generate` makes", async () => {
    const fresh = await generatePlanRules();
    const committed = await readFile(PLANS_PATH, 'utf8');
    expect(fresh).toContain('export function isDowngrade(');
    expect(
      committed === fresh,
      'clients/typescript/src/plans.ts is stale: run `npm run generate -w clients/typescript`',
    ).toBe(true);
  });
});
