import { describe, expect, it } from 'vitest';
import { searchableCustomValues } from '#domain/catalog';
import { matchesCustomFilters, resolveValues } from '../../shared/domain/catalog/custom-fields/values.ts';

const def = (over: Record<string, unknown>) =>
  ({
    key: 'k',
    type: 'text',
    applies_to: ['service'],
    required: false,
    default: null,
    choices: null,
    pattern: null,
    min: null,
    max: null,
    status: 'active',
    ...over,
  }) as Parameters<typeof resolveValues>[2][number];

describe('custom field values', () => {
  it.each([
    [{ tier: ['gold'] }, { tier: 'gold' }, true],
    [{ tier: ['gold', 'silver'] }, { tier: 'silver' }, true],
    [{ tier: ['gold'] }, { tier: 'silver' }, false],
    [{ tier: ['gold'] }, {}, false],
    [{ teams: ['a'] }, { teams: ['b', 'a'] }, true],
    [{ teams: ['c'] }, { teams: ['b', 'a'] }, false],
    [{ size: ['3'] }, { size: 3 }, true],
    [{ size: ['3.0'] }, { size: 3 }, true],
    [{ size: [''] }, { size: 0 }, false],
    [{ on: ['true'] }, { on: true }, true],
    [{ on: ['true'], tier: ['gold'] }, { on: true, tier: 'silver' }, false],
  ])('filters %j match %j: %s', (filters, values, expected) => {
    expect(matchesCustomFilters(values, filters)).toBe(expected);
  });

  it('gives the search its text, select and multiselect values, not numbers, booleans, urls or days', () => {
    expect(
      searchableCustomValues({
        note: 'hello',
        tier: 'gold',
        teams: ['a', 'b'],
        size: 3,
        paged: true,
        runbook: 'https://runbooks.example.com/x',
        since: '2026-01-31',
      }),
    ).toEqual([
      { field: 'custom_fields.note', value: 'hello' },
      { field: 'custom_fields.tier', value: 'gold' },
      { field: 'custom_fields.teams', value: 'a' },
      { field: 'custom_fields.teams', value: 'b' },
    ]);
  });

  it('applies defaults on create only, merges on update and ignores deleting definitions', () => {
    const defs = [
      def({ key: 'a', default: 'x' }),
      def({ key: 'b', status: 'deleting' }),
      def({ key: 'c', required: true }),
    ];
    expect(resolveValues('service', {}, defs, new Map()).problems).toEqual([{ key: 'c', msg: 'Field required' }]);
    expect(resolveValues('service', { c: 'y' }, defs, new Map())).toEqual({ values: { a: 'x', c: 'y' }, problems: [] });
    expect(resolveValues('service', { b: 'z' }, defs, new Map(), { c: 'y' }).problems.map((p) => p.key)).toEqual(['b']);
    expect(resolveValues('service', { a: null }, defs, new Map(), { a: 'x', c: 'y' }).values).toEqual({ c: 'y' });
    expect(resolveValues('network', { a: 'x' }, defs, new Map()).problems.map((p) => p.key)).toEqual(['a']);
  });
});
