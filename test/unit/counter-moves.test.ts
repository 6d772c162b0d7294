import { describe, expect, it } from 'vitest';
import { countIs, mergeMoves, moveStep, undoMoveStep, whyRefused, type CounterMove } from '#db/counter-moves';
import { passesMax } from '#db/steps';
import { forbidden, invalid } from '#shared/errors';

const project = { PK: 'PROJECT#p', SK: 'PROJECT' };
const env = { PK: 'PROJECT#p', SK: 'ENV#e' };
const full = forbidden('Service limit reached');
const gone = invalid('The environment was removed');

describe('counter moves (db/counter-moves)', () => {
  it('passes a max only with an increment beyond it; null is unlimited', () => {
    expect(passesMax(4, 1, 5)).toBe(false);
    expect(passesMax(5, 1, 5)).toBe(true);
    expect(passesMax(3, 3, 5)).toBe(true);
    expect(passesMax(9, -1, 5)).toBe(false);
    expect(passesMax(1_000, 1, null)).toBe(false);
  });

  it('sums the moves on one item, keeping its limits, its first liveness refusal and a reference', () => {
    const moves: CounterMove<string>[] = [
      { key: project, deltas: { service_count: 1 }, limits: { service_count: { max: 5, refusal: full } } },
      { key: env, deltas: { service_count: 1 }, whileLive: 'env gone' },
      { key: project, deltas: { service_count: 2, env_count: 1 } },
      { key: env, deltas: { service_count: 1 }, whileLive: 'later', reference: true },
    ];
    const merged = mergeMoves(moves);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({
      key: project,
      deltas: { service_count: 3, env_count: 1 },
      limits: { service_count: { max: 5 } },
    });
    expect(merged[1]).toMatchObject({ key: env, deltas: { service_count: 2 }, whileLive: 'env gone', reference: true });
    expect(moves[0].deltas).toEqual({ service_count: 1 }); // the moves given are left as they were
  });

  it("builds one step: the sum's room under the limit, the liveness condition, nothing when nothing is to be done", () => {
    const step = moveStep(
      { key: env, deltas: { service_count: 2 }, limits: { service_count: { max: 5, refusal: full } }, whileLive: gone },
      gone,
    )!;
    expect(step.Update?.ExpressionAttributeValues).toMatchObject({ ':d0': 2, ':room0': 3 });
    expect(step.Update?.ConditionExpression).toContain('deleted_at');
    expect(step.failWith).toBe(gone);
    expect(moveStep({ key: env, deltas: { service_count: 0 }, whileLive: gone }, gone)?.ConditionCheck).toBeDefined();
    expect(moveStep({ key: project, deltas: { service_count: 0 } }, gone)).toBeUndefined();
    expect(
      moveStep({ key: project, deltas: { subgroup_count: 1 }, reference: true }, gone)!.Update
        ?.ExpressionAttributeNames,
    ).toMatchObject({ '#c1': 'refs_version' });
    expect(
      undoMoveStep({ key: project, deltas: { service_count: 2 } }).Update?.ExpressionAttributeValues,
    ).toMatchObject({ ':d0': -2 });
  });

  it('tells why a step was refused from the item read afterwards: gone, a limit passed, or a lost race', () => {
    const move: CounterMove = {
      key: env,
      deltas: { service_count: 2 },
      limits: { service_count: { max: 5, refusal: full } },
      whileLive: gone,
    };
    expect(whyRefused(move, undefined)).toBe('gone');
    expect(whyRefused(move, { service_count: 1, archived_at: '2026-01-01' })).toBe('gone');
    expect(whyRefused(move, { service_count: 4, deleted_at: null })).toBe(full);
    expect(whyRefused(move, { service_count: 3, deleted_at: null })).toBeUndefined();
    expect(whyRefused({ key: project, deltas: { service_count: 1 } }, undefined)).toBeUndefined();
  });

  it('holds a write to the count read, a missing counter counting 0', () => {
    expect(countIs('service_count', 3)).toEqual({
      expression: '#count_service_count = :count_service_count',
      names: { '#count_service_count': 'service_count' },
      values: { ':count_service_count': 3 },
    });
    expect(countIs('subgroup_count', 0).expression).toBe(
      '(attribute_not_exists(#count_subgroup_count) OR #count_subgroup_count = :count_subgroup_count)',
    );
  });
});
