/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two tasks, which evaluate.ts refuses where the sandbox lacks torchdata (as in CI). */
import { TORCHDATA_ROWS, torchDataJsonl } from '../../../test/support/torchdata-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: torchDataJsonl(TORCHDATA_ROWS.slice(0, 2)), refusedNaming: 'torchdata' };
