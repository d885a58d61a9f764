/**
 * The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two LiveCodeBench
 * problems, each with its own samples (one passes, one fails); the rows carry no solution. Scored
 * in a window holding both (released 2024-05-11 and 2024-07-06), which both ways' results and
 * bigcode's evaluation_results.json must name.
 */
import { LCB_TASKS, lcbJsonl } from '../../../test/support/livecodebench-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: lcbJsonl(LCB_TASKS.slice(2, 4)),
  options: () => ({
    flags: ['--release-after', '2024-05-01', '--release-before', '2024-12-31'],
    values: { release_after: '2024-05-01', release_before: '2024-12-31' },
  }),
  generations: () => LCB_TASKS.slice(2, 4).map((t) => t.samples.map((s) => s.code)),
};
