/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the Concode rows. */
import { CONCODE_ROWS, jsonl } from '../../../test/support/oneline-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(CONCODE_ROWS) };
