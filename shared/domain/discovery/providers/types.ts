/** What a provider adapter answers: instances in the shape discovery writes onto floors. */
export interface DiscoveredInstance {
  instance_id: string;
  hostname: string;
  region: string | null;
  zone: string | null;
  ip_address: string | null;
  ip_addresses: string[];
  cpu: number | null;
  memory_mb: number | null;
  storage_gb: number | null;
  tags: string[];
}

/**
 * One listing scope: an AWS region, or a token provider's whole account (`ALL_REGIONS`). A failed
 * scope flags nothing missing; its error is a short text without secrets.
 */
export type Listing =
  | { scope: string; ok: true; instances: DiscoveredInstance[] }
  | { scope: string; ok: false; error: string };
export const ALL_REGIONS = '*';

/** The provider refused the credentials (or they are unusable): the run fails at once, no retry. */
export class ProviderRefusal extends Error {
  override name = 'ProviderRefusal';
}

/** The credentials an adapter needs (the token opened from the secret box by the caller). */
export interface ProviderAccount {
  id: string;
  role_arn: string | null;
  external_id: string | null;
  regions: string[];
  token: string | null;
}

export interface ProviderAdapter {
  /** Checks the credentials work; throws ProviderRefusal with a short reason when not. */
  verify(account: ProviderAccount): Promise<void>;
  list(account: ProviderAccount): Promise<Listing[]>;
}

/** Floor tags are 1–64 characters, at most 50. */
export const floorTags = (raw: string[]): string[] =>
  [...new Set(raw.map((t) => t.trim().slice(0, 64)).filter(Boolean))].slice(0, 50);
