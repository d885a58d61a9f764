/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two GSM8K tasks, answered with bigcode's saved generations. */
import { BIGCODE_SAVED_GENERATIONS, GSM8K_ROWS, palJsonl } from '../../../test/support/pal-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: palJsonl(GSM8K_ROWS.slice(0, 2)),
  generations: () => [
    [BIGCODE_SAVED_GENERATIONS[0]!, BIGCODE_SAVED_GENERATIONS[1]!],
    [BIGCODE_SAVED_GENERATIONS[1]!, 'print(solution())'],
  ],
};
