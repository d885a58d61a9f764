import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './test/support/config.js';
import LongFilesFirst from './test/support/sequencer.js';

/**
 * Files that replace a module (`vi.mock`) or a global: they run isolated, each in modules of its
 * own. The other files share their worker's modules and process (`isolate: false`): the family
 * registry, zod schemas and the Temporal SDK load once per worker, not once per file, and no new
 * process starts per file. In a run of 27 unit files that cut the import time from 119 s to 25 s
 * summed. A mock there would leak into the files after it, or not apply, so such files are found
 * by their text and kept apart; a test file that changes process-wide state (an environment
 * variable, the working directory) puts it back in its `afterAll`.
 */
const REPLACES_MODULES = /\bvi\.(mock|doMock|unmock|stubGlobal|stubEnv|resetModules)\(/;
const TEST_DIR = new URL('./test/', import.meta.url);
const ISOLATED_FILES = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => REPLACES_MODULES.test(readFileSync(new URL(f, TEST_DIR), 'utf8')))
  .map((f) => `test/${f}`);
const ISOLATED_UNIT_FILES = ISOLATED_FILES.filter((f) => !f.endsWith('.e2e.test.ts'));
const ISOLATED_E2E_FILES = ISOLATED_FILES.filter((f) => f.endsWith('.e2e.test.ts'));
/** vitest reads an empty include list as its default, every file. */
const orNone = (files: string[]) => (files.length > 0 ? files : ['test/no-file-replaces-a-module']);

/**
 * Two projects, told apart by the file name:
 * - unit (`*.test.ts`): needs no stack (no Temporal, no S3, no model server); runs in seconds.
 * - e2e (`*.e2e.test.ts`): everything that needs the stack, which the global setup brings up (and
 *   down again only if it started it): tests use the real Temporal dev server and SeaweedFS, never
 *   fakes. They run in a Temporal namespace and an S3 bucket of their own (TEST_ENV).
 * Each has its `-isolated` twin for the files above.
 */
/** What a project and its `-isolated` twin share. */
const UNIT = {
  // Missing reference data (../shared/reference) or tools (`npm run setup -- --tests`) are named
  // once, before any test runs.
  globalSetup: ['test/support/reference-data.ts', 'test/support/test-tools.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
};
const E2E = {
  // The workflow bundle is built once before the e2e files start their workers (every project's
  // global setup runs before any test, so the unit workflow files find it too in a whole run; a
  // unit file run alone builds it only if it needs it).
  globalSetup: [...UNIT.globalSetup, 'test/support/global-stack.ts', 'test/support/workflow-bundle-setup.ts'],
  env: { ...TEST_ENV },
  testTimeout: 600_000,
  hookTimeout: 600_000,
};

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    // Two cores, three files at once: the long end-to-end files run their cases at once, so each
    // keeps more than a core busy while it runs; a fourth file then mostly slows the others, and
    // two at a time left cores idle (1,055 s of vitest against 917-952 s with three, 2026-12-07).
    maxWorkers: 3,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.e2e.test.ts', ...ISOLATED_UNIT_FILES],
          isolate: false,
          ...UNIT,
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: orNone(ISOLATED_UNIT_FILES), ...UNIT } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.e2e.test.ts'], exclude: ISOLATED_E2E_FILES, isolate: false, ...E2E } },
      { extends: true, test: { name: 'e2e-isolated', include: orNone(ISOLATED_E2E_FILES), ...E2E } },
    ],
  },
});
