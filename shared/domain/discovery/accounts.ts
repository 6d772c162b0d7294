import { randomBytes } from 'node:crypto';
import { keys } from '#db/keys';
import { lookupStep } from '#db/lookup';
import { queryPrefix } from '#db/query';
import { putNewStep } from '#db/steps';
import { setFieldsStep, isLive } from '#db/live';
import { transact, retryWhenStale } from '#db/transact';
import { notFound } from '#shared/errors';
import { config } from '#shared/config';
import { log } from '#shared/log';
import { open, seal } from '#auth/secret-box';
import { actorAccount, type AppContext } from '#shared/context';
import { changeAudit, creationAudit } from '#shared/audit';
import {
  accessInEnvironment,
  accessToItem,
  accessToProject,
  retentionOfProject,
  type ProjectAccess,
} from '#domain/tenancy';
import { MISSING_MANAGE, MISSING_VIEW } from '#domain/catalog';
import { cloudAccountEntity, cloudAccountView, type CloudAccount, type DiscoveryProvider } from './entities.ts';
import { adapterFor } from './providers/index.ts';
import { ProviderRefusal, type ProviderAccount } from './providers/types.ts';

/** Cloud accounts: connect (AWS role with a generated external id, or a sealed API token), verify, status, list, remove. */

export const CLOUD_ACCOUNT_NOT_FOUND = 'CloudAccount not found';
export const CLOUD_ACCOUNT_KIND = 'cloud_account';

export type CreateCloudAccountInput =
  | { project_id: string; environment_id: string; name: string; provider: 'aws'; role_arn: string; regions?: string[] }
  | {
      project_id: string;
      environment_id: string;
      name: string;
      provider: 'hetzner' | 'digitalocean';
      api_token: string;
    };

export const accountKey = (a: Pick<CloudAccount, 'project_id' | 'environment_id' | 'id'>) =>
  keys.cloudAccount(a.project_id, a.environment_id, a.id);
/** The secret box binds a token to its account and project: a sealed value copied elsewhere does not open. */
const sealContext = (a: Pick<CloudAccount, 'id' | 'project_id'>) => ({
  purpose: 'cloud-token',
  cloud_account_id: a.id,
  project_id: a.project_id,
});

