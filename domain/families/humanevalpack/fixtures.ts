/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): HumanEvalPack's JavaScript test rows, each answered with its solution, then the next task's. */
import { JS_ROWS, jsonl } from '../../../test/support/humanevalpack-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: jsonl(JS_ROWS) };
