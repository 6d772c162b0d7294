import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tokenize } from './import-graph.ts';

/**
 * Authorization lives only in the domain: a route file (`functions/<group>/*routes.ts`, and the
 * capabilities route) validates, calls one domain function with the request's context, and shapes
 * the reply. It never loads access or checks a permission itself. Each finding is one readable line.
 */
const AUTHORIZATION_IN_ROUTE =
  /\b(loadAccess|accessTo\w+|accessIn\w+|accessWith\w+)\s*\(|\.(require|requireOwnerRight)\s*\(/g;

export function authorizationInRoutes(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) =>
    /^functions\/[^/]+\/[^/]*routes\.ts$|^functions\/auth\/capabilities\.ts$/.test(f),
  )) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(AUTHORIZATION_IN_ROUTE))
          found.push(
            `${file}:${i + 1}: ${m[0].replace(/\s*\($/, '')}(…) in a route: authorization belongs to the domain`,
          );
      });
  }
  return found;
}

/**
 * One access check per item: an item addressed by id is reached through `accessToItem`
 * (shared/domain/tenancy/item-access.ts), which locates it, loads the caller's access with it and
 * answers the one 404; a request about a project as a whole through `accessToProject`. Only the
 * files below call `loadAccess` itself, each for a reason that is not "find an item, check it by hand".
 */
export const LOAD_ACCESS_ALLOWED: Record<string, string> = {
  'shared/domain/tenancy/access.ts': 'defines it',
  'shared/domain/tenancy/item-access.ts': 'the item access primitive',
  'shared/domain/tenancy/env-scope.ts': "an environment named in the request: 400, not an item's 404",
  'shared/domain/tenancy/custom-role-model.ts':
    "a role under its project's path (404 'Project not found', then the role's)",
  'shared/domain/tenancy/custom-role-assignments.ts': 'what an assignment reads',
  'shared/domain/tenancy/members.ts': "a member under its project's path, read with the account the audit entry names",
  'shared/domain/tenancy/cost-estimate.ts': "an optional environment, refused (400) only after the plan's feature",
  'shared/domain/tenancy/invitations.ts': 'the environment, group and subgroup a new invitation names (400s)',
};
const LOAD_ACCESS_CALL = /\bloadAccess\s*\(/g;

export function loadAccessOutsideAccessModules(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => !(f in LOAD_ACCESS_ALLOWED) && /\.tsx?$/.test(f))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (LOAD_ACCESS_CALL.test(line))
          found.push(
            `${file}:${i + 1}: loadAccess(…) outside the access modules: reach an item by id through accessToItem, a project through accessToProject`,
          );
        LOAD_ACCESS_CALL.lastIndex = 0;
      });
  }
  return found;
}

/**
 * zod is imported as a namespace (`import * as z from 'zod'`): esbuild then keeps only the parts a
 * function uses. The named `{ z }` export is a prebuilt namespace object that drags all of zod into
 * every bundle, its 260 KB of locales included.
 */
export function zodNamedImports(root: string, files: readonly string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        /^import (type )?\{[^}]*\bz\b[^}]*\} from 'zod'/.test(line)
          ? [`${file}:${i + 1}: import * as z from 'zod' instead (keeps bundles small)`]
          : [],
      ),
  );
}

/** Where Node runs the sources itself (`npm run admin`, the `infracat` shim): everything but the dashboard, which Vite bundles. */
const NODE_RUN_ROOTS = ['shared/', 'functions/', 'infra/', 'test/', 'clients/typescript/src/'];

/** A relative import names its file (`./keys.ts`, `./catalog/index.ts`): Node's own type stripping resolves no other. */
export function relativeImportsWithoutFile(root: string, files: readonly string[]): string[] {
  const relative = /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']*)'/g;
  return files
    .filter((file) => NODE_RUN_ROOTS.some((r) => file.startsWith(r)))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line.matchAll(relative)]
            .filter((m) => !/\.(ts|tsx|js|mjs|json)$/.test(m[1]))
            .map(
              (m) => `${file}:${i + 1}: import '${m[1]}' by its file name (Node runs these sources without a bundler)`,
            ),
        ),
    );
}

