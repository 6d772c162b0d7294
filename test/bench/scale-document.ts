import { IMPEX_API_VERSION, type EnvironmentDocument } from '#domain/impex';

/** The benches' service names, in name order. */
export const serviceName = (i: number) => `svc-${String(i).padStart(5, '0')}`;
/**
 * The scale benches' environment: N services on N/10 floors over 20 networks; service i connects to i+1, i+2 and a hub
 * (service 0; for the first and last few, the middle one), unless `connections` is false.
 */
export function document(n: number, { connections = true } = {}): EnvironmentDocument {
  const floors = Array.from({ length: n / 10 }, (_, i) => `host-${String(i).padStart(5, '0')}.internal`);
  const networks = Array.from({ length: 20 }, (_, i) => ({ name: `net-${i}`, cidr: `10.${i}.0.0/16` }));
  const hub = (i: number) => (i >= 3 && i <= n - 3 ? 0 : n / 2);
  return {
    apiVersion: IMPEX_API_VERSION,
    kind: 'Environment',
    metadata: { name: `scale-${n}` },
    spec: {
      groups: [],
      service_links: [],
      connection_groups: [],
      service_floors: floors.map((hostname, i) => ({
        hostname,
        type: 'vm',
        cpu: 4,
        memory_mb: 8192,
        provider: 'aws',
        provider_region: i % 2 ? 'eu-west-1' : 'us-east-1',
      })),
      networks,
      services: Array.from({ length: n }, (_, i) => ({
        name: serviceName(i),
        floor: floors[i % floors.length],
        port: 8000 + (i % 100),
        programming_language: ['go', 'typescript', 'python'][i % 3],
        tags: [`team-${i % 7}`],
        repository_url: `https://git.example.com/${serviceName(i)}.git`,
      })),
      network_attachments: floors.map((f, i) => ({ service_floor: f, networks: [networks[i % 20].name] })),
      connections: Array.from({ length: connections ? 3 * n : 0 }, (_, k) => {
        const i = Math.floor(k / 3);
        const j = k % 3 === 2 ? hub(i) : (i + 1 + (k % 3)) % n;
        return { a: { service: serviceName(i) }, b: { service: serviceName(j) }, direction: 'a_to_b' as const };
      }),
    },
  } as unknown as EnvironmentDocument;
}
