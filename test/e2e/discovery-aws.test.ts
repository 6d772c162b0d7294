import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { DescribeInstancesCommand, EC2Client, type Instance } from '@aws-sdk/client-ec2';
import { useTestStack } from '../helpers/stack.ts';
import { client } from '../helpers/http.ts';
import { createFloor, ownerWithEnv } from '../helpers/catalog.ts';

// AWS has no local stand-in for STS and EC2: the SDK clients are mocked (aws-sdk-client-mock).
const ref = useTestStack({ DISCOVERY_AWS_PRINCIPAL_ACCOUNT: '111122223333' });
const api = client(() => ref.stack.url);
const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const ROLE = 'arn:aws:iam::123456789012:role/InfraCatalogDiscovery';

const instance = (id: string, state: string, over: Partial<Instance> = {}): Instance => ({
  InstanceId: id,
  State: { Name: state as never, Code: 16 },
  InstanceType: 't3.medium',
  Placement: { AvailabilityZone: 'us-east-1a' },
  PrivateIpAddress: `10.0.1.${id.length}`,
  CpuOptions: { CoreCount: 1, ThreadsPerCore: 2 },
  ...over,
});

/** What each region lists, as pages (a region mapped to an Error fails). */
let regions: Record<string, Instance[][] | Error> = {};
const seenCredentials = new Set<string>();
/** The NextToken of each DescribeInstances call as sent (the paginator reuses its input object). */
const sentTokens: (string | undefined)[] = [];

beforeEach(() => {
  sts.reset();
  ec2.reset();
  seenCredentials.clear();
  sentTokens.length = 0;
  sts.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: 'ASIAASSUMED',
      SecretAccessKey: 'assumed-secret',
      SessionToken: 'assumed-session',
      Expiration: new Date(Date.now() + 900_000),
    },
  });
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012', Arn: `${ROLE}/session` });
  ec2.on(DescribeInstancesCommand).callsFake(async (input: { NextToken?: string }, getClient) => {
    const c = getClient();
    const region = await c.config.region();
    sentTokens.push(input.NextToken);
    seenCredentials.add((await (c.config.credentials as () => Promise<{ accessKeyId: string }>)()).accessKeyId);
    const pages = regions[region];
    if (!pages) return { Reservations: [] };
    if (pages instanceof Error) throw pages;
    const n = input.NextToken ? Number(input.NextToken) : 0;
    return {
      Reservations: [{ ReservationId: `r-${n}`, Instances: pages[n] }],
      NextToken: n + 1 < pages.length ? String(n + 1) : undefined,
    };
  });
});

async function discover(token: string, accountId: string) {
  const started = await api.post(`/integrations/cloud-accounts/${accountId}/discover`, undefined, { token });
  expect(started.status, started.text).toBe(202);
  await ref.stack.queues.drain();
  return (await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token })).body;
}

