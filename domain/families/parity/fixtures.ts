/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two bug counts, each answered with the right function, then with one that always returns 0. */
import { jsonl, PARITY_BUGS } from '../../../test/support/repair-rows.js';
import type { OnePathFixture } from '../fixtures.js';
import { familyOf } from '../registry.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(PARITY_BUGS.slice(0, 2)),
  generations: (problems) => problems.map((p) => [familyOf(p).referenceSolution(p) ?? p.prompt, 'def parity(b1,b2,b3,b4):\n    return 0']),
};
