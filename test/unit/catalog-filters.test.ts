import { describe, expect, it } from 'vitest';
import {
  matchesFloorFilters,
  networkFilter,
  repeatable,
  type FloorListing,
  type NetworkListing,
  type ServiceListing,
} from '#domain/catalog';
import { matchesServiceFilters } from '../../shared/domain/catalog/services/index.ts';

const service = (s: Partial<ServiceListing>): ServiceListing =>
  ({
    id: 's1',
    name: 'payments-api',
    tags: ['prod', 'pci'],
    programming_language: 'Go',
    provider: 'aws',
    provider_region: 'eu-west-1',
    provider_zone: 'eu-west-1b',
    service_floor_id: null,
    group_id: null,
    subgroup_id: null,
    ...s,
  }) as ServiceListing;

type Filters = Parameters<typeof matchesServiceFilters>[1];

describe('GET /services filters (catalog/services matchesServiceFilters)', () => {
  it.each<[string, Partial<ServiceListing>, Filters, boolean]>([
    ['no filter lists every service', {}, {}, true],
    ['an empty name is no filter', {}, { name: '' }, true],
    ['name is a case-insensitive substring', {}, { name: 'API' }, true],
    ['a name that is not in it', {}, { name: 'billing' }, false],
    ['tags match any of the asked ones, ignoring case', {}, { tags: ['staging', 'PROD'] }, true],
    ['no asked tag on the service', {}, { tags: ['staging'] }, false],
    ['a service without tags matches no tag filter', { tags: [] }, { tags: ['prod'] }, false],
    ['an empty tag list is no filter', {}, { tags: [] }, true],
    ['language is the whole language, ignoring case', {}, { language: 'go' }, true],
    ['language is not a substring', {}, { language: 'g' }, false],
    [
      'a service without a language matches no language filter',
      { programming_language: null },
      { language: 'go' },
      false,
    ],
    ['location searches the provider', {}, { location: 'AWS' }, true],
    ['location searches the region', {}, { location: 'eu-west' }, true],
    ['location searches the zone', { provider_region: null }, { location: '1b' }, true],
    ['location found nowhere', {}, { location: 'us-east' }, false],
    [
      'a service without a location matches no location filter',
      { provider: null, provider_region: null, provider_zone: null },
      { location: 'aws' },
      false,
    ],
    ['filters combine: all must hold', {}, { name: 'payments', tags: ['pci'], language: 'GO', location: 'eu' }, true],
    [
      'filters combine: one failing is enough',
      {},
      { name: 'payments', tags: ['pci'], language: 'rust', location: 'eu' },
      false,
    ],
  ])('%s', (_name, s, filters, listed) => {
    expect(matchesServiceFilters(service(s), filters)).toBe(listed);
  });
});

describe('repeatable query parameters (catalog/fields): tags=a&tags=b', () => {
  it.each<[string, string | string[], string[]]>([
    ['one value', 'prod', ['prod']],
    ['repeated values, in order', ['prod', 'pci'], ['prod', 'pci']],
    ['values are trimmed', ['  prod ', 'pci '], ['prod', 'pci']],
    ['blank values are dropped', ['prod', '', '   '], ['prod']],
    ['a blank single value is no filter', '  ', []],
    ['a comma is part of the value, not a separator', 'a,b', ['a,b']],
  ])('%s', (_name, raw, parsed) => {
    expect(repeatable().parse(raw)).toEqual(parsed);
  });
});

const floor = (x: Partial<FloorListing>): FloorListing =>
  ({
    id: 'f1',
    hostname: 'db-01.eu.internal',
    tags: ['prod'],
    floor_type: 'vm',
    provider: 'aws',
    provider_region: 'eu-west-1',
    provider_zone: 'eu-west-1b',
    ...x,
  }) as FloorListing;

describe('GET /service-floors filters (catalog/floors matchesFloorFilters)', () => {
  it.each<[string, Partial<FloorListing>, Parameters<typeof matchesFloorFilters>[1], boolean]>([
    ['no filter lists every floor', {}, {}, true],
    ['hostname is a case-insensitive substring', {}, { hostname: 'DB-01' }, true],
    ['a hostname that is not in it', {}, { hostname: 'web' }, false],
    ['a floor without a hostname matches no hostname filter', { hostname: null }, { hostname: 'db' }, false],
    ['type is the exact type', {}, { type: 'vm' }, true],
    ['another type', {}, { type: 'container' }, false],
    ['zone is the whole zone, ignoring case', {}, { zone: 'EU-WEST-1B' }, true],
    ['zone is not a substring', {}, { zone: '1b' }, false],
    ['location searches provider, region and zone', {}, { location: 'west' }, true],
    ['tags match any, ignoring case', {}, { tags: ['PROD', 'x'] }, true],
    ['filters combine: one failing is enough', {}, { hostname: 'db', type: 'vm', zone: 'eu-west-1a' }, false],
  ])('%s', (_name, x, filters, listed) => {
    expect(matchesFloorFilters(floor(x), filters)).toBe(listed);
  });
});

const network = (n: Partial<NetworkListing>): NetworkListing =>
  ({ id: 'n1', name: 'Prod-Backend', cidr: '10.0.1.0/24', gateway: '10.0.1.1', vlan_id: 42, ...n }) as NetworkListing;

describe('GET /networks filters (catalog/networks networkFilter)', () => {
  it('no filter is no test: the list is read unfiltered', () => {
    expect(networkFilter({})).toBeUndefined();
    expect(networkFilter({ q: '' })).toBeUndefined();
  });

  it.each<[string, Partial<NetworkListing>, Parameters<typeof networkFilter>[0], boolean]>([
    ['q searches the name, ignoring case', {}, { q: 'backend' }, true],
    ['q searches the CIDR', {}, { q: '10.0.1' }, true],
    ['q searches the gateway', { cidr: '192.168.0.0/24' }, { q: '10.0.1.1' }, true],
    ['q searches the VLAN id', { name: 'x', cidr: '192.168.0.0/24', gateway: null }, { q: '42' }, true],
    ['q searches the mask as /bits', {}, { q: '/24' }, true],
    ['q searches the mask as a dotted mask', {}, { q: '255.255.255.0' }, true],
    ['q found nowhere', {}, { q: 'frontend' }, false],
    ['vlan_id is exact', {}, { vlan_id: 42 }, true],
    ['another vlan_id', {}, { vlan_id: 4 }, false],
    ['a network without a VLAN matches no vlan_id', { vlan_id: null }, { vlan_id: 42 }, false],
    ['mask is the prefix length', {}, { mask: 24 }, true],
    ['another mask', {}, { mask: 16 }, false],
    ['range: a network inside it', {}, { range: '10.0.0.0/16' }, true],
    ['range: the range itself', { cidr: '10.0.0.0/16' }, { range: '10.0.0.0/16' }, true],
    ['range: a larger network around it is not inside', { cidr: '10.0.0.0/8' }, { range: '10.0.0.0/16' }, false],
    ['range: a network elsewhere', { cidr: '10.1.0.0/24' }, { range: '10.0.0.0/16' }, false],
    ['filters combine: one failing is enough', {}, { q: 'prod', vlan_id: 42, mask: 16 }, false],
  ])('%s', (_name, n, filters, listed) => {
    expect(networkFilter(filters)!(network(n))).toBe(listed);
  });
});