/**
 * A stored item enters the domain through its entity's `decode` (shared/db/entity.ts), which drops
 * key attributes and gives an older item the defaults of the fields it lacks; never through a cast,
 * which lets an item missing a field in unchecked. Refused: `as X | undefined` (a named or literal
 * type, an intersection of them), a cast of a DynamoDB answer's `Item`/`Items` (`as unknown as X`
 * included) and a cast through `unknown` of a read item with its keys stripped (`stripKeys(i) as
 * unknown as X`). The files below cast for a reason, each not a stored item of an entity's kind.
 */
export const STORED_ITEM_CAST_ALLOWED: Record<string, string> = {
  'shared/db/items.ts': "getItem<T>, the one typed single read: an entity's kind is read untyped and decoded",
  'shared/db/query.ts': "the typed queries: an entity's kind is read untyped and decoded",
  'shared/db/due.ts': 'the typed read of due items (scheduled work, no entity kind)',
  'shared/outage.ts': 'an error thrown by the SDK, not an item',
  'shared/clients/background-retries.ts': 'an error thrown by the SDK, not an item',
  'shared/auth/key-grant.ts': "a request's body, not an item",
  'shared/domain/impex/import/walk-context.ts': "an import plan's changes to an item, not a read one",
};
const TYPE = String.raw`(?:[A-Z][\w.]*(?:<[^>]*>)?|\{[^}]*\})`;
const STORED_ITEM_CAST = new RegExp(
  String.raw`\bas\s+\(?\s*${TYPE}(?:\s*&\s*${TYPE})*\s*\)?\s*\|\s*undefined\b|(?<!Put!?)\.Items?\b(?:\s*\?\?\s*\[\])?\s*\)?\s*as\s+(?:unknown\s+as\s+)?(?!const\b)[\w<>{}\[\]]+(?:\[\])?|\bstripKeys\([^)]*\)\s*as\s+unknown\s+as\s+[\w<>{}\[\]]+(?:\[\])?`,
  'g',
);

export function storedItemCasts(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !(f in STORED_ITEM_CAST_ALLOWED))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(STORED_ITEM_CAST))
          found.push(`${file}:${i + 1}: ${m[0].trim()}: a stored item enters through its entity's decode, not a cast`);
      });
  }
  return found;
}

/**
 * The live rule is written once, in shared/db/live.ts (`LIVE`, `NOT_DELETED`, `isLive`, the step
 * builders): code outside shared/db never writes a liveness test on `deleted_at`/`archived_at` into
 * an expression itself, where it could forget one of the two. Writes that set them (`SET deleted_at
 * = :now`) are not tests and are not reported.
 */
const LIVENESS_EXPRESSION =
  /attribute_(?:not_)?exists\((?:deleted_at|archived_at)\)|(?:['"`(]|\b(?:AND|OR|NOT)\s+)\s*(?:deleted_at|archived_at)\s*(?:=|<>)\s*:\w+/g;

export function livenessExpressionsOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/'))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(LIVENESS_EXPRESSION))
          found.push(
            `${file}:${i + 1}: ${m[0].replace(/^['"`(]|^(AND|OR|NOT)\s+/, '').trim()}: a liveness test belongs to shared/db/live.ts`,
          );
      });
  }
  return found;
}

/**
 * A single-item write is sent only by shared/db (items.ts): a conditional one there answers exactly
 * when the SDK retried it after an attempt that took effect, which a raw command would
 * read as a lost race. The files below send their own, each for a reason.
 */
export const RAW_SINGLE_WRITE_ALLOWED: Record<string, string> = {
  'shared/http/idempotency.ts': "the key's claim: its condition accepts its own owner, so a retried claim passes again",
};
const RAW_SINGLE_WRITE = /\bnew (PutCommand|UpdateCommand|DeleteCommand)\s*\(/g;

export function rawSingleWritesOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter(
    (f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/') && !(f in RAW_SINGLE_WRITE_ALLOWED),
  )) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(RAW_SINGLE_WRITE))
          found.push(
            `${file}:${i + 1}: ${m[1]} outside shared/db: write through #db/items (conditionalPut, conditionalUpdate, conditionalDelete)`,
          );
      });
  }
  return found;
}

