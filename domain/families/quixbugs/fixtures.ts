/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): QuixBugs's test rows, each answered with its solution, then the next task's. */
import { jsonl, QUIXBUGS_ROWS } from '../../../test/support/repair-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(QUIXBUGS_ROWS) };
