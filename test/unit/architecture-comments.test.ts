import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph } from '../architecture/import-graph.ts';
import { issueReferencesInComments } from '../architecture/source-rules.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'comment-rule-'));
  tempDirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const check = (files: Record<string, string>) => issueReferencesInComments(writeTree(files), Object.keys(files));

describe('source rule: a code comment states its rule, not an issue number or the old decision log', () => {
  it('reports an issue number or docs/decisions.md in a line comment, a block comment or JSDoc', () => {
    const listing = [
      '/**',
      ' * Listing items (issue 26): a live entity in name order.',
      ' * See docs/decisions.md "Lists in name order".',
      ' */',
      'export const page = 1; // Issue 26, beyond SPEC: one page',
      '/* written before issues 35 and 36 */ export const old = 2;',
    ].join('\n');
    expect(
      check({
        'shared/domain/catalog/listing.ts': listing,
        'web/src/links.tsx': '// the account (Issue #25)\nexport const a = 1;\n',
      }),
    ).toEqual([
      'shared/domain/catalog/listing.ts:2: "issue 26" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)',
      'shared/domain/catalog/listing.ts:3: "decisions.md" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)',
      'shared/domain/catalog/listing.ts:5: "Issue 26" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)',
      'shared/domain/catalog/listing.ts:6: "issues 35" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)',
      'web/src/links.tsx:1: "Issue #25" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)',
    ]);
  });

  it('accepts a decision file named by number, code that says issue, and files outside the checked folders', () => {
    expect(
      check({
        'shared/db/live.ts':
          // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal, for the comment scanner under test
          "/** The live rule (docs/decisions/0034-the-live-rule-decided-once.md). */\nexport const issues = (issue: { code: string }) => `issue ${issue.code}`;\nexport const s = 'see issue 26';\n",
        'test/e2e/listing.test.ts': '// issue 26: read in name order\nexport const t = 1;\n',
      }),
    ).toEqual([]);
  });
});

describe('the repository', () => {
  it('has no code comment pointing at an issue number or docs/decisions.md', () => {
    expect(issueReferencesInComments(repoRoot, buildImportGraph(repoRoot).files)).toEqual([]);
  });
});
