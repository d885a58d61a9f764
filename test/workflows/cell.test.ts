/**
 * The cell workflow's logic on Temporal's test environment with stub activities: shards an earlier
 * run finished are counted, not run again, and one it left running is waited for; a pause starts no shard and reaches the running ones, in
 * the order of its orders; a cancelled cell cancels its shards and their activities; answering and
 * running overlap across shards, and the model's concurrency is reached.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellShardWorkflowId, cellWorkflowId } from '../../domain/sweep/keys.js';
import type { ShardTotals } from '../../domain/sweep/records.js';
import { pauseOrderSignal, pauseSignal } from '../../workflows/pauseOrders.js';
import { cellProgressQuery, sweepCellWorkflow } from '../../workflows/sweepCell.js';
import { sweepShardWorkflow, TASK_WINDOW } from '../../workflows/sweepShard.js';
import type { CellInput, SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { startWorkflowEnv, testQueues, withStubWorkers } from '../support/workflow-env.js';
import { cellInput, directCell, Holds, shardInput, stubLlm, stubStorage } from './stubs.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startWorkflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => start + i);

function startCell(queues: SweepQueues, shape: Partial<CellInput>) {
  const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, shape);
  return env.client.workflow.start(sweepCellWorkflow, {
    workflowId: cellWorkflowId(input.sweepId, input.cell.id),
    taskQueue: queues.workflows,
    args: [input],
  });
}

/** The ids of the child workflows a workflow started, in order. */
async function childrenStarted(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
}

async function signalsOf(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
}

const held = (holds: Holds, count: number, what: string) =>
  waitUntil(() => holds.held === count, { what: `${count} ${what} held (${holds.held} are)`, timeoutMs: 30_000, intervalMs: 20 });

describe('a cell run again', () => {
  it('counts the shards an earlier run finished from their records and starts only the others', async () => {
    const queues = testQueues();
    const finished = (shardIndex: number): ShardTotals => ({
      shardIndex,
      samples: 2,
      tasksDone: 1,
      passSum: 0.5,
      calls: 2,
      promptTokens: 20,
      completionTokens: 4,
      sandboxRuns: 2,
      requestsUnanswered: 0,
    });
    // One answer of shard 2 was cut at max_tokens.
    const storage = stubStorage({ finished: [finished(0), { ...finished(2), cutAtMaxTokens: 1 }] });
    const llm = stubLlm();
    const { progress, children } = await withStubWorkers(
      env,
      queues,
      { activities: storage.activities, llm: { m: llm.activities } },
      async () => {
        const cell = await startCell(queues, { tasks: 4, nSamples: 2, tasksPerShard: 1, maxParallelShards: 2 });
        await cell.result();
        return { progress: await cell.query(cellProgressQuery), children: await childrenStarted(cell) };
      },
    );
    const sweepId = storage.executed[0]!.sweepId;
    expect(children.sort()).toEqual([1, 3].map((i) => cellShardWorkflowId(sweepId, 'ds.m.direct.t0', i)));
    expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual([1, 3]);
    expect(llm.calls.map((c) => c.taskIndex).sort()).toEqual([1, 3]);
    expect(storage.finishedAsked).toEqual([{ from: 0, shards: 4 }]);
    // Finished shards' totals and the run shards' outcomes (every sample passes: c/n = 1).
    expect(progress).toMatchObject({ phase: 'done', samplesDone: 8, tasksDone: 4, passSum: 3, sandboxRuns: 8 });
    // Every task's answers are in, and the cut answer is counted.
    expect(progress).toMatchObject({ tasksAnswered: 4, cutAtMaxTokens: 1 });
  });
});

describe('a cell whose shard an earlier run left running', () => {
  it('waits for that shard to end, then starts it again', async () => {
    const queues = testQueues();
    const runs = new Holds();
    const storage = stubStorage({ holds: runs });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: stubLlm().activities } }, async () => {
      const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, { tasks: 1 });
      // The earlier run's shard 0, still running its samples.
      const earlier = await env.client.workflow.start(sweepShardWorkflow, {
        workflowId: cellShardWorkflowId(input.sweepId, input.cell.id, 0),
        taskQueue: queues.workflows,
        args: [shardInput(input.sweepId, queues)],
      });
      await held(runs, 1, 'runs');
      const cell = await env.client.workflow.start(sweepCellWorkflow, {
        workflowId: cellWorkflowId(input.sweepId, input.cell.id),
        taskQueue: queues.workflows,
        args: [input],
      });
      await waitUntil(
        async () => ((await cell.fetchHistory()).events ?? []).some((e) => e.startChildWorkflowExecutionFailedEventAttributes),
        { what: "the cell's start of shard 0 to find it running", timeoutMs: 30_000, intervalMs: 50 },
      );
      runs.open();
      await earlier.result();
      await cell.result();
      expect(await childrenStarted(cell)).toEqual([earlier.workflowId, earlier.workflowId]);
    });
    expect(storage.executed).toHaveLength(2);
  });
});