/** The trust policy an AWS customer puts on the role: our principal may assume it only with this account's external id. */
export function trustPolicy(externalId: string) {
  const principal = config().DISCOVERY_AWS_PRINCIPAL_ACCOUNT ?? 'SERVICE_AWS_ACCOUNT_ID';
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${principal}:root` },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'sts:ExternalId': externalId } },
      },
    ],
  };
}
/** What the role needs to be allowed: reading instances, nothing else. */
export const PERMISSIONS_POLICY = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: ['ec2:DescribeInstances'], Resource: '*' }],
};

/**
 * What an audit entry of a cloud account shows: what its read shows, without the
 * credentials (the sealed token; the external id, which the deny-list drops too) nor the run
 * bookkeeping and timestamps that discovery runs move.
 */
export const auditedCloudAccount = ({
  token_sealed: _t,
  external_id: _x,
  audit_head: _h,
  active_run_id: _a,
  last_run_id: _r,
  last_discovery_at: _d,
  created_by: _c,
  created_at: _ca,
  updated_at: _u,
  deleted_at: _del,
  ...rest
}: CloudAccount) => rest;

function answer(account: CloudAccount) {
  const view = cloudAccountView.project(account);
  return account.provider === 'aws'
    ? { ...view, trust_policy: trustPolicy(account.external_id!), permissions_policy: PERMISSIONS_POLICY }
    : view;
}

/** POST /integrations/cloud-accounts: a new account in an environment (connections.manage there); verified later by connect. */
export async function createCloudAccount(ctx: AppContext, input: CreateCloudAccountInput) {
  const { access, env } = await accessInEnvironment(input.project_id, actorAccount(ctx).id, input.environment_id);
  access.require('connections.manage', MISSING_MANAGE, env.id);
  const now = ctx.clock.now().toISOString();
  const id = ctx.ids.newId();
  const base = {
    id,
    project_id: env.project_id,
    environment_id: env.id,
    provider: input.provider,
    name: input.name,
    created_by: access.userId,
    created_at: now,
    updated_at: now,
  };
  const account =
    input.provider === 'aws'
      ? cloudAccountEntity.create({
          ...base,
          role_arn: input.role_arn,
          regions: input.regions ?? [],
          external_id: `icat-${randomBytes(24).toString('base64url')}`,
        })
      : cloudAccountEntity.create({ ...base, token_sealed: await seal(input.api_token, sealContext(base)) });
  const key = accountKey(account);
  await transact([
    putNewStep(cloudAccountEntity.encode(key, account)),
    lookupStep(id, account.project_id, key, CLOUD_ACCOUNT_KIND),
    ...creationAudit(ctx, 'cloud_account', account, auditedCloudAccount(account)),
  ]);
  return answer(account);
}

/** A cloud account by id with the caller's access in its environment; missing, removed and foreign accounts (and those of deleted environments) are the same 404. */
export async function accessToCloudAccount(
  accountId: string,
  userId: string,
): Promise<{ access: ProjectAccess; account: CloudAccount }> {
  const { access, item } = await accessToItem<CloudAccount>({
    kind: CLOUD_ACCOUNT_KIND,
    id: accountId,
    userId,
    notFound: notFound(CLOUD_ACCOUNT_NOT_FOUND),
  });
  return { access, account: cloudAccountEntity.decode(item) };
}

/** The credentials an adapter uses (the token opened here, never logged nor answered). */
export async function providerAccount(account: CloudAccount): Promise<ProviderAccount> {
  const token = account.token_sealed ? await open(account.token_sealed, sealContext(account)) : null;
  return {
    id: account.id,
    role_arn: account.role_arn,
    external_id: account.external_id,
    regions: account.regions,
    token,
  };
}

/**
 * POST /integrations/cloud/{provider}/connect: verifies an account's credentials (AWS: AssumeRole
 * and GetCallerIdentity; token providers: one authenticated read) and records connected or failed
 * with the error. An account of another provider is the same 404.
 */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const connectCloudAccount = (...args: Parameters<typeof connectCloudAccountOnce>) =>
  retryWhenStale(() => connectCloudAccountOnce(...args));

async function connectCloudAccountOnce(ctx: AppContext, input: { provider: DiscoveryProvider; account_id: string }) {
  const { access, account } = await accessToCloudAccount(input.account_id, actorAccount(ctx).id);
  if (account.provider !== input.provider) throw notFound(CLOUD_ACCOUNT_NOT_FOUND);
  access.require('connections.manage', MISSING_MANAGE, account.environment_id);
  let error: string | null = null;
  try {
    await (await adapterFor(account.provider)).verify(await providerAccount(account));
  } catch (err) {
    error =
      err instanceof ProviderRefusal ? err.message : `The provider could not be checked (${(err as Error).message}).`;
  }
  log.info('cloud account checked', {
    cloud_account_id: account.id,
    provider: account.provider,
    connected: !error,
    error,
  });
  const now = ctx.clock.now().toISOString();
  const fields = {
    status: error ? ('failed' as const) : ('connected' as const),
    last_error: error,
    last_checked_at: now,
    updated_at: now,
  };
  // Every check is an entry (the account's latest), in the transaction that records its outcome.
  const audit = changeAudit(
    ctx,
    'cloud_account',
    'connect',
    account,
    { before: auditedCloudAccount(account), after: auditedCloudAccount({ ...account, ...fields }) },
    await retentionOfProject(access.project),
  );
  await transact([
    setFieldsStep(accountKey(account), { ...fields, audit_head: audit.head }, notFound(CLOUD_ACCOUNT_NOT_FOUND)),
    ...audit.steps,
  ]);
  return answer({ ...account, ...fields, audit_head: audit.head });
}

/** Accounts of a project the caller may see (connections.view in the account's environment). */
async function visibleAccounts(ctx: AppContext, projectId: string, provider?: DiscoveryProvider) {
  const access = await accessToProject(projectId, actorAccount(ctx).id);
  const all = (await queryPrefix(projectId, keys.cloudAccountPrefix)).map(cloudAccountEntity.decode);
  return all
    .filter(
      (a) => isLive(a) && (!provider || a.provider === provider) && access.can('connections.view', a.environment_id),
    )
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** GET /integrations/cloud-accounts?project_id=: the project's accounts (any provider). */
export async function listCloudAccounts(ctx: AppContext, input: { project_id: string }) {
  return (await visibleAccounts(ctx, input.project_id)).map(answer);
}

/** GET /integrations/cloud/{provider}/status?project_id=: each account of that provider, connected or failed, its last error and discovery. */
export async function cloudStatus(ctx: AppContext, input: { provider: DiscoveryProvider; project_id: string }) {
  return (await visibleAccounts(ctx, input.project_id, input.provider)).map((a) => ({
    account_id: a.id,
    name: a.name,
    environment_id: a.environment_id,
    provider: a.provider,
    status: a.status,
    connected: a.status === 'connected',
    last_error: a.last_error,
    last_checked_at: a.last_checked_at,
    last_discovery_at: a.last_discovery_at,
    last_run_id: a.last_run_id,
    active_run_id: a.active_run_id,
  }));
}

export async function getCloudAccount(ctx: AppContext, input: { account_id: string }) {
  const { access, account } = await accessToCloudAccount(input.account_id, actorAccount(ctx).id);
  access.require('connections.view', MISSING_VIEW, account.environment_id);
  return answer(account);
}

/** DELETE /integrations/cloud-accounts/{id}: removed (soft) and its token dropped; the floors it found stay, no longer updated. */
// Re-run from a new read when its write went stale (a concurrent change moved what it read, its audit head included: db/transact.ts).
export const deleteCloudAccount = (...args: Parameters<typeof deleteCloudAccountOnce>) =>
  retryWhenStale(() => deleteCloudAccountOnce(...args));

async function deleteCloudAccountOnce(ctx: AppContext, input: { account_id: string }) {
  const { access, account } = await accessToCloudAccount(input.account_id, actorAccount(ctx).id);
  access.require('connections.manage', MISSING_MANAGE, account.environment_id);
  const now = ctx.clock.now().toISOString();
  const audit = changeAudit(
    ctx,
    'cloud_account',
    'delete',
    account,
    { before: auditedCloudAccount(account), after: null },
    await retentionOfProject(access.project),
  );
  await transact([
    setFieldsStep(
      accountKey(account),
      { deleted_at: now, updated_at: now, token_sealed: null, audit_head: audit.head },
      notFound(CLOUD_ACCOUNT_NOT_FOUND),
    ),
    ...audit.steps,
  ]);
}
