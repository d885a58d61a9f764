/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two Mercury tasks. */
import { MERCURY_ROWS, mercuryJsonl } from '../../../test/support/mercury-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: mercuryJsonl(MERCURY_ROWS.slice(0, 2)) };
