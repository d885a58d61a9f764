/**
 * The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): HumanEvalPack's
 * JavaScript test rows as humanevalexplainsynthesize-js reads them, one description a row from the
 * describe step's file (`--load_data_path`), each answered with its solution, then the next task's.
 */
import { JS_DESCRIPTIONS, writeJsDescriptions } from '../../../test/support/humanevalexplain-rows.js';
import { JS_ROWS, jsonl } from '../../../test/support/humanevalpack-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(JS_ROWS),
  options: (dir) => {
    const file = writeJsDescriptions(dir);
    return { flags: ['--load_data_path', file], values: { load_data_path: { path: file, text: JS_DESCRIPTIONS } } };
  },
};
