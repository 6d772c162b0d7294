import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { uuid } from '#http/schemas';
import {
  cloudAccountView,
  cloudStatus,
  connectCloudAccount,
  createCloudAccount,
  deleteCloudAccount,
  discoveryProvider,
  discoveryRunView,
  getCloudAccount,
  getDiscoveryRun,
  listCloudAccounts,
  startDiscovery,
  discoveryProgressTicket,
} from '#domain/discovery';
import { lazySchema } from '#shared/lazy-schema';

const common = () => ({ project_id: uuid(), environment_id: uuid(), name: z.string().trim().min(1).max(100) });
const roleArn = lazySchema(() =>
  z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, 'Must be an IAM role ARN'),
);
const region = lazySchema(() => z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'Must be an AWS region name'));
const apiToken = lazySchema(() => z.string().min(1).max(512).regex(/^\S+$/, 'Must not contain spaces'));
const createBody = lazySchema(() =>
  z.discriminatedUnion('provider', [
    z.object({
      ...common(),
      provider: z.literal('aws'),
      role_arn: roleArn(),
      regions: z.array(region()).max(30).optional(),
    }),
    z.object({ ...common(), provider: z.enum(['hetzner', 'digitalocean']), api_token: apiToken() }),
  ]),
);
const policy = lazySchema(() =>
  z.object({ Version: z.string(), Statement: z.array(z.record(z.string(), z.unknown())) }),
);
const accountOut = () =>
  cloudAccountView.schema.extend({ trust_policy: policy().optional(), permissions_policy: policy().optional() });
const accountParams = lazySchema(() => z.object({ account_id: uuid() }));
const providerParams = lazySchema(() => z.object({ provider: discoveryProvider() }));
const started = lazySchema(() =>
  z.object({ status: z.enum(['queued', 'failed']), job_id: z.uuid(), run_id: z.uuid(), reused: z.boolean() }),
);
const statusOut = lazySchema(() =>
  z.array(
    z.object({
      account_id: z.uuid(),
      name: z.string(),
      environment_id: z.uuid(),
      provider: discoveryProvider(),
      status: z.enum(['pending', 'connected', 'failed']),
      connected: z.boolean(),
      last_error: z.string().nullable(),
      last_checked_at: z.string().nullable(),
      last_discovery_at: z.string().nullable(),
      last_run_id: z.uuid().nullable(),
      active_run_id: z.uuid().nullable(),
    }),
  ),
);

export const integrationsRoutes = [
  route({
    method: 'POST',
    path: '/integrations/cloud-accounts',
    auth: 'user',
    summary:
      'Connect a cloud account to an environment: AWS by IAM role (answers the trust policy with the generated external id), Hetzner Cloud or DigitalOcean by API token (stored encrypted, never answered)',
    body: createBody,
    responses: () => ({ 201: accountOut() }),
    refusals: [400, 403, 404],
    handler: async ({ body }, ctx) => created(await createCloudAccount(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/integrations/cloud-accounts',
    auth: 'user',
    summary: "A project's cloud accounts the caller may see",
    query: () => z.object({ project_id: uuid() }),
    responses: () => ({ 200: z.array(accountOut()) }),
    refusals: [404],
    handler: async ({ query }, ctx) => ok(await listCloudAccounts(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/integrations/cloud-accounts/{account_id}',
    auth: 'user',
    summary: 'One cloud account',
    params: accountParams,
    responses: () => ({ 200: accountOut() }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => ok(await getCloudAccount(ctx, params)),
  }),
  route({
    method: 'DELETE',
    path: '/integrations/cloud-accounts/{account_id}',
    auth: 'user',
    summary: 'Remove a cloud account (its token is dropped; the floors it found stay)',
    params: accountParams,
    responses: () => ({ 204: null }),
    refusals: [403, 404],
    handler: async ({ params }, ctx) => (await deleteCloudAccount(ctx, params), noContent()),
  }),
  route({
    method: 'POST',
    path: '/integrations/cloud/{provider}/connect',
    auth: 'user',
    summary:
      "Verify a cloud account's credentials (AWS: AssumeRole and GetCallerIdentity); records connected or failed",
    params: providerParams,
    body: () => z.object({ account_id: uuid() }),
    responses: () => ({ 200: accountOut() }),
    refusals: [403, 404],
    handler: async ({ params, body }, ctx) =>
      ok(await connectCloudAccount(ctx, { provider: params.provider, account_id: body.account_id })),
  }),
  route({
    method: 'GET',
    path: '/integrations/cloud/{provider}/status',
    auth: 'user',
    summary: "A project's accounts of one provider: connected or failed, the last error, the last discovery",
    params: providerParams,
    query: () => z.object({ project_id: uuid() }),
    responses: () => ({ 200: statusOut() }),
    refusals: [404],
    handler: async ({ params, query }, ctx) =>
      ok(await cloudStatus(ctx, { provider: params.provider, project_id: query.project_id })),
  }),
  route({
    method: 'POST',
    path: '/integrations/cloud-accounts/{account_id}/discover',
    auth: 'user',
    summary:
      "Discover the account's servers as service floors (asynchronous; a discover while one runs answers that run with 200)",
    params: accountParams,
    responses: () => ({ 202: started(), 200: started() }),
    refusals: [403, 404, 409],
    handler: async ({ params }, ctx) => {
      const out = await startDiscovery(ctx, params);
      return { status: out.reused ? 200 : 202, body: out };
    },
  }),
  route({
    method: 'GET',
    path: '/integrations/discovery-runs/{job_id}',
    auth: 'user',
    summary: "A discovery run's status, progress and counts",
    params: () => z.object({ job_id: uuid() }),
    responses: () => ({ 200: discoveryRunView.schema }),
    refusals: [404],
    handler: async ({ params }, ctx) => ok(await getDiscoveryRun(ctx, params)),
  }),
  route({
    method: 'POST',
    path: '/integrations/progress-ticket',
    auth: 'user',
    summary: "A single-use, one-minute ticket to follow a discovery run's progress over the WebSocket",
    body: () => z.object({ job_id: uuid() }),
    responses: () => ({ 200: z.object({ ticket: z.string(), url: z.string(), expires_in: z.int() }) }),
    refusals: [404],
    handler: async ({ body }, ctx) => ok(await discoveryProgressTicket(ctx, body)),
  }),
];
