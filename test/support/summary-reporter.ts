import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the summary names: the suite must stay within 15 minutes on 2 cores. */
const SLOWEST_SHOWN = 8;

/**
 * Ends the run with one plain line, `tests: N passed, N failed`, which CI reads to tell a run
 * that tested something from one that ran nothing; before it, the slowest files, so a run that
 * grew longer says where.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++; // a file that failed to load
    }
    const slowest = [...testModules]
      .map((mod) => ({ file: mod.relativeModuleId, seconds: mod.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST_SHOWN);
    if (testModules.length > SLOWEST_SHOWN)
      process.stdout.write(`\nslowest files: ${slowest.map((m) => `${m.file} ${m.seconds.toFixed(0)} s`).join(', ')}\n`);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
