import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain `N passed, N failed, N skipped` line that CI logs are read by. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed outside its tests (to load, or in a hook, its tests then reported skipped): one failure more.
      if (
        module.state() === 'failed' &&
        ![...module.children.allTests()].some((test) => test.result().state === 'failed')
      )
        counts.failed++;
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
