/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the FIM rows. */
import { FIM_ROWS, fimJsonl } from '../../../test/support/santacoder-fim-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: fimJsonl(FIM_ROWS) };
