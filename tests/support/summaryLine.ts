/**
 * A vitest reporter that ends the run with one plain line, `tests: N passed, N failed[, N skipped]`, which CI
 * log readers understand whatever the test runner.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed outside any test (an import error, a beforeAll hook) counts as one failure.
      failed += module.state() === 'failed' && failedHere === 0 ? 1 : failedHere;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
