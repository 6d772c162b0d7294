import { describe, expect, it } from 'vitest';
import {
  containmentPlace,
  MAX_SUFFIXES,
  MAX_TERMS,
  searchEntries,
  termOf,
  tokensOf,
} from '../../shared/domain/catalog/search/entries.ts';
import { chooseBest, lookupsFor } from '../../shared/domain/catalog/search/search.ts';

describe('the search index entries of an item', () => {
  it.each([
    ['checkout-payments.api', ['checkout', 'payments', 'api']],
    ['  Web_Front/EU west ', ['web', 'front', 'eu', 'west']],
    ['a#b!c"d', ['a', 'b', 'c', 'd']],
    ['ＡＢＣ', ['abc']],
  ])('cuts %j into tokens %j', (text, tokens) => {
    expect(tokensOf(text)).toEqual(tokens);
    expect(termOf(text)).toBe(tokens.join('-'));
  });

  it('indexes a service by its whole name, its tokens, their suffixes and its tags, naming the field', () => {
    const entries = searchEntries('service', { name: 'checkout-payments', tags: ['prod'] });
    expect(entries).toEqual([
      { place: '=checkout-payments', field: 'name', value: 'checkout-payments' },
      { place: '=checkout', field: 'name', value: 'checkout-payments' },
      { place: '=payments', field: 'name', value: 'checkout-payments' },
      { place: '=prod', field: 'tags', value: 'prod' },
      ...['heckout', 'eckout', 'ckout', 'kout', 'out'].map((s) => ({
        place: `~${s}`,
        field: 'name',
        value: 'checkout-payments',
      })),
      ...['ayments', 'yments', 'ments', 'ents', 'nts'].map((s) => ({
        place: `~${s}`,
        field: 'name',
        value: 'checkout-payments',
      })),
      { place: '~rod', field: 'tags', value: 'prod' },
    ]);
  });

  it('indexes addresses whole and a network under its prefix octets, with extra texts after its own', () => {
    expect(
      searchEntries('service_floor', { hostname: null, ip_address: '10.0.1.5', ip_addresses: ['10.0.1.6'] }),
    ).toEqual([
      { place: '=10-0-1-5', field: 'ip_address', value: '10.0.1.5' },
      { place: '=10-0-1-6', field: 'ip_addresses', value: '10.0.1.6' },
    ]);
    const net = searchEntries('network', { name: 'lan', cidr: '10.0.4.0/22' }, [
      { field: 'custom_fields.owner', value: 'team' },
    ]);
    expect(net.map((e) => e.place)).toEqual(['=lan', '=10-0-4-0-22', '=team', '~eam', '@10.0.|10.0.4.0/22']);
    expect(net.find((e) => e.place === '=team')?.field).toBe('custom_fields.owner');
  });

  it.each([
    ['10.0.1.128/25', '@10.0.1.|10.0.1.128/25'],
    ['10.0.1.0/24', '@10.0.1.|10.0.1.0/24'],
    ['10.0.0.0/16', '@10.0.|10.0.0.0/16'],
    ['10.0.0.0/8', '@10.|10.0.0.0/8'],
    ['0.0.0.0/0', '@|0.0.0.0/0'],
    ['not a cidr', undefined],
  ])('places network %s at %s', (cidr, place) => {
    expect(containmentPlace(cidr)).toBe(place);
  });

  it('holds at most MAX_TERMS terms and MAX_SUFFIXES suffixes, however many texts an item has', () => {
    const tags = Array.from({ length: 50 }, (_, i) => `tag-number-${i}-longish`);
    const entries = searchEntries('service', { name: 'a-very-long-service-name-with-many-words', tags });
    expect(entries.filter((e) => e.place.startsWith('=')).length).toBe(MAX_TERMS);
    expect(entries.filter((e) => e.place.startsWith('~')).length).toBe(MAX_SUFFIXES);
    // The name comes first.
    expect(entries[0]).toMatchObject({ field: 'name' });
  });
});

describe('what a query reads and how hits rank', () => {
  it('reads the term range, inside tokens for one word, and the four buckets for an address', () => {
    expect(lookupsFor('Pay').map((l) => l.prefix)).toEqual(['=pay', '~pay']);
    expect(lookupsFor('checkout pay').map((l) => l.prefix)).toEqual(['=checkout-pay']);
    expect(lookupsFor('10.0.1.5').map((l) => l.prefix)).toEqual(['=10-0-1-5', '@|', '@10.|', '@10.0.|', '@10.0.1.|']);
    expect(lookupsFor('10.0.0.0/16').map((l) => l.prefix)).toEqual(['=10-0-0-0-16', '@10.0.']);
  });

  it('ranks exact, then containment, then prefix, then inside a token; one result per item', () => {
    const hit = (id: string, tier: number, order = '') => ({
      envId: 'e',
      kind: 'service' as const,
      id,
      place: '',
      tier,
      order,
    });
    const best = chooseBest(
      [hit('sub', 3), hit('pre', 2, '=payx'), hit('pre2', 2, '=pay-a'), hit('ex', 0), hit('ex', 3)],
      3,
    );
    expect(best.map((h) => [h.id, h.tier])).toEqual([
      ['ex', 0],
      ['pre2', 2],
      ['pre', 2],
    ]);
  });
});
