/**
 * The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two Mercury tasks.
 * A passing answer's runtime is measured afresh by each path (and its Beyond with it), so the
 * answers compared byte for byte fail: a wrong answer (failed@cases) and an empty one (failed@load),
 * whose scores hold no timing. mercury.e2e.test.ts ranks passing answers.
 */
import { MERCURY_ROWS, mercuryJsonl } from '../../../test/support/mercury-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: mercuryJsonl(MERCURY_ROWS.slice(0, 2)),
  generations: (problems) => problems.map((p) => [`class Solution:\n    def ${p.entry_point}(self, *args):\n        return None`, '']),
};
