/**
 * Pause and resume on the real stack: `sweep-status --pause` stops the spending within the running
 * shard's task window (not after every task of the shard), nothing more is asked while paused, and
 * `--resume` finishes the sweep with every request sent exactly once and the results the script
 * implies.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { cellShardWorkflowId, sweepResultsKey } from '../../domain/sweep/keys.js';
import { TASK_WINDOW } from '../../workflows/sweepShard.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs } from '../support/processes.js';
import { connectClient, withWorkers } from '../support/temporal.js';
import { cellProgressQuery, pauseSignal, sweepCellWorkflow } from '../../workflows/sweepCell.js';
import { pauseOrderSignal, type CellInput, type PauseOrder } from '../../workflows/sweepTypes.js';
import { ANSWER_SLICE_WINDOW } from '../../workflows/methodKit.js';
import {
  expectedCounts,
  HUMANEVAL_DATASETS_YAML,
  oneSampleDirectYaml,
  scriptedModelYaml,
  scriptedSweepFixture,
  SWEEP_SEED,
} from './support.js';

const { config, env } = testConfig();
// One shard of 40 one-sample tasks (a shard holds ~200 samples), answered slowly, two at a time.
const TASKS = 40;
const ANSWER_MS = 600;
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'pause', TASKS, ANSWER_MS);

/** Waits until no request has arrived for `quietMs`; returns the count then. */
async function settled(quietMs: number, maxMs: number): Promise<number> {
  let count = server().requests().length;
  let since = Date.now();
  return waitUntil(
    () => {
      const now = server().requests().length;
      if (now !== count) {
        count = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs && count;
    },
    { what: () => `the requests to stop after the pause (${count} so far)`, timeoutMs: maxMs, intervalMs: 100 },
  );
}

describe('pause and resume', () => {
  /**
   * Starts a lone cell (its model and dataset are never reached while it is paused) with
   * signal-with-start, so that the signal is in its very first activation, and hands it to `fn`.
   */
  async function withLoneCell(
    name: string,
    start: { signal: typeof pauseSignal } | { order: PauseOrder },
    fn: (cell: WorkflowHandle<typeof sweepCellWorkflow>, phase: () => Promise<string | undefined>) => Promise<void>,
  ) {
    const own = testConfig().config;
    const { client, close } = await connectClient(own);
    try {
      await withWorkers(own, ['workflows'], async () => {
        const queues = {
          workflows: own.taskQueues.workflows,
          storage: own.taskQueues.storage,
          sandbox: own.taskQueues.sandbox,
          llmBase: own.taskQueues.llm,
        };
        const input: CellInput = {
          sweepId: `${name}-${uniqueSuffix()}`,
          cell: {
            id: 'ds.m.direct.t0',
            dataset: 'ds',
            model: 'm',
            method: 'direct',
            temperature: 0,
            endpoint: { id: 'm', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', api: 'completions', requestTimeoutS: 1 },
            sampling: { model: 'm', temperature: 0, top_p: 1, max_tokens: 1 },
            stop: [],
          },
          mode: 'full',
          datasetKey: 'unused',
          tasks: 1,
          nSamples: 1,
          k: [1],
          timeoutS: 1,
          queues,
          tasksPerShard: 1,
          maxParallelShards: 1,
          maxHistoryEvents: 8_000,
        };
        const options = { workflowId: `explora-test/${input.sweepId}`, taskQueue: queues.workflows, args: [input] as [CellInput] };
        const handle =
          'signal' in start
            ? await client.workflow.signalWithStart(sweepCellWorkflow, { ...options, signal: start.signal, signalArgs: [] })
            : await client.workflow.signalWithStart(sweepCellWorkflow, { ...options, signal: pauseOrderSignal, signalArgs: [start.order] });
        const phase = async () => (await Promise.race([handle.query(cellProgressQuery), sleep(20_000).then(() => null)]))?.phase;
        try {
          await fn(handle, phase);
        } finally {
          await handle.terminate();
          // While it ran, it may have started its shard: that one goes too.
          await client.workflow
            .getHandle(cellShardWorkflowId(input.sweepId, input.cell.id, 0))
            .terminate()
            .catch(() => undefined);
        }
      });
    } finally {
      await close();
    }
  }

  it('a pause that reaches a cell before its first workflow task is handled, not a task failing on every attempt', async () => {
    await withLoneCell('pause-early', { signal: pauseSignal }, async (_, phase) => {
      expect(await phase()).toBe('paused');
    });
  });

  it('pause orders that arrive out of order: the older one is ignored, whatever came first', async () => {
    // The sweep sent a pause (order 1) and at once a resume (order 2); the resume came first.
    await withLoneCell('pause-order', { order: { paused: false, seq: 2 } }, async (cell, phase) => {
      await cell.signal(pauseOrderSignal, { paused: true, seq: 1 });
      expect(await phase()).toBe('running');
      await cell.signal(pauseOrderSignal, { paused: true, seq: 3 });
      expect(await phase()).toBe('paused');
      await cell.signal(pauseOrderSignal, { paused: false, seq: 3 }); // not newer: ignored
      expect(await phase()).toBe('paused');
    });
  });

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
      const afterDrain = await settled(3 * ANSWER_MS, 30_000);
      expect(afterDrain).toBeLessThanOrEqual(atPause + TASK_WINDOW);
      expect(afterDrain).toBeLessThan(TASKS);
      await sleep(2000);
      expect(server().requests().length).toBe(afterDrain);
      const status = await runTs('scripts/sweep-status.ts', [id], env);
      expect(status.output).toMatch(/\(paused\)/);

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

  it("a paused sweep stops one large task's answers within the slices in flight; resumed, it finishes with each request sent once", async () => {
    const id = `pause-slices-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    // One task of 40 samples in slices of one sample (an activity each), answered slowly, two at a
    // time; at another temperature than the test before, whose first task's first answer would be cached.
    const n = 40;
    writeFileSync(
      file,
      `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${scriptedModelYaml('plain', server().url, 'scripted-completions', 'completions')}methods: [direct]
temperatures: [0.4]
n_samples: ${n}
k: [1]
limit: 1
seed: ${SWEEP_SEED}
shard_samples: 1
`,
    );
    const before = server().requests().length;
    const asked = () => server().requests().length - before;
    const sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    try {
      await waitUntil(() => asked() >= 2, {
        what: () => `the sweep's first requests:\n${sweep.output()}`,
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      const pause = await runTs('scripts/sweep-status.ts', [id, '--pause'], env);
      expect(pause.code, pause.output).toBe(0);
      const atPause = asked();
      // The slices that had started finish; no other starts (before, the task's one activity asked all 40).
      const afterDrain = (await settled(3 * ANSWER_MS, 30_000)) - before;
      expect(afterDrain).toBeLessThanOrEqual(atPause + ANSWER_SLICE_WINDOW);
      expect(afterDrain).toBeLessThan(n);
      await sleep(2000);
      expect(asked()).toBe(afterDrain);

      const resume = await runTs('scripts/sweep-status.ts', [id, '--resume'], env);
      expect(resume.code, resume.output).toBe(0);
      const { code } = await sweep.exited;
      expect(code, sweep.output()).toBe(0);
    } finally {
      await killHard(sweep);
    }
    const keys = server()
      .requests()
      .slice(before)
      .map((r) => r.key);
    expect(keys).toHaveLength(n);
    expect(new Set(keys).size).toBe(n);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const detail = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!);
    expect(detail.per_task.map((t: { n: number; c: number }) => [t.n, t.c])).toEqual(
      expectedCounts(problems.slice(0, 1), n).map((e) => [e.n, e.c]),
    );
  });
});
