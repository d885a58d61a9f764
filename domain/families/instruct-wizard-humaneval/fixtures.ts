/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): HumanEval's first three tasks. */
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: { reference: 'humaneval/HumanEval.jsonl.gz', firstLines: 3 } };
