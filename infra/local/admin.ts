import { parseArgs } from 'node:util';
import * as z from 'zod';
import { config } from '#shared/config';
import { appContext } from '#shared/context';
import { DomainError } from '#shared/errors';
import { ensureStaff } from '#domain/identity';
import { startLocalStack } from './stack';

/**
 * `npm run admin -- create-staff --email <address> --password <password>`: what BOOTSTRAP_ADMIN_EMAIL /
 * BOOTSTRAP_ADMIN_PASSWORD do at start, on demand, against the table the configuration names:
 * - STAGE=cloud: the deployed table TABLE_NAME, with the usual AWS credentials;
 * - otherwise DYNAMODB_ENDPOINT + TABLE_NAME when set, else the local runtime's data under LOCAL_DATA_DIR
 *   (started for the command; while `npm start` runs, point DYNAMODB_ENDPOINT at its DynamoDB Local, port 8000).
 * Exit codes: 0 done (created, or already a staff account), 1 refused, 2 usage.
 */
const USAGE = 'usage: npm run admin -- create-staff --email <address> --password <password>';

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

const [command, ...rest] = process.argv.slice(2);
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
