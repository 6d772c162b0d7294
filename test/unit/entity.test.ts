import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEntity } from '#db/entity';
import { connectionEntity, networkEntity } from '#domain/catalog';

const thing = defineEntity({
  type: 'thing',
  schema: z.object({ id: z.string(), name: z.string(), note: z.string().nullable(), size: z.number(), deleted_at: z.string().nullable(), extra: z.string().optional() }),
  defaults: { note: null, size: 1, deleted_at: null },
  out: ['name', 'id', 'note'],
});

describe('defineEntity (shared/db/entity)', () => {
  it('decodes a stored item: only the schema fields, defaults for missing ones, stored nulls and values kept', () => {
    const raw = { PK: 'P#1', SK: 'THING#1', type: 'thing', GSI1PK: 'x', id: '1', name: 'a', note: null, stranger: true };
    expect(thing.decode(raw)).toStrictEqual({ id: '1', name: 'a', note: null, size: 1, deleted_at: null });
    expect(thing.decode({ id: '2', name: 'b', note: 'n', size: 0, deleted_at: 't', extra: 'e' })).toStrictEqual({ id: '2', name: 'b', note: 'n', size: 0, deleted_at: 't', extra: 'e' });
  });

  it('makes a new item with the defaults under what is given (undefined = default) and stores it with its key and type', () => {
    const item = thing.make({ id: '1', name: 'a', note: undefined, size: 3 });
    expect(item).toStrictEqual({ id: '1', name: 'a', note: null, size: 3, deleted_at: null });
    expect(thing.stored({ PK: 'P#1', SK: 'THING#1' }, item)).toStrictEqual({ PK: 'P#1', SK: 'THING#1', type: 'thing', ...item });
  });

  it('shows a client the out fields in their order, and the response schema is the same pick', () => {
    const out = thing.out(thing.make({ id: '1', name: 'a' }));
    expect(JSON.stringify(out)).toBe('{"name":"a","id":"1","note":null}');
    expect(Object.keys(thing.outSchema.shape).sort()).toEqual(['id', 'name', 'note']);
  });

  it('gives the catalog entities the client shapes the API has always answered', () => {
    expect(Object.keys(networkEntity.outSchema.shape)).not.toContain('created_at');
    const old = { PK: 'P', SK: 'S', type: 'connection', id: 'c', project_id: 'p', environment_id: 'e', a_type: 'service', a_id: 'a', b_type: 'floor', b_id: 'b', created_at: 't', updated_at: 't' };
    expect(connectionEntity.out(connectionEntity.decode(old))).toStrictEqual({
      id: 'c', project_id: 'p', environment_id: 'e', a_type: 'service', a_id: 'a', b_type: 'floor', b_id: 'b',
      direction: 'none', chain_id: null, name: null, group_kind: null, created_at: 't', updated_at: 't', deleted_at: null,
    });
  });
});
