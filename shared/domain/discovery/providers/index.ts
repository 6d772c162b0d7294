import type { DiscoveryProvider } from '../entities';
import type { ProviderAdapter } from './types';

/** The adapter of a provider; the AWS SDK clients are imported only when an AWS account is used. */
export async function adapterFor(provider: DiscoveryProvider): Promise<ProviderAdapter> {
  if (provider === 'aws') return (await import('./aws')).awsAdapter;
  const token = await import('./token');
  return provider === 'hetzner' ? token.hetznerAdapter : token.digitalOceanAdapter;
}
