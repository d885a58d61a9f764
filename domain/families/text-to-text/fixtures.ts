/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the da_en rows. */
import { jsonl } from '../../../test/support/oneline-rows.js';
import { TEXT_TO_TEXT_ROWS } from '../../../test/support/text-to-text-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(TEXT_TO_TEXT_ROWS.da_en),
  options: () => ({ flags: ['--subset', 'da_en'], values: { subset: 'da_en' } }),
};
