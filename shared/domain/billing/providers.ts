/** The supported providers on services and floors (SPEC: seven provider brand names plus on-premise). */
export const CLOUD_PROVIDERS = ['aws', 'azure', 'gcp', 'digitalocean', 'hetzner', 'ovh', 'linode'] as const;
export const PROVIDERS = [...CLOUD_PROVIDERS, 'on-premise'] as const;
