/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): ReCode's func_name rows of two seeds, each answered with its solution, then the next task's. */
import { jsonl, RECODE_FUNC_NAME_ROWS } from '../../../test/support/recode-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(RECODE_FUNC_NAME_ROWS.slice(0, 6)) };
