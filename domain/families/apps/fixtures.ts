/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): two APPS tasks. */
import { appsJsonl, APPS_TASKS } from '../../../test/support/apps-rows.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: appsJsonl(APPS_TASKS.slice(0, 2)) };
