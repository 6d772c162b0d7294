import { tmpdir } from 'node:os';

/** The environment variable naming the run's own temporary folder (test/helpers/global-setup.ts makes it). */
export const RUN_TMP_DIR = 'TEST_RUN_TMP_DIR';

/**
 * Where a test puts its stacks' data dirs: the run's own folder, removed when the run ends. Vitest ends its
 * workers without their `exit` handlers, so a dir a worker still held (its last shared stack's) was left in the
 * system's temporary folder after every run. Outside a run (a script): the system's.
 */
export const runTmpDir = (): string => process.env[RUN_TMP_DIR] || tmpdir();
