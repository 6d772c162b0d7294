import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local for the whole run; each test file gets its own table.
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A browser test waits for what a page shows; on a busy 2-core machine that can take seconds, not one.
    expect: { poll: { timeout: 15_000 } },
    env: { LOG_LEVEL: 'silent', POWERTOOLS_METRICS_DISABLED: 'true' },
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