/**
 * A code comment states the rule it enforces: an issue number or a pointer into the old decision log
 * means nothing to a reader of the repository (a decision whose reasoning is long is named by its file,
 * docs/decisions/NNNN-title.md). Comments only: strings and code are not read.
 */
export const COMMENT_RULE_ROOTS = ['shared/', 'functions/', 'web/src/', 'clients/typescript/src/', 'infra/', 'cli/'];
const ISSUE_REFERENCE = /\bissues?\s+#?\d+|\bdecisions\.md\b/gi;

export function issueReferencesInComments(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => COMMENT_RULE_ROOTS.some((r) => f.startsWith(r)) && /\.tsx?$/.test(f))) {
    tokenize(readFileSync(join(root, file), 'utf8'), (text, line) => {
      text.split('\n').forEach((l, k) => {
        for (const m of l.matchAll(ISSUE_REFERENCE))
          found.push(
            `${file}:${line + k}: "${m[0]}" in a comment: state the rule itself (or name its docs/decisions/NNNN-*.md)`,
          );
      });
    });
  }
  return found;
}

/**
 * A write's condition and update expressions are written in shared/db, each kind once by a named
 * helper (steps.ts, live.ts, sequence.ts, window-counter.ts, grants.ts, claims.ts, ...): code outside
 * never writes a `ConditionExpression` or `UpdateExpression` of its own (a raw string, or one it put
 * together), where a copy of a rule (a status guard, a counter's window, a single use) could drift
 * from the others. Reading a step's expression (`s.Put.ConditionExpression === ...`) is not writing one. The files below write their own.
 */
export const RAW_EXPRESSION_ALLOWED: Record<string, string> = {
  'shared/http/idempotency.ts': "the idempotency library's own claim and release, whose conditions are the library's",
};
const RAW_EXPRESSION = /(?<![.\w])(ConditionExpression|UpdateExpression)\s*:/g;

export function rawExpressionsOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter(
    (f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/') && !(f in RAW_EXPRESSION_ALLOWED),
  )) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(RAW_EXPRESSION))
          found.push(
            `${file}:${i + 1}: ${m[1]} written outside shared/db: write it through a named helper of shared/db`,
          );
      });
  }
  return found;
}

/**
 * Retries are written once, in shared/db/retry.ts (`retry`, `onContention`, `throughOutage`), with
 * its attempts and waits sized there; code outside shared/db never hand-writes a retry loop: a loop
 * that counts attempts (`for (let attempt = 0; ...)`, `while (tries < ...)`), or one that catches a
 * lost race (a failed condition, a cancelled or conflicting transaction, a 409) and goes round again.
 */
const LOOP_START = /\b(?:for|while)\s*\(|\bdo\s*\{/;
const ATTEMPT_COUNTING = /\b(?:for|while)\s*\([^)]*\b(?:attempts?|tries|retries|rounds?)\b/i;
const LOST_RACE =
  /ConditionalCheckFailed|TransactionCanceled|TransactionConflict|concurrentChange|CONCURRENT_CHANGE|CASCADE_STALE|'conflict'/;

/** The loop's lines from `start`: up to where the braces opened on or after its line close (its one line when it has none). */
function loopBody(lines: string[], start: number): string {
  let depth = 0;
  let opened = false;
  for (let i = start; i < lines.length; i++) {
    for (const ch of lines[i]) {
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') depth--;
    }
    if (!opened || depth <= 0) return lines.slice(start, i + 1).join('\n');
  }
  return lines.slice(start).join('\n');
}

export function retryLoopsOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/'))) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!LOOP_START.test(line)) return;
      const body = loopBody(lines, i);
      if (ATTEMPT_COUNTING.test(line) || (/\bcatch\b/.test(body) && LOST_RACE.test(body))) {
        found.push(
          `${file}:${i + 1}: a hand-written retry loop outside shared/db: retry through #db/retry (retry, onContention, throughOutage)`,
        );
      }
    });
  }
  return found;
}
