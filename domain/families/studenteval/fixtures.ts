/**
 * The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): StudentEval's test
 * rows (no dataset solution), each task answered by bigcode's post-processed generations of a
 * model's raw continuations (prompt and continuation): some pass, some fail, one crashes.
 */
import { jsonl, STUDENTEVAL_GENERATIONS, STUDENTEVAL_ROWS } from '../../../test/support/studenteval-rows.js';
import type { OnePathFixture } from '../fixtures.js';
import { studentEvalFamily } from './index.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(STUDENTEVAL_ROWS),
  generations: (problems) =>
    problems.map((p, t) =>
      STUDENTEVAL_GENERATIONS[t]!.slice(0, 2).map((g) => studentEvalFamily.solution(studentEvalFamily.read(p), 'completions', g)),
    ),
};
