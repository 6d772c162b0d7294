import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  configureFaults,
  faultCounts,
  faultInjector,
  parseFaults,
  redeliveryAfterSuccess,
  strikes,
} from '#shared/faults';

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

  it.each(['ddb.throttle', 'ddb.throttle:1.5', 'dynamo.throttle:0.1', 'ddb.explode:0.1', 'ddb.throttle:-1'])(
    'refuses %s at start, saying what it expects',
    (spec) => {
      expect(() => parseFaults(spec)).toThrow(/^FAULTS: cannot read ".*" \(expected <service>\.<kind>:<probability>/);
    },
  );

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

describe('queue faults after a message was handled', () => {
  it('redelivers a first delivery at once or late as its plan says, and never a redelivery', () => {
    const always = (kind: string) => faultInjector(`sqs.${kind}:1`).strikes;
    expect(redeliveryAfterSuccess(1, always('duplicate'))).toBe('duplicate');
    expect(redeliveryAfterSuccess(1, always('late'))).toBe('late');
    expect(redeliveryAfterSuccess(2, always('duplicate'))).toBeUndefined();
    expect(redeliveryAfterSuccess(1)).toBeUndefined(); // the process's injector is off
  });

  it("keeps an injector of its own apart from the process's", () => {
    const own = faultInjector('sqs.reorder:1', 3);
    expect(own.strikes('sqs', 'reorder')).toBe(true);
    expect(own.counts()).toEqual({ 'sqs.reorder': 1 });
    expect(faultCounts()).toEqual({});
  });
});

describe('a function running alone from its bundle', () => {
  it('takes its faults from FAULTS and FAULTS_SEED in its environment when it loads (start:deployed passes them through)', () => {
    const file = join(import.meta.dirname, '../../shared/faults.ts');
    const run = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `
      const f = await import(${JSON.stringify(file)});
      console.log(JSON.stringify([f.strikes('ddb', 'throttle'), f.faultCounts()]));`,
          ],
          { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
        ),
      );
    expect(run({ FAULTS: 'ddb.throttle:1', FAULTS_SEED: '3', AWS_LAMBDA_FUNCTION_NAME: 'ServicesFunction' })).toEqual([
      true,
      { 'ddb.throttle': 1 },
    ]);
    expect(run({ AWS_LAMBDA_FUNCTION_NAME: 'ServicesFunction' })).toEqual([false, {}]);
    // Outside a Lambda sandbox (npm start, npm test, the soak), FAULTS in the shell does nothing at load:
    // those switch faults on themselves once their set-up is done.
    expect(run({ FAULTS: 'ddb.throttle:1', FAULTS_SEED: '3' })).toEqual([false, {}]);
  });
});
