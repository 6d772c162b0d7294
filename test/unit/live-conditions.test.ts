import { describe, expect, it } from 'vitest';
import { allOf, isArchived, isDeleted, isLive, LIVE, NOT_DELETED, setUnlessDeletedStep, visible } from '#db/live';
import { invalid } from '#shared/errors';
import { grouped, isUnset } from '#db/condition';

const at = '2026-01-01T00:00:00.000Z';

describe('the live rule as conditions and steps (db/live)', () => {
  it('tells live, deleted and archived items apart; a missing attribute counts as not set', () => {
    expect(isLive({})).toBe(true);
    expect(isLive({ deleted_at: null, archived_at: null })).toBe(true);
    expect(isLive(undefined)).toBe(false);
    expect(isLive({ deleted_at: at })).toBe(false);
    expect(isLive({ archived_at: at })).toBe(false);
    expect(isDeleted({ deleted_at: at })).toBe(true);
    expect(isDeleted({ archived_at: at })).toBe(false);
    expect(isDeleted(undefined)).toBe(false);
    expect(isArchived({ archived_at: at })).toBe(true);
    expect(isArchived({ archived_at: at, deleted_at: at })).toBe(false);
    expect(isArchived({})).toBe(false);
  });

  it('lists live items, or every item changed since a sync point', () => {
    const items = [
      { id: 'a', updated_at: '2026-01-02', deleted_at: null },
      { id: 'b', updated_at: '2026-01-03', deleted_at: at },
      { id: 'c', updated_at: '2026-01-01', archived_at: at },
    ];
    expect(visible(items).map((i) => i.id)).toEqual(['a']);
    expect(visible(items, '2026-01-02').map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('writes its conditions with both lifecycle attributes, joinable with others', () => {
    expect(LIVE.expression).toContain('deleted_at');
    expect(LIVE.expression).toContain('archived_at');
    expect(NOT_DELETED.expression).not.toContain('archived_at');
    const both = allOf({ expression: 'chain_id = :chain', values: { ':chain': 'c' } }, LIVE)!;
    expect(both.expression).toBe(`chain_id = :chain AND ${LIVE.expression}`);
    expect(both.values).toEqual({ ':chain': 'c', ':null': null });
  });

  it('sets fields on an item not deleted (archived or not) while what was read still holds', () => {
    const step = setUnlessDeletedStep(
      { PK: 'P', SK: 'S' },
      { service_floor_id: null },
      { service_floor_id: 'f' },
      invalid('stale'),
    );
    expect(step.Update?.ConditionExpression).toBe(`#w0 = :w0 AND ${NOT_DELETED.expression}`);
    expect(step.Update?.ExpressionAttributeValues).toMatchObject({ ':w0': 'f', ':null': null, ':v0': null });
    expect(setUnlessDeletedStep({ PK: 'P', SK: 'S' }, { a: 1 }, {}, invalid('stale')).Update?.ConditionExpression).toBe(
      NOT_DELETED.expression,
    );
  });

  it('states "absent or null" for any field with placeholder names', () => {
    expect(isUnset('revoked_at')).toEqual({
      expression: '(attribute_not_exists(#unset_revoked_at) OR #unset_revoked_at = :null)',
      names: { '#unset_revoked_at': 'revoked_at' },
      values: { ':null': null },
    });
  });
});

describe('an expression as one operand of AND (db/condition grouped)', () => {
  it('puts a top-level OR in parentheses, and leaves an expression that needs none as it is', () => {
    expect(grouped('attribute_not_exists(PK) OR expires_at_epoch <= :now')).toBe(
      '(attribute_not_exists(PK) OR expires_at_epoch <= :now)',
    );
    expect(grouped('(attribute_not_exists(PK) OR #expires < :now OR #owner = :owner)')).toBe(
      '(attribute_not_exists(PK) OR #expires < :now OR #owner = :owner)',
    );
    expect(grouped('attribute_exists(PK) AND (a = :a OR b = :b)')).toBe('attribute_exists(PK) AND (a = :a OR b = :b)');
    expect(grouped('(a = :a) or (b = :b)')).toBe('((a = :a) or (b = :b))');
    expect(grouped('#st IN (:queued, :running) AND #order = :order')).toBe(
      '#st IN (:queued, :running) AND #order = :order',
    );
  });
});
