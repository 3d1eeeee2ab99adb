import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, `vitest: N passed, N failed, N skipped`, after vitest's own summary: the
 * form CI tooling reads to tell "ran no test" from a real pass. Modules that failed to load count as failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    // Printed after vitest's summary (reporters run in order), so it is the last line.
    setImmediate(() => process.stdout.write(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`));
  }
}
