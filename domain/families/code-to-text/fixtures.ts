/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the Python rows. */
import { CODE_TO_TEXT_ROWS, codeToTextJsonl } from '../../../test/support/code-to-text-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: codeToTextJsonl(CODE_TO_TEXT_ROWS.python) };
