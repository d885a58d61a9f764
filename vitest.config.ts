import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Brings the local stack up (and down again only if it started it): tests use the real
    // Temporal dev server and SeaweedFS, never fakes.
    globalSetup: ['test/support/global-stack.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Two cores: end-to-end files each run workers and sandboxes of their own.
    maxWorkers: 2,
  },
});