describe("a cell's pause", () => {
  it('starts no shard while paused and tells the running ones; resumed, it runs each shard once', async () => {
    const queues = testQueues();
    const runs = new Holds();
    const storage = stubStorage({ holds: runs });
    const llm = stubLlm();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const cell = await startCell(queues, { tasks: 6, tasksPerShard: 1, maxParallelShards: 2 });
      // 2 shards answer at once, and 2 x 2 run (held) at most: 4 are in flight.
      await held(runs, 4, 'shards');
      await cell.signal(pauseOrderSignal, { paused: true, seq: 10 });
      const running = await childrenStarted(cell);
      expect(running).toHaveLength(4);
      // The running shards are told (they start no more tasks: test/workflows/shard.test.ts).
      for (const id of running)
        await waitUntil(async () => (await signalsOf(env.client.workflow.getHandle(id))).includes('pause-order'), {
          what: `the pause order to reach ${id}`,
          timeoutMs: 30_000,
          intervalMs: 50,
        });
      runs.release();
      await waitUntil(async () => (await cell.query(cellProgressQuery)).samplesDone === 4, {
        what: 'the running shards to finish',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      const paused = await cell.query(cellProgressQuery);
      expect(paused).toMatchObject({ phase: 'paused', runningShards: [] });
      expect(await childrenStarted(cell)).toEqual(running);
      // A late order older than the pause does not resume it.
      await cell.signal(pauseOrderSignal, { paused: false, seq: 9 });
      expect((await cell.query(cellProgressQuery)).phase).toBe('paused');
      expect(await childrenStarted(cell)).toEqual(running);

      await cell.signal(pauseOrderSignal, { paused: false, seq: 11 });
      runs.open();
      await cell.result();
      expect(await childrenStarted(cell)).toHaveLength(6);
    });
    expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual(range(0, 6));
  });

  it('a pause that reaches a cell before its first workflow task is handled: the cell starts paused', async () => {
    const queues = testQueues();
    const storage = stubStorage();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: stubLlm().activities } }, async () => {
      const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, { tasks: 2 });
      const cell = await env.client.workflow.signalWithStart(sweepCellWorkflow, {
        workflowId: cellWorkflowId(input.sweepId, input.cell.id),
        taskQueue: queues.workflows,
        args: [input],
        signal: pauseSignal,
        signalArgs: [],
      });
      await waitUntil(async () => (await cell.query(cellProgressQuery).catch(() => null))?.phase === 'paused', {
        what: 'the cell to be paused',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await childrenStarted(cell)).toEqual([]);
      await cell.signal(pauseOrderSignal, { paused: false, seq: 1 });
      await cell.result();
    });
    expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual([0, 1]);
  });
});

describe('a cancelled cell', () => {
  it('cancels its running shards and their activities', async () => {
    const queues = testQueues();
    const runs = new Holds();
    const storage = stubStorage({ holds: runs });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: stubLlm().activities } }, async () => {
      const cell = await startCell(queues, { tasks: 4, tasksPerShard: 1, maxParallelShards: 2 });
      await held(runs, 4, 'shards');
      const shards = await childrenStarted(cell);
      await cell.cancel();
      const failure = await cell.result().catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      for (const id of shards) {
        const shard = env.client.workflow.getHandle(id);
        await waitUntil(async () => (await shard.describe()).status.name !== 'RUNNING', {
          what: `${id} to end`,
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect((await shard.describe()).status.name).toBe('CANCELLED');
      }
      await waitUntil(() => storage.cancelled.count === 4, {
        what: `the 4 held runs to be cancelled (${storage.cancelled.count} are)`,
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await childrenStarted(cell)).toEqual(shards);
    });
  });
});

describe("a cell against its model's concurrency (issue 45)", () => {
  it("starts the next shards' tasks while earlier shards' programs run, up to the model's concurrency", async () => {
    const queues = testQueues();
    const answers = new Holds();
    const runs = new Holds();
    const llm = stubLlm(answers);
    const storage = stubStorage({ holds: runs });
    const concurrency = 32;
    const cell = directCell();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      // 4 shards of 16 tasks, 2 at once: a fixed window of 8 a shard could ask only 16 tasks at once.
      const handle = await startCell(queues, {
        cell: { ...cell, endpoint: { ...cell.endpoint, concurrency } },
        tasks: 64,
        tasksPerShard: 16,
        maxParallelShards: 2,
      });
      await held(answers, concurrency, 'tasks');
      expect(await childrenStarted(handle)).toHaveLength(2);
      expect(2 * TASK_WINDOW).toBeLessThan(concurrency);
      answers.open();
      // Shards 0 and 1 have their answers and run (held): shards 2 and 3 answer meanwhile.
      await waitUntil(() => llm.calls.length === 64 && runs.held === 4, {
        what: `every task answered while the first runs are held (${llm.calls.length} answered, ${runs.held} runs held)`,
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(
        storage.executed
          .map((e) => e.shardIndex)
          .slice(0, 2)
          .sort(),
      ).toEqual([0, 1]);
      expect(await childrenStarted(handle)).toHaveLength(4);
      runs.open();
      await handle.result();
      expect(await handle.query(cellProgressQuery)).toMatchObject({ phase: 'done', samplesDone: 64 });
    });
    expect(llm.mostInFlight()).toBe(concurrency);
    expect(llm.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, 64));
    // Each shard's window is its 16 tasks; each task may send 32 / 16 requests at once (the worker's
    // gate keeps them to the concurrency), so that a cell's last tasks can fill it alone.
    expect(new Set(llm.calls.map((c) => c.concurrency))).toEqual(new Set([2]));
    expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual(range(0, 4));
  });
});
