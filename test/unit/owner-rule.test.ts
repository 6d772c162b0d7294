import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph } from '../architecture/import-graph.ts';
import { ownerTestsOutsideAccess } from '../architecture/owner-rule.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** The rule's findings in a tree of these files. */
function check(files: Record<string, string>): string[] {
  const root = mkdtempSync(join(tmpdir(), 'owner-rule-'));
  tempDirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return ownerTestsOutsideAccess(root, Object.keys(files));
}

const HINT =
  'an owner test by hand; use isOwnerMembership, access.requireOwnerRight(right) or access.can(right) (tenancy/access.ts)';

describe("source rule: the owner's actions are decided in tenancy/access.ts alone", () => {
  it('reports a role compared with owner, and a branch on isOwner, outside the access modules', () => {
    const jobs = [
      "export const mine = (m: { role: string }) => m.role === 'owner';",
      "export const theirs = (m?: { role: string }) => 'owner' !== m?.role;",
      'export function cancel(access: { isOwner: boolean }, started: boolean) {',
      "  if (!started && !access.isOwner) throw new Error('no');",
      '}',
    ].join('\n');
    expect(check({ 'shared/domain/impex/jobs.ts': jobs })).toEqual([
      `shared/domain/impex/jobs.ts:1: role === 'owner': ${HINT}`,
      `shared/domain/impex/jobs.ts:2: 'owner' !== m?.role: ${HINT}`,
      `shared/domain/impex/jobs.ts:4: !access.isOwner: ${HINT}`,
    ]);
  });

  it('accepts the access modules, a check that names the right, a membership written as an owner, and is_owner shown', () => {
    expect(
      check({
        'shared/domain/tenancy/access.ts':
          "export const isOwnerMembership = (m?: { role: string }) => m?.role === 'owner';\n",
        'shared/auth/permissions.ts': 'export const capabilities = (f: { isOwner: boolean }) => (f.isOwner ? 1 : 0);\n',
        'shared/domain/impex/jobs.ts':
          "export const cancel = (access: { can(r: string): boolean }) => access.can('jobs.cancel');\n",
        'shared/domain/tenancy/projects.ts':
          "export const steps = (id: string) => membershipSteps(id, 'owner');\nexport const out = (access: { isOwner: boolean }) => ({ is_owner: access.isOwner });\n",
      }),
    ).toEqual([]);
  });

  it('holds in the repository', () => {
    expect(ownerTestsOutsideAccess(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });
});
