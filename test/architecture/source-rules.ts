import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Authorization lives only in the domain: a route file (`functions/<group>/*routes.ts`, and the
 * capabilities route) validates, calls one domain function with the request's context, and shapes
 * the reply. It never loads access or checks a permission itself. Each finding is one readable line.
 */
const AUTHORIZATION_IN_ROUTE = /\b(loadAccess|accessTo\w+|accessIn\w+|accessWith\w+)\s*\(|\.(require|requireOwner)\s*\(/g;

export function authorizationInRoutes(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^functions\/[^/]+\/[^/]*routes\.ts$|^functions\/auth\/capabilities\.ts$/.test(f))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(AUTHORIZATION_IN_ROUTE)) found.push(`${file}:${i + 1}: ${m[0].replace(/\s*\($/, '')}(…) in a route: authorization belongs to the domain`);
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
  'shared/domain/tenancy/custom-roles.ts': "a role under its project's path (404 'Project not found', then the role's), and what an assignment reads",
  'shared/domain/tenancy/members.ts': "a member under its project's path, read with the account the audit entry names",
  'shared/domain/tenancy/cost-estimate.ts': "an optional environment, refused (400) only after the plan's feature",
  'shared/domain/tenancy/invitations.ts': "the environment, group and subgroup a new invitation names (400s)",
};
const LOAD_ACCESS_CALL = /\bloadAccess\s*\(/g;

export function loadAccessOutsideAccessModules(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => !(f in LOAD_ACCESS_ALLOWED) && /\.tsx?$/.test(f))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (LOAD_ACCESS_CALL.test(line)) found.push(`${file}:${i + 1}: loadAccess(…) outside the access modules: reach an item by id through accessToItem, a project through accessToProject`);
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
      .flatMap((line, i) => (/^import (type )?\{[^}]*\bz\b[^}]*\} from 'zod'/.test(line) ? [`${file}:${i + 1}: import * as z from 'zod' instead (keeps bundles small)`] : [])),
  );
}

/**
 * A stored item enters the domain through its entity's `decode` (shared/db/entity.ts), which drops
 * key attributes and gives an older item the defaults of the fields it lacks; never through a cast,
 * which lets an item missing a field in unchecked. Refused: `as X | undefined` (a named or literal
 * type, an intersection of them) and a cast of a DynamoDB answer's `Item`/`Items`. The files below
 * cast for a reason, each not a stored item of an entity's kind.
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
  String.raw`\bas\s+\(?\s*${TYPE}(?:\s*&\s*${TYPE})*\s*\)?\s*\|\s*undefined\b|(?<!Put!?)\.Items?\b(?:\s*\?\?\s*\[\])?\s*\)?\s*as\s+(?!const\b)[\w<>{}\[\]]+(?:\[\])?`,
  'g',
);

export function storedItemCasts(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !(f in STORED_ITEM_CAST_ALLOWED))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(STORED_ITEM_CAST)) found.push(`${file}:${i + 1}: ${m[0].trim()}: a stored item enters through its entity's decode, not a cast`);
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
const LIVENESS_EXPRESSION = /attribute_(?:not_)?exists\((?:deleted_at|archived_at)\)|(?:['"`(]|\b(?:AND|OR|NOT)\s+)\s*(?:deleted_at|archived_at)\s*(?:=|<>)\s*:\w+/g;

export function livenessExpressionsOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/'))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(LIVENESS_EXPRESSION)) found.push(`${file}:${i + 1}: ${m[0].replace(/^['"`(]|^(AND|OR|NOT)\s+/, '').trim()}: a liveness test belongs to shared/db/live.ts`);
      });
  }
  return found;
}

/**
 * A single-item write is sent only by shared/db (items.ts): a conditional one there answers exactly
 * when the SDK retried it after an attempt that took effect (issue 35), which a raw command would
 * read as a lost race. The files below send their own, each for a reason.
 */
export const RAW_SINGLE_WRITE_ALLOWED: Record<string, string> = {
  'shared/http/idempotency.ts': "the key's claim: its condition accepts its own owner, so a retried claim passes again",
};
const RAW_SINGLE_WRITE = /\bnew (PutCommand|UpdateCommand|DeleteCommand)\s*\(/g;

export function rawSingleWritesOutsideDb(root: string, files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files.filter((f) => /^(shared|functions)\//.test(f) && !f.startsWith('shared/db/') && !(f in RAW_SINGLE_WRITE_ALLOWED))) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(RAW_SINGLE_WRITE)) found.push(`${file}:${i + 1}: ${m[1]} outside shared/db: write through #db/items (conditionalPut, conditionalUpdate, conditionalDelete)`);
      });
  }
  return found;
}
