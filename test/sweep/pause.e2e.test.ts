/**
 * Pause and resume on the real stack: `sweep-status --pause` stops the spending within the running
 * shard's task window (not after every task of the shard), nothing more is asked while paused, and
 * `--resume` finishes the sweep with every request sent exactly once and the results the script
 * implies. The workflows' side of it (the pause gate of tasks, slices, shards and cells, the order of
 * pause orders, a pause before a cell's first task) is test/workflows/*.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { TASK_WINDOW } from '../../workflows/sweepShard.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs } from '../support/processes.js';
import {
  expectedCounts,
  HUMANEVAL_DATASETS_YAML,
  oneSampleDirectYaml,
  scriptedModelYaml,
  scriptedSweepFixture,
  requestsSettled,
} from './support.js';

const { config, env } = testConfig();
// One shard of 40 one-sample tasks (a shard holds ~200 samples), answered slowly, two at a time.
const TASKS = 40;
const ANSWER_MS = 600;
// Answered at once after the resume: the rest of the sweep has nothing more to show about the pause.
let resumed = false;
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'pause', TASKS, () => (resumed ? 0 : ANSWER_MS));

describe('pause and resume', () => {
  it('a paused sweep asks nothing new once the running window drains; resumed, it finishes with each request sent once', async () => {
    const id = `pause-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${scriptedModelYaml('plain', server().url, 'scripted-completions', 'completions')}${oneSampleDirectYaml(TASKS)}`,
    );
    const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    try {
      await waitUntil(() => server().requests().length >= 2, {
        what: () => `the sweep's first requests:\n${sweep.output()}`,
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      const pause = await runTs('scripts/sweep-status.ts', [id, '--pause'], env);
      expect(pause.code, pause.output).toBe(0);
      const atPause = server().requests().length;
      // What had started when the pause landed finishes; nothing else starts.
      const afterDrain = await requestsSettled(server(), 3 * ANSWER_MS, 30_000);
      expect(afterDrain).toBeLessThanOrEqual(atPause + TASK_WINDOW);
      expect(afterDrain).toBeLessThan(TASKS);
      // Still nothing 2 s on, while the status says paused.
      const [status] = await Promise.all([runTs('scripts/sweep-status.ts', [id], env), sleep(2000)]);
      expect(server().requests().length).toBe(afterDrain);
      expect(status.output).toMatch(/\(paused\)/);

      resumed = true;
      const resume = await runTs('scripts/sweep-status.ts', [id, '--resume'], env);
      expect(resume.code, resume.output).toBe(0);
      const { code } = await sweep.exited;
      expect(code, sweep.output()).toBe(0);
    } finally {
      await killHard(sweep);
    }
    // Every task asked exactly once, and scored as the script implies.
    const keys = server()
      .requests()
      .map((r) => r.key);
    expect(keys).toHaveLength(TASKS);
    expect(new Set(keys).size).toBe(TASKS);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const detail = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!);
    expect(detail.per_task.map((t: { n: number; c: number }) => [t.n, t.c])).toEqual(expectedCounts(problems, 1).map((e) => [e.n, e.c]));
  });
});
