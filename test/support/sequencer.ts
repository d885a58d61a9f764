import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take a minute or more on a 2-core machine (the summary reporter names the slowest of
 * each run). A fresh clone has no timings of its own, and vitest then starts the largest files
 * first; one of these starting last would run alone at the end of the suite, the other workers
 * idle. Started first, they overlap with everything else. A stale entry costs nothing.
 */
const LONG_FILES = [
  'test/deploy/stop-signals.e2e.test.ts',
  'test/sandbox/fork-server.e2e.test.ts',
  'test/sweep/sweep.e2e.test.ts',
  'test/sweep/batch-mode.e2e.test.ts',
  'test/families/multiple.e2e.test.ts',
  'test/sweep/resume.e2e.test.ts',
  'test/sweep/temporal-outage.e2e.test.ts',
  'test/sweep/progress.e2e.test.ts',
  'test/datasets/resume.e2e.test.ts',
  'test/sweep/budget.e2e.test.ts',
  'test/sandbox/warm-toolchains.test.ts',
  'test/methods/methods.e2e.test.ts',
  'test/workflows/batch-answers.test.ts',
  'test/workflows/batch-rounds-methods.test.ts',
];

function rank(spec: TestSpecification): number {
  const at = LONG_FILES.findIndex((file) => spec.moduleId.endsWith(file));
  return at === -1 ? LONG_FILES.length : at;
}

/** vitest's own order (timings of earlier runs when it has them), with the known long files first. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: files of equal rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
