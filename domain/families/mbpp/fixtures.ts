/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): MBPP's first three tasks. */
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = { text: { reference: 'mbpp/mbpp.jsonl', firstLines: 3 } };
