import { describe, expect, it } from 'vitest';
import { lockoutHint } from '../../clients/typescript/src/cli/errors.ts';

/** SPEC's 423 detail says only "later"; the CLI adds how long, from the body's `locked_until`. */
const NOW = Date.parse('2026-01-01T10:27:00.000Z');

describe('how long a lockout lasts, as infracat prints it', () => {
  it.each([
    [{ locked_until: '2026-01-01T10:42:00.000Z' }, ' Try again in 15 min (at 10:42:00 UTC).'],
    [{ locked_until: '2026-01-01T10:27:20.000Z' }, ' Try again in 1 min (at 10:27:20 UTC).'], // under a minute still says 1
    [{ detail: 'no locked_until' }, ''],
    ['not json', ''],
  ])('%j → %j', (body, hint) => {
    expect(lockoutHint(body, NOW)).toBe(hint);
  });
});
