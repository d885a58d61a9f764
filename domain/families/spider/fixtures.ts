/** The saved answers test/evaluate/one-path.e2e.test.ts scores (../fixtures.ts): the rows of the one database made for it. */
import { jsonl, SPIDER_ROWS } from '../../../test/support/oneline-rows.js';
import { makeSpiderDatabases } from '../../../test/support/spider-db.js';
import type { OnePathFixture } from '../fixtures.js';

export const onePathFixture: OnePathFixture = {
  text: jsonl(SPIDER_ROWS.filter((r) => r.db_id === 'concert_singer')),
  options: (dir) => {
    const databases = makeSpiderDatabases(dir);
    return { flags: ['--spider-databases', databases], values: { databases } };
  },
};
