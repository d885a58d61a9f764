/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): InstructHumanEval test rows with StarChat's instruction tokens. */
import { INSTRUCT_ROWS, STARCHAT_TOKENS } from '../../../test/support/instruct-humaneval-rows.js';
import { jsonl } from '../../../test/support/repair-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(INSTRUCT_ROWS),
  options: () => ({
    flags: ['--instruction-tokens', STARCHAT_TOKENS.join(',')],
    values: { instruction_tokens: STARCHAT_TOKENS.join(',') },
  }),
};
