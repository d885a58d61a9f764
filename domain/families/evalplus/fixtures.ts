/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two HumanEval+ tasks; evalplus's own file is written too. */
import { HUMANEVAL_PLUS_TASKS, jsonl } from '../../../test/support/evalplus-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(HUMANEVAL_PLUS_TASKS.slice(0, 2)), peerFiles: ['eval_results.json'] };
