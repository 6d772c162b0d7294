import { describe, expect, it } from 'vitest';
import { keys } from '#db/keys';
import { changesOf, type StreamRecord } from '../../shared/domain/live/changes.ts';

/** What a stream record of a server's item says to an environment's followers (decision 0985). */
const P = 'p1';
const E = 'e1';
const floor = (fields: Record<string, unknown> = {}) => ({
  ...keys.floor(P, E, 'f1'),
  type: 'floor',
  id: 'f1',
  project_id: P,
  environment_id: E,
  floor_type: 'vm',
  hostname: 'web-1',
  updated_at: '2026-01-01T00:00:00.000Z',
  deleted_at: null,
  ...fields,
});
const record = (eventName: StreamRecord['eventName'], oldImage?: object, newImage?: object): StreamRecord => ({
  sequenceNumber: '100',
  eventName,
  oldImage: oldImage as Record<string, unknown> | undefined,
  newImage: newImage as Record<string, unknown> | undefined,
});
const later = '2026-01-02T00:00:00.000Z';

describe('changesOf', () => {
  it.each([
    ['an inserted item', record('INSERT', undefined, floor()), 'created'],
    ['a renamed one', record('MODIFY', floor(), floor({ hostname: 'web-2', updated_at: later })), 'updated'],
    ['one soft-deleted', record('MODIFY', floor(), floor({ deleted_at: later })), 'deleted'],
    ['one archived', record('MODIFY', floor(), floor({ archived_at: later })), 'deleted'],
    ['one restored', record('MODIFY', floor({ archived_at: later }), floor({ archived_at: null })), 'created'],
    ['one removed', record('REMOVE', floor(), undefined), 'deleted'],
    ['only an internal field moved', record('MODIFY', floor(), floor({ refs_version: 3 })), undefined],
    [
      'a change of a deleted one',
      record('MODIFY', floor({ deleted_at: later }), floor({ deleted_at: later, x: 1 })),
      undefined,
    ],
    ['an index item of the same type', record('INSERT', undefined, { ...floor(), SK: `LISTING#${E}#f1` }), undefined],
    ['an item of another kind', record('INSERT', undefined, { ...floor(), type: 'webhook' }), undefined],
  ])('%s: %s', async (_name, r, op) => {
    const [change] = await changesOf([r], new Date(later));
    expect(change?.op).toBe(op);
    if (change)
      expect(change).toMatchObject({ kind: 'service_floor', id: 'f1', envId: E, projectId: P, source: '100' });
    if (op === 'deleted') expect(change?.item).toBeUndefined();
    if (op === 'updated') expect(change?.item).toMatchObject({ hostname: 'web-2', type: 'vm' });
  });

  it("places an environment's own change in that environment", async () => {
    const envItem = {
      ...keys.environment(P, E),
      type: 'environment',
      id: E,
      project_id: P,
      name: 'prod',
      updated_at: later,
    };
    const [change] = await changesOf([record('MODIFY', { ...envItem, name: 'old' }, envItem)], new Date(later));
    expect(change).toMatchObject({ kind: 'environment', id: E, envId: E, op: 'updated', item: { name: 'prod' } });
  });
});
