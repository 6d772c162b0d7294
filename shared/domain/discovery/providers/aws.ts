// The STS and EC2 SDKs are imported when used (a dynamic import stays one in the bundle): they are
// large, and the functions that bundle this adapter mostly serve other requests.
import type { Instance } from '@aws-sdk/client-ec2';
import { isIP } from 'node:net';
import { sdkLogger } from '#shared/clients/sdk-logger';
import { config } from '#shared/config';
import { captured } from '#shared/tracing';
import {
  floorTags,
  ProviderRefusal,
  type DiscoveredInstance,
  type Listing,
  type ProviderAccount,
  type ProviderAdapter,
} from './types.ts';

/**
 * AWS through a cross-account role: STS AssumeRole with the account's generated external id, then
 * EC2 DescribeInstances through the SDK's paginator in every configured region. Every state but
 * terminated is listed (stopped instances are servers still); a terminated one is gone.
 */

const GONE_STATES = new Set(['terminated', 'shutting-down']);

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken: string };

async function assumeRole(account: ProviderAccount): Promise<Credentials> {
  if (!account.role_arn || !account.external_id) throw new ProviderRefusal('The account has no role to assume.');
  const { STSClient, AssumeRoleCommand } = await import('@aws-sdk/client-sts');
  const sts = captured(new STSClient({ region: config().AWS_REGION, logger: sdkLogger }));
  try {
    const out = await sts.send(
      new AssumeRoleCommand({
        RoleArn: account.role_arn,
        ExternalId: account.external_id,
        RoleSessionName: `infra-catalog-${account.id.slice(0, 8)}`,
        DurationSeconds: 900,
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken)
      throw new ProviderRefusal('AWS answered AssumeRole without credentials.');
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken };
  } catch (err) {
    if (err instanceof ProviderRefusal) throw err;
    throw new ProviderRefusal(
      `AWS refused AssumeRole (${(err as Error).name}). Check the role's trust policy and external id.`,
    );
  }
}

const tagValue = (i: Instance, key: string) => i.Tags?.find((t) => t.Key === key)?.Value?.trim() || undefined;

export function toDiscovered(i: Instance, region: string): DiscoveredInstance {
  const ips = [
    i.PublicIpAddress,
    i.PrivateIpAddress,
    i.Ipv6Address,
    ...(i.NetworkInterfaces ?? []).flatMap((n) => [
      ...(n.PrivateIpAddresses ?? []).map((p) => p.PrivateIpAddress),
      ...(n.Ipv6Addresses ?? []).map((p) => p.Ipv6Address),
    ]),
  ].filter((ip): ip is string => Boolean(ip && isIP(ip)));
  const unique = [...new Set(ips)].slice(0, 64);
  const cores = i.CpuOptions?.CoreCount;
  return {
    instance_id: i.InstanceId!,
    hostname: (tagValue(i, 'Name') ?? i.InstanceId!).slice(0, 253),
    region,
    zone: i.Placement?.AvailabilityZone ?? null,
    ip_address: unique[0] ?? null,
    ip_addresses: unique,
    cpu: cores ? cores * (i.CpuOptions?.ThreadsPerCore ?? 1) : null,
    // DescribeInstances does not say the memory; it would take DescribeInstanceTypes.
    memory_mb: null,
    storage_gb: null,
    tags: floorTags(
      (i.Tags ?? []).filter((t) => t.Key && t.Key !== 'Name').map((t) => (t.Value ? `${t.Key}=${t.Value}` : t.Key!)),
    ),
  };
}

async function listRegion(region: string, credentials: Credentials): Promise<Listing> {
  const { EC2Client, paginateDescribeInstances } = await import('@aws-sdk/client-ec2');
  const client = captured(new EC2Client({ region, credentials, logger: sdkLogger }));
  const instances: DiscoveredInstance[] = [];
  try {
    for await (const page of paginateDescribeInstances({ client, pageSize: 500 }, {})) {
      for (const r of page.Reservations ?? []) {
        for (const i of r.Instances ?? []) {
          if (!i.InstanceId || GONE_STATES.has(i.State?.Name ?? '')) continue;
          instances.push(toDiscovered(i, region));
        }
      }
    }
    return { scope: region, ok: true, instances };
  } catch (err) {
    return { scope: region, ok: false, error: `Listing ${region} failed (${(err as Error).name}).` };
  } finally {
    client.destroy();
  }
}

export const awsAdapter: ProviderAdapter = {
  async verify(account) {
    const credentials = await assumeRole(account);
    const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
    try {
      const who = await captured(new STSClient({ region: config().AWS_REGION, credentials, logger: sdkLogger })).send(
        new GetCallerIdentityCommand({}),
      );
      const expected = account.role_arn!.split(':')[4];
      if (expected && who.Account && who.Account !== expected)
        throw new ProviderRefusal('The assumed role belongs to another AWS account.');
    } catch (err) {
      if (err instanceof ProviderRefusal) throw err;
      throw new ProviderRefusal(`AWS refused GetCallerIdentity (${(err as Error).name}).`);
    }
  },
  async list(account) {
    const credentials = await assumeRole(account);
    const regions = account.regions.length
      ? account.regions
      : config()
          .DISCOVERY_AWS_REGIONS.split(',')
          .map((r) => r.trim())
          .filter(Boolean);
    const out: Listing[] = [];
    for (const region of regions) out.push(await listRegion(region, credentials));
    return out;
  },
};
