import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseConfig, type ExploraConfig } from '../../domain/config/env.js';

/** Tests write to their own bucket, so a user's datasets and results are never touched. */
export const TEST_BUCKET = 'explora-test';

/** ...and run their workflows in a namespace of their own, so the user's Web UI never lists them. */
export const TEST_NAMESPACE = 'explora-test';

/**
 * Set for every end-to-end test file (vitest.config.ts) and so for every process it spawns. The
 * Temporal connection file is an empty one of the tests': a developer's own Temporal profile
 * (~/.config/temporalio/temporal.toml, read by every entry point) never points tests elsewhere.
 */
export const TEST_ENV = {
  TEMPORAL_NAMESPACE: TEST_NAMESPACE,
  EXPLORA_S3_BUCKET: TEST_BUCKET,
  TEMPORAL_CONFIG_FILE: fileURLToPath(new URL('./no-temporal-profiles.toml', import.meta.url)),
} as const;

/** A unique suffix per test run, so reruns never find a previous run's state by accident. */
export const uniqueSuffix = () => `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

/**
 * Configuration of the real local stack with task queues of this test's own: workers of other
 * test files (or a user's worker) never pick up its work.
 */
export function testConfig(extraEnv: Record<string, string> = {}): { config: ExploraConfig; env: Record<string, string> } {
  const env = {
    EXPLORA_TASK_QUEUE_PREFIX: `test-${uniqueSuffix()}`,
    EXPLORA_S3_BUCKET: TEST_BUCKET,
    ...extraEnv,
  };
  return { config: parseConfig({ ...process.env, ...env }), env };
}
