/** The sandbox activity, called directly (outside a worker its heartbeats are no-ops). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxActivities } from '../../activities/sandbox.js';
import { SandboxExecutor } from '../../activities/sandbox/executor.js';

let executor: SandboxExecutor;

beforeAll(async () => {
  executor = new SandboxExecutor({ concurrency: 2, limits: { timeoutMs: 10_000 } });
  await executor.start();
});

afterAll(async () => {
  await executor.close();
});

describe('executePrograms', () => {
  it('runs a batch and returns one result per program, in order', async () => {
    const { executePrograms } = createSandboxActivities(executor);
    const programs = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, program: i % 3 === 0 ? 'assert False' : `print(${i})` }));
    const { results } = await executePrograms({ programs });
    expect(results.map((r) => r.id)).toEqual(programs.map((p) => p.id));
    expect(results.map((r) => r.status)).toEqual(programs.map((_, i) => (i % 3 === 0 ? 'failed' : 'passed')));
    expect(results[1]!.stdout).toBe('1\n');
  });

  it('rejects a malformed batch before running anything', async () => {
    const { executePrograms } = createSandboxActivities(executor);
    await expect(executePrograms({ programs: [{ id: 'x' }] } as never)).rejects.toThrow(/program/);
  });
});
