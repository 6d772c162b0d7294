import { describe, expect, it } from 'vitest';
import { SERVER_SPEC_MAX, serverUsage, sumUsage } from '#domain/billing';
import { updateFloorBody } from '../../shared/domain/catalog/floors.ts';

describe('cost estimates stay integers (item 9)', () => {
  it('prices the largest server exactly, and clamps stored values beyond the bounds', () => {
    const biggest = serverUsage(SERVER_SPEC_MAX);
    expect(biggest.monthly_cents).toBe(428_441_600_000);
    expect(serverUsage({ cpu: 2 ** 31 - 1, memory_mb: 1e300, storage_gb: 1e300, instances: 2 ** 31 - 1 })).toEqual(
      biggest,
    );
    expect(serverUsage({ cpu: -5, memory_mb: 1.5, instances: null })).toEqual({
      servers: 1,
      instances: 1,
      cpu: 0,
      memory_mb: 1,
      storage_gb: 0,
      monthly_cents: 0,
    });
    // memory is priced on integers and rounded once: 1 MB = 400/1024 cents
    expect(serverUsage({ memory_mb: 3, instances: 1 }).monthly_cents).toBe(1);
    for (const v of Object.values(biggest)) expect(Number.isSafeInteger(v)).toBe(true);
  });

  it('never sums past Number.MAX_SAFE_INTEGER', () => {
    const many = sumUsage(Array.from({ length: 25_000 }, () => serverUsage(SERVER_SPEC_MAX)));
    for (const v of Object.values(many)) expect(Number.isSafeInteger(v)).toBe(true);
    expect(many.monthly_cents).toBe(Number.MAX_SAFE_INTEGER);
    expect(many.servers).toBe(25_000);
  });

  it('bounds the floor fields to the same maxima', () => {
    for (const [field, max] of Object.entries(SERVER_SPEC_MAX)) {
      expect(updateFloorBody().safeParse({ [field]: max }).success).toBe(true);
      expect(updateFloorBody().safeParse({ [field]: max + 1 }).success).toBe(false);
    }
  });
});
