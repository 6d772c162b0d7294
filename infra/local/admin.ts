import { parseArgs } from 'node:util';
import * as z from 'zod';
import { config } from '#shared/config';
import { appContext } from '#shared/context';
import { DomainError } from '#shared/errors';
import { ensureStaff } from '#domain/identity';
import { backfillListings } from '#domain/catalog';
import { startLocalStack } from './stack';

/**
 * `npm run admin -- create-staff --email <address> --password <password>`: what BOOTSTRAP_ADMIN_EMAIL /
 * BOOTSTRAP_ADMIN_PASSWORD do at start, on demand; `npm run admin -- backfill-listings`: the listing
 * items a table written before them lacks (docs/data-model.md, "Lists in name order"; the local
 * runtime does it at start, `cdk deploy` before the new code serves; by hand, e.g. to run it ahead of a deploy). Both against the table the configuration names:
 * - STAGE=cloud: the deployed table TABLE_NAME, with the usual AWS credentials;
 * - otherwise DYNAMODB_ENDPOINT + TABLE_NAME when set, else the local runtime's data under LOCAL_DATA_DIR
 *   (started for the command; while `npm start` runs, point DYNAMODB_ENDPOINT at its DynamoDB Local, port 8000).
 * Exit codes: 0 done (created, or already a staff account), 1 refused, 2 usage.
 */
const USAGE = 'usage: npm run admin -- create-staff --email <address> --password <password>\n       npm run admin -- backfill-listings';

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'backfill-listings') {
  if (rest.length) fail(USAGE, 2);
  const stack = config().STAGE === 'cloud' ? undefined : await startLocalStack({ withoutHttp: true, withoutS3: true });
  try {
    const done = Object.entries(await backfillListings());
    for (const [family, { written, removed }] of done) console.log(`${family}: ${written} listing items written, ${removed} stale removed`);
    console.log(done.length ? `Backfilled table ${config().TABLE_NAME}` : `Table ${config().TABLE_NAME} is up to date; nothing to do`);
  } finally {
    await stack?.stop();
  }
  process.exit(0);
}
if (command !== 'create-staff') fail(USAGE, 2);
let values: { email?: string; password?: string };
try {
  ({ values } = parseArgs({ args: rest, options: { email: { type: 'string' }, password: { type: 'string' } }, strict: true }));
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
const { email, password } = values;
if (!email || !password) fail(USAGE, 2);
if (!z.email().safeParse(email).success) fail(`Not an e-mail address: ${email}`, 2);

const stack = config().STAGE === 'cloud' ? undefined : await startLocalStack({ withoutHttp: true, withoutS3: true });
let exitCode = 0;
try {
  const { account, created } = await ensureStaff(appContext(), { email, password });
  const where = `table ${config().TABLE_NAME}`;
  if (created) console.log(`Created staff account ${account.email} (${account.id}) in ${where}`);
  else if (account.is_staff || account.is_superuser) console.log(`Staff account ${account.email} (${account.id}) already exists in ${where}; left unchanged`);
  else {
    console.error(`An account ${account.email} (${account.id}) already exists in ${where} and is not staff; left unchanged (staff can promote it with PATCH /admin/users/${account.id})`);
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
