/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the complexity rows. */
import { COMPLEXITY_ROWS, jsonl } from '../../../test/support/classification-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(COMPLEXITY_ROWS) };
