import { describe, expect, it } from 'vitest';
import { byName, changed, same, sameSet } from '../../shared/domain/impex/import/compare.ts';

// How an import decides what in the environment already matches the document (shared/domain/impex/import/compare.ts).

describe('same: a stored value and a document value', () => {
  it.each([
    ['maps whatever their key order', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    ['maps in lists whatever their key order', [{ x: 1, y: 2 }], [{ y: 2, x: 1 }], true],
    ['absent and null', undefined, null, true],
    ['a map with an undefined field and one without it', { a: 1, b: undefined }, { a: 1 }, true],
    ['lists in another order', ['a', 'b'], ['b', 'a'], false],
    ['null and an empty string', null, '', false],
    ['null and zero', null, 0, false],
    ['a number and its string', 1, '1', false],
    ['maps with different values', { a: 1 }, { a: 2 }, false],
  ])('%s: %s', (_case, a, b, expected) => {
    expect(same(a, b)).toBe(expected);
    expect(same(b, a)).toBe(expected);
  });
});

describe('changed: the fields of the document that differ from the stored entity', () => {
  it.each([
    [
      'nothing when every wanted field matches',
      { name: 'api', port: 80, extra: 'kept' },
      { name: 'api', port: 80 },
      {},
    ],
    ['a changed field only', { name: 'api', port: 80 }, { name: 'api', port: 81 }, { port: 81 }],
    ['a field set where the entity has none', { name: 'api' }, { description: 'x' }, { description: 'x' }],
    [
      'a field cleared (null) where the entity has a value',
      { description: 'x' },
      { description: null },
      { description: null },
    ],
    ['nothing for null where the entity has no such field', { name: 'api' }, { description: null }, {}],
    ['nothing for a map read back in another key order', { meta: { b: 2, a: 1 } }, { meta: { a: 1, b: 2 } }, {}],
    ['a list in another order', { ids: ['a', 'b'] }, { ids: ['b', 'a'] }, { ids: ['b', 'a'] }],
  ])('%s', (_case, stored, wanted, expected) => {
    expect(changed(stored, wanted)).toEqual(expected);
  });
});

describe('sameSet: tag and network sets', () => {
  it.each([
    ['the same strings in another order', ['b', 'a'], ['a', 'b'], true],
    ['repeats', ['a', 'a', 'b'], ['b', 'a'], true],
    ['two empty sets', [], [], true],
    ['a missing string', ['a', 'b'], ['a'], false],
    ['strings differing in case', ['A'], ['a'], false],
  ])('%s', (_case, a, b, expected) => {
    expect(sameSet(a, b)).toBe(expected);
  });
});

describe('byName: entities of the environment by name', () => {
  const entities = [
    { id: '1', name: 'API' },
    { id: '2', name: ' api ' },
    { id: '3', name: 'worker' },
    { id: '4', name: null },
    { id: '5', name: '' },
  ];
  const map = byName(entities, (e) => e.name);

  it('matches names whatever their case and surrounding spaces, keeping every entity of a name (an ambiguous one)', () => {
    expect(map.get('api')?.map((e) => e.id)).toEqual(['1', '2']);
    expect(map.get('worker')?.map((e) => e.id)).toEqual(['3']);
  });

  it('leaves out entities without a name', () => {
    expect([...map.keys()].sort()).toEqual(['api', 'worker']);
  });
});
