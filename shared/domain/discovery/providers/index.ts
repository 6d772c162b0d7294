import type { DiscoveryProvider } from '../entities.ts';
import type { ProviderAdapter } from './types.ts';

/** The adapter of a provider; the AWS SDK clients are imported only when an AWS account is used. */
export async function adapterFor(provider: DiscoveryProvider): Promise<ProviderAdapter> {
  if (provider === 'aws') return (await import('./aws.ts')).awsAdapter;
  const token = await import('./token.ts');
  return provider === 'hetzner' ? token.hetznerAdapter : token.digitalOceanAdapter;
}
