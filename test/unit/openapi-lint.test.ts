import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

describe('the committed openapi.json', () => {
  it('passes the Redocly linter (recommended rules, redocly.yaml) with zero errors', async () => {
    // The CLI exits 1 when it finds errors; its JSON report is on stdout either way.
    const run = await promisify(execFile)(
      join(root, 'node_modules/.bin/redocly'),
      ['lint', 'openapi.json', '--format=json', '--max-problems=1000'],
      {
        cwd: root,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
    const line = (p: Problem) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`;
    const errors = report.problems.filter((p) => p.severity === 'error').map(line);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});
