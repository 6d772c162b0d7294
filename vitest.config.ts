import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/helpers/sequencer';

/**
 * End-to-end files that keep a process of their own: what they test is read once per process (the
 * Powertools logger's service name and output, made on the first line written; AWS clients mocked at
 * the prototype), so another file before them in the same process would change it.
 */
const OWN_PROCESS = [
  'test/e2e/discovery-aws.test.ts',
  'test/e2e/discovery.test.ts',
  'test/e2e/observability.test.ts',
  'test/e2e/secrets-in-logs.test.ts',
];

/**
 * Unit and architecture files that change what a process holds for the files after them: a module mocked
 * (`vi.mock`), the environment rewritten. They keep a process of their own; the other unit and architecture
 * files share their worker's process (below).
 */
const UNIT_OWN_PROCESS = ['test/unit/workers-batch.test.ts', 'test/unit/tracing.test.ts'];

const common = {
  // A test's safety net against a hang, not a budget: its files share the machine with three others.
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // A browser test waits for what a page shows; on a busy 2-core machine that can take seconds, not one.
  expect: { poll: { timeout: 15_000 } },
  env: { LOG_LEVEL: 'silent', POWERTOOLS_METRICS_DISABLED: 'true' },
  setupFiles: ['test/helpers/worker-database.ts'],
};

export default defineConfig({
  test: {
    // One DynamoDB Local for the whole run, a database in it per worker (worker-database.ts); each test file gets its own
    // table (or shares its worker's: below).
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Alone, a file spends most of its time waiting (on DynamoDB Local, a child process, a browser), not on
    // CPU: more workers than the machine's cores (vitest's default is cores - 1, one worker here). Four keep
    // two cores busy; six only made each test slower. TEST_WORKERS=n for another count.
    maxWorkers: Number(process.env.TEST_WORKERS) || 4,
    sequence: { sequencer: LongFirstSequencer },
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      // Integration, infra and deployed-shape files, the unit files above and the end-to-end files above: a fresh process each.
      {
        test: {
          ...common,
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/unit/**', 'test/architecture/**', 'node_modules/**'],
          isolate: true,
        },
      },
      { test: { ...common, name: 'isolated-unit', include: UNIT_OWN_PROCESS, isolate: true } },
      {
        // Unit and architecture files: pure code, nothing started; a worker's process runs one after another
        // with its modules loaded once (a fresh process and module graph per file was most of their CPU time).
        test: {
          ...common,
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/architecture/**/*.test.ts'],
          exclude: [...UNIT_OWN_PROCESS, 'node_modules/**'],
          isolate: false,
        },
      },
      { test: { ...common, name: 'isolated-e2e', include: OWN_PROCESS, isolate: true } },
      {
        // End-to-end files: a worker's process runs one after another, its modules loaded once, and the
        // files whose stacks are alike share one started stack (test/helpers/stack.ts `useTestStack`).
        test: {
          ...common,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...OWN_PROCESS, 'node_modules/**'],
          isolate: false,
          env: { ...common.env, TEST_SHARED_STACKS: '1' },
        },
      },
    ],
  },
});
