import { afterEach, describe, expect, it } from 'vitest';
import { configureFaults, faultCounts, parseFaults, strikes } from '#shared/faults';

afterEach(() => configureFaults(''));

describe('FAULTS', () => {
  it('reads service.kind:probability entries', () => {
    expect([...parseFaults(' ddb.throttle:0.05, sqs.duplicate:1 ,worker.kill:0,s3.unavailable:0.5')]).toEqual([
      ['ddb.throttle', 0.05],
      ['sqs.duplicate', 1],
      ['worker.kill', 0],
      ['s3.unavailable', 0.5],
    ]);
    expect(parseFaults('').size).toBe(0);
  });

  it.each(['ddb.throttle', 'ddb.throttle:1.5', 'dynamo.throttle:0.1', 'ddb.explode:0.1', 'ddb.throttle:-1'])('refuses %s at start, saying what it expects', (spec) => {
    expect(() => parseFaults(spec)).toThrow(/^FAULTS: cannot read ".*" \(expected <service>\.<kind>:<probability>/);
  });

  it('strikes at about its probability, counts what it injected, and replays from its seed', () => {
    const draw = (seed: number) => {
      configureFaults('ddb.throttle:0.25', seed);
      return Array.from({ length: 2000 }, () => strikes('ddb', 'throttle'));
    };
    const first = draw(9);
    const hits = first.filter(Boolean).length;
    expect(hits).toBeGreaterThan(400);
    expect(hits).toBeLessThan(600);
    expect(faultCounts()).toEqual({ 'ddb.throttle': hits });
    expect(draw(9)).toEqual(first);
    expect(draw(10)).not.toEqual(first);
    expect(strikes('s3', 'throttle')).toBe(false); // not in the plan
  });

  it('is off unless configured', () => {
    expect(strikes('ddb', 'throttle')).toBe(false);
    expect(faultCounts()).toEqual({});
  });
});
