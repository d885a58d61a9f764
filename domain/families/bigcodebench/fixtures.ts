/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two standard-library BigCodeBench tasks, a right and a wrong answer each; BigCodeBench's two files. */
import { BCB_TASKS, bcbJsonl } from '../../../test/support/bigcodebench-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: bcbJsonl(BCB_TASKS.slice(0, 2)),
  generations: () => BCB_TASKS.slice(0, 2).map((t) => [t.right, t.wrong]),
  peerFiles: ['eval_results.json', 'pass_at_k.json'],
};
