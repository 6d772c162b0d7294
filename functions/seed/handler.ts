import * as z from 'zod';
import { lazySchema } from '#shared/lazy-schema';
import { PLAN_CATALOGUE, seedPlans } from '#domain/billing';
import { backfillListings } from '#domain/catalog';
import { ensureStaff } from '#domain/identity';
import { readSecret } from '#shared/clients';
import { config } from '#shared/config';
import { appContext } from '#shared/context';
import { log } from '#shared/log';

const AdminSecret = lazySchema(() => z.object({ email: z.email(), password: z.string().min(1) }));

/** The admin secret's `{ email, password }`; errors name the secret, never echo its contents. */
async function readAdminSecret(arn: string): Promise<z.infer<ReturnType<typeof AdminSecret>>> {
  const secretString = await readSecret(arn);
  let json: unknown;
  try {
    json = JSON.parse(secretString ?? '');
  } catch {
    json = undefined; // JSON.parse's message quotes the text: the password must not reach the logs
  }
  const parsed = AdminSecret().safeParse(json);
  if (!parsed.success)
    throw new Error(`Secret ${arn} must be a JSON object { "email": "<address>", "password": "<password>" }`);
  return parsed.data;
}

/**
 * Run on deploy (a CDK Trigger, see infra/cdk/seeding.ts), before the new code serves: what the local
 * runtime does at start. Idempotent: plans have fixed keys and are overwritten; an existing staff
 * account is left as it is; the listing backfill does only the kinds whose layout changed since it
 * last ran (none, usually). Any failure throws, so the deployment fails (and rolls back) instead of
 * leaving an API without plans, or code reading listings the table does not have yet.
 */
export async function handler(): Promise<{
  plans: number;
  staff: 'created' | 'exists' | 'not configured';
  backfilled: Record<string, { written: number; removed: number }>;
}> {
  const ctx = appContext();
  await seedPlans(ctx);
  const backfilled = await backfillListings();
  const arn = config().BOOTSTRAP_ADMIN_SECRET_ARN;
  let staff: 'created' | 'exists' | 'not configured' = 'not configured';
  if (arn) {
    const { email, password } = await readAdminSecret(arn);
    const { account, created } = await ensureStaff(ctx, { email, password });
    staff = created ? 'created' : 'exists';
    // An existing customer with that address is not promoted behind anyone's back: staff can do it via the API.
    if (!created && !account.is_staff)
      log.warn('bootstrap admin address belongs to a non-staff account; left unchanged', { user_id: account.id });
  }
  const result = { plans: PLAN_CATALOGUE.length, staff, backfilled };
  log.info('seeded', result);
  return result;
}
