import module from 'node:module';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { config } from '#shared/config';
import { appContext } from '#shared/context';
import { DomainError } from '#shared/errors';
import type { RestoreProgress, RestoreReport } from '#domain/lifecycle';

// Node runs this file itself (it strips the types); its compile cache spares each later start compiling what it loads on demand.
module.enableCompileCache();

/**
 * `npm run admin -- create-staff --email <address> --password <password>`: what BOOTSTRAP_ADMIN_EMAIL /
 * BOOTSTRAP_ADMIN_PASSWORD do at start, on demand; `npm run admin -- backfill-listings`: the listing
 * items a table written before them lacks (docs/data-model.md, "Lists in name order"; the local
 * runtime does it at start, `cdk deploy` before the new code serves; by hand, e.g. to run it ahead of a deploy);
 * `npm run admin -- reindex-search`: the search index rebuilt from the services, floors and networks
 * themselves (entries missing written, stale ones removed; docs/decisions/0975), whatever was done before;
 * `npm run admin -- restore-project --from-table <restored> --project <id> [--restore-point <time>] [--apply]`: one
 * project's items copied back from a restored copy of the table (docs/restore.md); a dry run (nothing written) unless
 * `--apply`. All against the table the configuration names:
 * - STAGE=cloud: the deployed table TABLE_NAME, with the usual AWS credentials;
 * - otherwise DYNAMODB_ENDPOINT + TABLE_NAME when set, else the local runtime's data under LOCAL_DATA_DIR
 *   (started for the command; while `npm start` runs, point DYNAMODB_ENDPOINT at its DynamoDB Local, port 8000).
 * Exit codes: 0 done (created, or already a staff account), 1 refused, 2 usage.
 */
const USAGE = [
  'usage: npm run admin -- create-staff --email <address> --password <password>',
  '       npm run admin -- backfill-listings',
  '       npm run admin -- reindex-search',
  '       npm run admin -- restore-project --from-table <restored table> --project <project id> [--restore-point <ISO time>] [--dry-run | --apply]',
].join('\n');
/** How often a long restore prints its progress. */
const PROGRESS_EVERY_MS = 3_000;

/**
 * The table the configuration names, ready to use: the local runtime started for the command (without
 * HTTP or S3) unless STAGE=cloud. Loaded only once the arguments are good, so a usage error answers at once.
 */
async function openTable() {
  if (config().STAGE === 'cloud') return undefined;
  const { startLocalStack } = await import('./stack.ts');
  return startLocalStack({ withoutHttp: true, withoutS3: true, quickStart: true });
}

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'backfill-listings' || command === 'reindex-search') {
  if (rest.length) fail(USAGE, 2);
  const stack = await openTable();
  try {
    const { backfillListings, reindexSearch } = await import('#domain/catalog');
    const done = Object.entries(await (command === 'reindex-search' ? reindexSearch() : backfillListings()));
    for (const [family, { written, removed }] of done)
      console.log(`${family}: ${written} listing items written, ${removed} stale removed`);
    console.log(
      done.length
        ? `Backfilled table ${config().TABLE_NAME}`
        : `Table ${config().TABLE_NAME} is up to date; nothing to do`,
    );
  } finally {
    await stack?.stop();
  }
  process.exit(0);
}
if (command === 'restore-project') await restoreProjectCommand(rest);
if (command !== 'create-staff') fail(USAGE, 2);
let values: { email?: string; password?: string };
try {
  ({ values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
const { email, password } = values;
if (!email || !password) fail(USAGE, 2);
if (!z.email().safeParse(email).success) fail(`Not an e-mail address: ${email}`, 2);

const stack = await openTable();
let exitCode = 0;
try {
  const { ensureStaff } = await import('#domain/identity');
  const { account, created } = await ensureStaff(appContext(), { email, password });
  const where = `table ${config().TABLE_NAME}`;
  if (created) console.log(`Created staff account ${account.email} (${account.id}) in ${where}`);
  else if (account.is_staff || account.is_superuser)
    console.log(`Staff account ${account.email} (${account.id}) already exists in ${where}; left unchanged`);
  else {
    console.error(
      `An account ${account.email} (${account.id}) already exists in ${where} and is not staff; left unchanged (staff can promote it with PATCH /admin/users/${account.id})`,
    );
    exitCode = 1;
  }
} catch (err) {
  if (!(err instanceof DomainError)) throw err;
  console.error(String(err.detail));
  exitCode = 1;
} finally {
  await stack?.stop();
}
process.exit(exitCode);

async function restoreProjectCommand(args: string[]): Promise<never> {
  let values: {
    'from-table'?: string;
    project?: string;
    'restore-point'?: string;
    apply?: boolean;
    'dry-run'?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'from-table': { type: 'string' },
        project: { type: 'string' },
        'restore-point': { type: 'string' },
        apply: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  const { 'from-table': fromTable, project: projectId, 'restore-point': restorePoint, apply = false } = values;
  if (!fromTable || !projectId || (apply && values['dry-run'])) fail(USAGE, 2);
  if (fromTable === config().TABLE_NAME)
    fail(`--from-table names the live table ${fromTable}: give the restored copy`, 2);
  const stack = await openTable();
  const { restoreProject, PROJECT_RESTORE_ACTION } = await import('#domain/lifecycle');
  console.log(
    `${apply ? 'Restoring' : 'Dry run (nothing is written; --apply writes)'}: project ${projectId} from table ${fromTable} into ${config().TABLE_NAME}`,
  );
  const started = performance.now();
  let last: RestoreProgress | undefined;
  const ticker = setInterval(
    () => last && console.log(progressLine(last, performance.now() - started)),
    PROGRESS_EVERY_MS,
  );
  let exitCode = 0;
  try {
    const report = await restoreProject(appContext(), {
      projectId,
      fromTable,
      restorePoint,
      apply,
      onProgress: (p) => (last = p),
    });
    printReport(report, performance.now() - started, PROJECT_RESTORE_ACTION);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    console.error(String(err.detail));
    exitCode = 1;
  } finally {
    clearInterval(ticker);
    await stack?.stop();
  }
  process.exit(exitCode);
}

// Function declarations (hoisted): the command above runs before this point of the module is reached.
function seconds(ms: number) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function progressLine(p: RestoreProgress, ms: number) {
  return `[${seconds(ms)}] ${p.phase}: ${p.read.toLocaleString('en')} items read${p.toWrite ? `, ${p.written.toLocaleString('en')} of ${p.toWrite.toLocaleString('en')} written` : ''}`;
}

function printReport(r: RestoreReport, ms: number, action: string) {
  console.log('kind | put | deleted | unchanged');
  for (const [kind, c] of Object.entries(r.byKind).sort(([a], [b]) => a.localeCompare(b)))
    console.log(`${kind} | ${c.put} | ${c.deleted} | ${c.unchanged}`);
  const verb = r.applied ? 'written' : 'to write';
  console.log(`${r.put.toLocaleString('en')} items to put, ${r.deleted.toLocaleString('en')} to delete (${verb})`);
  if (r.listings) console.log(`listings rebuilt: ${r.listings.written} written, ${r.listings.removed} stale removed`);
  if (r.auditEntryId) console.log(`audit entry ${r.auditEntryId} (${action}) recorded on project ${r.projectId}`);
  console.log(
    `${r.applied ? 'Restored' : 'Dry run done'} in ${seconds(ms)}${r.applied ? '' : '; run again with --apply to write'}`,
  );
}
