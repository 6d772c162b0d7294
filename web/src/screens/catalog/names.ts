import type { Floor } from '../../api';

/** What a server is called on screen: its hostname (SPEC: a server is identified by hostname), else its type and the start of its id. */
export const floorName = (f: Pick<Floor, 'hostname' | 'type' | 'id'>): string =>
  f.hostname ?? `${f.type} ${f.id.slice(0, 8)}`;

/** Where a server or service runs: provider / region / zone. */
export const locationOf = (x: {
  provider: string | null;
  provider_region: string | null;
  provider_zone: string | null;
}): string => [x.provider, x.provider_region, x.provider_zone].filter(Boolean).join(' / ');

/** The server types the API takes, with the words shown for them. */
export const FLOOR_TYPES: [Floor['type'], string][] = [
  ['vm', 'Virtual machine'],
  ['container', 'Container'],
  ['baremetal', 'Bare metal'],
  ['other', 'Other'],
];
export const floorTypeLabel = (t: string): string => FLOOR_TYPES.find(([v]) => v === t)?.[1] ?? t;