describe('cloud discovery from AWS (cross-account role, EC2 paginators)', () => {
  it('generated external id and trust policy; every page of every region, stopped included, terminated not; rediscovery updates, flags, and leaves a failed region alone', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const handMade = await createFloor(api, o.token, o.projectId, o.envId, {
      type: 'vm',
      hostname: 'web-a',
      provider: 'aws',
      provider_instance_id: 'i-0001',
    });
    const created = await api.post(
      '/integrations/cloud-accounts',
      {
        project_id: o.projectId,
        environment_id: o.envId,
        provider: 'aws',
        name: 'prod',
        role_arn: ROLE,
        regions: ['us-east-1', 'eu-west-1'],
        external_id: 'chosen-by-user',
      },
      { token: o.token },
    );
    expect(created.status, created.text).toBe(201);
    const account = created.body;
    expect(account.external_id).toMatch(/^icat-[\w-]{32}$/);
    expect(account.trust_policy.Statement[0]).toEqual({
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::111122223333:root' },
      Action: 'sts:AssumeRole',
      Condition: { StringEquals: { 'sts:ExternalId': account.external_id } },
    });
    expect(account.permissions_policy.Statement[0].Action).toEqual(['ec2:DescribeInstances']);

    const connected = await api.post('/integrations/cloud/aws/connect', { account_id: account.id }, { token: o.token });
    expect(connected.body).toMatchObject({ status: 'connected', last_error: null });
    expect(sts.commandCalls(AssumeRoleCommand)[0].args[0].input).toMatchObject({
      RoleArn: ROLE,
      ExternalId: account.external_id,
    });
    expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(1);
    expect(connected.text).not.toContain('assumed-secret');
    // The audit log has the creation and the connection, with the role but never the external id nor the assumed credentials.
    const entries = (await api.get(`/projects/${o.projectId}/audit-log?entity_id=${account.id}`, { token: o.token }))
      .body as Record<string, any>[];
    expect(entries.map((e) => e.action)).toEqual(['cloud_account.connect', 'cloud_account.create']);
    expect(entries[1].after).toMatchObject({ provider: 'aws', role_arn: ROLE, regions: ['us-east-1', 'eu-west-1'] });
    expect(entries[0]).toMatchObject({ before: { status: 'pending' }, after: { status: 'connected' } });
    expect(JSON.stringify(entries)).not.toContain(account.external_id);
    expect(JSON.stringify(entries)).not.toMatch(/external_id|assumed-secret/);
    // The same account through another provider's path is not found.
    expect(
      (await api.post('/integrations/cloud/hetzner/connect', { account_id: account.id }, { token: o.token })).status,
    ).toBe(404);

    regions = {
      'us-east-1': [
        [
          instance('i-0001', 'running', {
            Tags: [
              { Key: 'Name', Value: 'web-a' },
              { Key: 'env', Value: 'prod' },
            ],
            PublicIpAddress: '54.0.0.1',
          }),
        ],
        [instance('i-0002', 'stopped', { Tags: [{ Key: 'Name', Value: 'db-a' }] }), instance('i-0003', 'terminated')],
        [instance('i-0004', 'running')],
      ],
      'eu-west-1': [[instance('i-0010', 'running', { Placement: { AvailabilityZone: 'eu-west-1b' } })]],
    };
    const first = await discover(o.token, account.id);
    expect(first).toMatchObject({
      status: 'succeeded',
      counts: { found: 4, created: 4, missing: 0 },
      failed_regions: [],
    });
    expect(sentTokens).toEqual([undefined, '1', '2', undefined]);
    expect([...seenCredentials]).toEqual(['ASIAASSUMED']);

    const list = async () =>
      (await api.get(`/service-floors?project_id=${o.projectId}&environment_id=${o.envId}`, { token: o.token }))
        .body as Record<string, unknown>[];
    let floors = await list();
    expect(floors).toHaveLength(5);
    const mine = (id: string) => floors.find((f) => f.cloud_account_id === account.id && f.provider_instance_id === id);
    expect(mine('i-0001')).toMatchObject({
      hostname: 'web-a',
      type: 'vm',
      provider: 'aws',
      provider_region: 'us-east-1',
      provider_zone: 'us-east-1a',
      ip_address: '54.0.0.1',
      ip_addresses: ['54.0.0.1', '10.0.1.6'],
      cpu: 2,
      tags: ['env=prod'],
    });
    expect(mine('i-0002')).toMatchObject({ hostname: 'db-a', provider_region: 'us-east-1' });
    expect(mine('i-0003')).toBeUndefined();
    expect(mine('i-0004')).toMatchObject({ hostname: 'i-0004' });
    expect(mine('i-0010')).toMatchObject({ provider_region: 'eu-west-1', provider_zone: 'eu-west-1b' });
    const before = { a: mine('i-0001')!, b: mine('i-0002')!, eu: mine('i-0010')! };

    // Renamed web-a, db-a terminated, and eu-west-1 failing this time.
    regions = {
      'us-east-1': [
        [instance('i-0001', 'running', { Tags: [{ Key: 'Name', Value: 'web-a2' }], PublicIpAddress: '54.0.0.1' })],
        [instance('i-0002', 'terminated')],
        [instance('i-0004', 'running')],
      ],
      'eu-west-1': Object.assign(new Error('Request has expired'), { name: 'RequestExpired' }),
    };
    const second = await discover(o.token, account.id);
    expect(second).toMatchObject({
      status: 'succeeded',
      counts: { found: 2, created: 0, updated: 1, unchanged: 1, missing: 1 },
      failed_regions: ['eu-west-1'],
    });
    expect(second.error).toBe('Listing eu-west-1 failed (RequestExpired).');
    floors = await list();
    expect(floors).toHaveLength(5);
    expect(floors.find((f) => f.id === handMade.id)).toEqual(handMade);
    expect(mine('i-0001')).toMatchObject({ id: before.a.id, hostname: 'web-a2', tags: [], missing_since: null });
    expect(mine('i-0002')).toMatchObject({
      id: before.b.id,
      missing_since: expect.any(String),
      last_seen_at: before.b.last_seen_at,
      deleted_at: null,
    });
    expect(mine('i-0010')).toMatchObject({ missing_since: null, last_seen_at: before.eu.last_seen_at });
    const status = (await api.get(`/integrations/cloud/aws/status?project_id=${o.projectId}`, { token: o.token })).body;
    expect(status).toEqual([
      expect.objectContaining({
        account_id: account.id,
        status: 'connected',
        last_error: 'Listing eu-west-1 failed (RequestExpired).',
      }),
    ]);
  });

  it('a role that cannot be assumed: connect answers failed, the run fails at once and flags nothing', async () => {
    const o = await ownerWithEnv(api, 'Team');
    const account = (
      await api.post(
        '/integrations/cloud-accounts',
        { project_id: o.projectId, environment_id: o.envId, provider: 'aws', name: 'x', role_arn: ROLE },
        { token: o.token },
      )
    ).body;
    sts.on(AssumeRoleCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDenied' }));
    const connected = await api.post('/integrations/cloud/aws/connect', { account_id: account.id }, { token: o.token });
    expect(connected.body).toMatchObject({
      status: 'failed',
      last_error: "AWS refused AssumeRole (AccessDenied). Check the role's trust policy and external id.",
    });
    const run = await discover(o.token, account.id);
    expect(run).toMatchObject({
      status: 'failed',
      error: "AWS refused AssumeRole (AccessDenied). Check the role's trust policy and external id.",
    });
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(0);
  });

  it('a Free plan has no auto_discovery: 403 naming AWS', async () => {
    const o = await ownerWithEnv(api, 'Free');
    const account = (
      await api.post(
        '/integrations/cloud-accounts',
        { project_id: o.projectId, environment_id: o.envId, provider: 'aws', name: 'x', role_arn: ROLE },
        { token: o.token },
      )
    ).body;
    const res = await api.post(`/integrations/cloud-accounts/${account.id}/discover`, undefined, { token: o.token });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(
      'Your plan does not include auto-discovery for AWS (feature: auto_discovery). Please upgrade.',
    );
  });
});
