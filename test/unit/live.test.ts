import { describe, expect, it } from 'vitest';
import { isLive, liveItem, visible } from '#db/live';
import { keyId } from '#db/batch-get';

const T0 = '2026-03-01T00:00:00.000Z';
const T1 = '2026-03-02T00:00:00.000Z';
const T2 = '2026-03-03T00:00:00.000Z';

describe('the live rule (db/live)', () => {
  it.each<[string, Parameters<typeof isLive>[0], boolean]>([
    ['a missing item is not live', undefined, false],
    ['an item without lifecycle fields (older kinds) is live', {}, true],
    ['an item with null lifecycle fields is live', { deleted_at: null, archived_at: null }, true],
    ['a soft-deleted item is not live', { deleted_at: T0, archived_at: null }, false],
    ['an archived item is not live', { deleted_at: null, archived_at: T0 }, false],
    ['an empty deleted_at counts as not deleted', { deleted_at: '' }, true],
  ])('%s', (_name, item, live) => {
    expect(isLive(item)).toBe(live);
  });

  it('liveItem answers a BatchGet item only while it is live', () => {
    const key = { PK: 'PROJECT#p', SK: 'SERVICE#e#s' };
    const batch = (item: Record<string, unknown>) => new Map([[keyId(key), item]]);
    expect(liveItem(batch({ id: 's', deleted_at: null }), key)).toEqual({ id: 's', deleted_at: null });
    expect(liveItem(batch({ id: 's', deleted_at: T0 }), key)).toBeUndefined();
    expect(liveItem(new Map(), key)).toBeUndefined();
  });
});

describe('the list rule visible (db/live)', () => {
  const items = [
    { id: 'live-old', updated_at: T0, deleted_at: null },
    { id: 'live-new', updated_at: T2, deleted_at: null },
    { id: 'deleted-new', updated_at: T2, deleted_at: T2 },
    { id: 'archived-new', updated_at: T1, archived_at: T1 },
    { id: 'deleted-old', updated_at: T0, deleted_at: T0 },
  ];
  const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

  it.each<[string, string | undefined, string[]]>([
    ['without updatedSince: live items only, in their order', undefined, ['live-old', 'live-new']],
    [
      'with updatedSince: every item changed since then, deleted and archived ones included',
      T1,
      ['live-new', 'deleted-new', 'archived-new'],
    ],
    ['updatedSince is inclusive: an item changed at that instant is in', T2, ['live-new', 'deleted-new']],
    [
      'updatedSince before everything: all of them, gone ones too',
      T0,
      ['live-old', 'live-new', 'deleted-new', 'archived-new', 'deleted-old'],
    ],
    ['updatedSince after everything: none', '2026-04-01T00:00:00.000Z', []],
  ])('%s', (_name, since, expected) => {
    expect(ids(visible(items, since))).toEqual(expected);
  });
});
