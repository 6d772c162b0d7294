import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Who is an owner, and what only an owner may do, is decided in one place: `isOwnerMembership` and
 * `ProjectAccess` (shared/domain/tenancy/access.ts) over `capabilities` and `OWNER_RIGHTS`
 * (shared/auth/permissions.ts). Elsewhere a check names the right (`access.requireOwnerRight(right)`,
 * `access.can(right)`); it never compares a membership's role with 'owner' or branches on `isOwner`
 * by hand, where it could disagree with what a custom role grants.
 */
const OWNER_RULE_FILES = new Set(['shared/domain/tenancy/access.ts', 'shared/auth/permissions.ts']);
const ROLE_COMPARED = /\brole\s*[!=]==?\s*'owner'|'owner'\s*[!=]==?\s*[\w.?]*\brole\b/g;
const BRANCH_ON_IS_OWNER = /(?:!|&&|\|\||\?\?|\bif\s*\()\s*[\w.?]*\bisOwner\b/g;

export function ownerTestsOutsideAccess(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !OWNER_RULE_FILES.has(f))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of [...line.matchAll(ROLE_COMPARED), ...line.matchAll(BRANCH_ON_IS_OWNER)]) {
          found.push(
            `${file}:${i + 1}: ${m[0].trim()}: an owner test by hand; use isOwnerMembership, access.requireOwnerRight(right) or access.can(right) (tenancy/access.ts)`,
          );
        }
      });
  }
  return found;
}
