/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two DS-1000 tasks. */
import { DS1000_TASKS, ds1000Jsonl } from '../../../test/support/ds1000-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: ds1000Jsonl(DS1000_TASKS.slice(0, 2)) };
