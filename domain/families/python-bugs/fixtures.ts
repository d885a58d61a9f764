/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): Python Bugs's test rows, each answered with its correct code, then the next task's. */
import { jsonl, PYTHON_BUGS_ROWS } from '../../../test/support/repair-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(PYTHON_BUGS_ROWS) };
