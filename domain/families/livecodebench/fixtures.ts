/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two LiveCodeBench problems, each with its own samples (one passes, one fails); the rows carry no solution. */
import { LCB_TASKS, lcbJsonl } from '../../../test/support/livecodebench-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: lcbJsonl(LCB_TASKS.slice(2, 4)),
  generations: () => LCB_TASKS.slice(2, 4).map((t) => t.samples.map((s) => s.code)),
};
