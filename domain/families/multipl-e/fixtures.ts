/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two JavaScript tasks, each answered right then wrong. */
import { addRow, COMPLETIONS, jsonl } from '../../../test/support/multiple-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl([addRow('js', 1), addRow('js', 2)]),
  generations: (problems) => problems.map((p) => [p.prompt + COMPLETIONS.js.right, p.prompt + COMPLETIONS.js.wrong]),
};
