import { describe, expect, it } from 'vitest';
import { repeatable, type ServiceListing } from '#domain/catalog';
import { matchesServiceFilters } from '../../shared/domain/catalog/services';

const service = (s: Partial<ServiceListing>): ServiceListing => ({
  id: 's1', name: 'payments-api', tags: ['prod', 'pci'], programming_language: 'Go', provider: 'aws', provider_region: 'eu-west-1', provider_zone: 'eu-west-1b',
  service_floor_id: null, group_id: null, subgroup_id: null, ...s,
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
    ['a service without a language matches no language filter', { programming_language: null }, { language: 'go' }, false],
    ['location searches the provider', {}, { location: 'AWS' }, true],
    ['location searches the region', {}, { location: 'eu-west' }, true],
    ['location searches the zone', { provider_region: null }, { location: '1b' }, true],
    ['location found nowhere', {}, { location: 'us-east' }, false],
    ['a service without a location matches no location filter', { provider: null, provider_region: null, provider_zone: null }, { location: 'aws' }, false],
    ['filters combine: all must hold', {}, { name: 'payments', tags: ['pci'], language: 'GO', location: 'eu' }, true],
    ['filters combine: one failing is enough', {}, { name: 'payments', tags: ['pci'], language: 'rust', location: 'eu' }, false],
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
    expect(repeatable.parse(raw)).toEqual(parsed);
  });
});
