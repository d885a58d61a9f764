/**
 * The sweep workflow's logic on Temporal's test environment with stub activities: its pause down to
 * the shards' task windows, its budget (the spend ledger's hold stops the spending within the tasks
 * in flight, and raised caps let it go), and its cancellation down to the activities. The same on
 * the real stack, through the CLIs: test/sweep/pause.e2e.test.ts, budget.e2e.test.ts.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetEntry } from '../../domain/families/registry.js';
import { cellShardWorkflowId, cellWorkflowId, spendLedgerWorkflowId, sweepWorkflowId } from '../../domain/sweep/keys.js';
import type { SweepBudgets } from '../../domain/sweep/budget.js';
import { spendLedgerQuery } from '../../workflows/spendReports.js';
import { sweepPauseSignal, sweepProgressQuery, sweepResumeSignal, sweepSetBudgetSignal, sweepWorkflow } from '../../workflows/sweep.js';
import { shardProgressQuery, TASK_WINDOW } from '../../workflows/sweepShard.js';
import type { SweepInput, SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { scheduledActivities, startWorkflowEnv, testQueues, withStubWorkers } from '../support/workflow-env.js';
import { COMPLETION_TOKENS, directCell, Holds, PROMPT_TOKENS, stubLlm, stubStorage } from './stubs.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startWorkflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => start + i);
const TASK_TOKENS = PROMPT_TOKENS + COMPLETION_TOKENS;

function sweepInput(queues: SweepQueues, models: string[], shape: Partial<SweepInput> = {}): SweepInput {
  return {
    sweepId: `wft-sweep-${uniqueSuffix()}`,
    configHash: 'hash',
    mode: 'full',
    datasets: [{ name: 'ds', entry: { family: 'humaneval' } as unknown as DatasetEntry, files: {}, selection: {} }],
    cells: models.map((m) => directCell(m)),
    nSamples: 1,
    k: [1],
    timeoutS: 1,
    queues,
    ...shape,
  };
}

async function startSweep(input: SweepInput) {
  return env.client.workflow.start(sweepWorkflow, {
    workflowId: sweepWorkflowId(input.sweepId),
    taskQueue: input.queues.workflows,
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

describe("a sweep's pause", () => {
  it("stops the running shard's tasks within its window and starts no cell; resumed, each task is asked once", async () => {
    const queues = testQueues();
    const answers = new Holds();
    const [m1, m2] = [stubLlm(answers), stubLlm()];
    const storage = stubStorage({ tasks: 20 });
    // Two cells, one at a time, each one shard of 20 one-sample tasks.
    const input = sweepInput(queues, ['m1', 'm2'], { maxParallelCells: 1 });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m1: m1.activities, m2: m2.activities } }, async () => {
      const sweep = await startSweep(input);
      await held(answers, TASK_WINDOW, 'tasks');
      await sweep.signal(sweepPauseSignal);
      const shard = env.client.workflow.getHandle(cellShardWorkflowId(input.sweepId, 'ds.m1.direct.t0', 0));
      await waitUntil(async () => (await signalsOf(shard)).includes('pause-order'), {
        what: 'the pause to reach the shard',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      answers.release();
      await waitUntil(() => m1.calls.length === TASK_WINDOW && answers.held === 0, { what: 'the window to drain', timeoutMs: 30_000 });
      // The shard has heard every answer of its window once its progress counts them; it started nothing more.
      await waitUntil(async () => (await shard.query(shardProgressQuery)).answered === TASK_WINDOW, {
        what: 'the shard to count its window',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await scheduledActivities(shard)).toHaveLength(TASK_WINDOW);
      const progress = await sweep.query(sweepProgressQuery);
      expect(progress).toMatchObject({ paused: true, pausedFor: 'user' });
      expect(progress.cells.map((c) => c.state)).toEqual(['running', 'pending']);

      await sweep.signal(sweepResumeSignal);
      answers.open();
      const result = await sweep.result();
      expect(result.cells).toHaveLength(2);
    });
    expect(m1.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, 20));
    expect(m2.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, 20));
  });

  it('started paused, it starts no cell; resumed, it runs them', async () => {
    const queues = testQueues();
    const llm = stubLlm();
    const storage = stubStorage({ tasks: 2 });
    const input = sweepInput(queues, ['m']);
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const sweep = await env.client.workflow.signalWithStart(sweepWorkflow, {
        workflowId: sweepWorkflowId(input.sweepId),
        taskQueue: queues.workflows,
        args: [input],
        signal: sweepPauseSignal,
        signalArgs: [],
      });
      // The workflow task after its last activity before the cells (finishedCells) is where it would start one.
      await waitUntil(
        async () => {
          const events = (await sweep.fetchHistory()).events ?? [];
          const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'finishedCells');
          if (!scheduled) return false;
          const done = events.findIndex(
            (e) =>
              e.activityTaskCompletedEventAttributes &&
              String(e.activityTaskCompletedEventAttributes.scheduledEventId) === String(scheduled.eventId),
          );
          return done >= 0 && events.slice(done).some((e) => e.workflowTaskCompletedEventAttributes);
        },
        { what: 'the sweep to reach its cells', timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(await childrenStarted(sweep)).toEqual([]);
      expect((await sweep.query(sweepProgressQuery)).cells.map((c) => c.state)).toEqual(['pending']);
      await sweep.signal(sweepResumeSignal);
      await sweep.result();
    });
    expect(llm.calls.map((c) => c.taskIndex).sort()).toEqual([0, 1]);
  });
});

describe("a sweep's budget", () => {
  it('holds within the tasks in flight once a cap would be passed, keeps holding on a resume, and lets go when raised', async () => {
    const queues = testQueues();
    const answers = new Holds();
    const llm = stubLlm(answers);
    const TASKS = 30;
    const storage = stubStorage({ tasks: TASKS });
    // 10 tokens a task: once 10 tasks are counted, the next would pass 105.
    const cap: SweepBudgets = { sweep: { tokens: 10.5 * TASK_TOKENS }, models: {} };
    const input = sweepInput(queues, ['m'], { budget: cap });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const sweep = await startSweep(input);
      const ledger = env.client.workflow.getHandle(spendLedgerWorkflowId(input.sweepId));
      const shard = env.client.workflow.getHandle(cellShardWorkflowId(input.sweepId, 'ds.m.direct.t0', 0));
      // Answers come one at a time, each counted by the ledger before the next.
      for (let counted = 1; counted <= 10; counted++) {
        await held(answers, TASK_WINDOW, 'tasks');
        answers.release(1);
        await waitUntil(async () => (await ledger.query(spendLedgerQuery)).spentByModel.m?.tasks === counted, {
          what: `the ledger to count ${counted} tasks`,
          timeoutMs: 30_000,
          intervalMs: 20,
        });
      }
      const heldFor = await waitUntil(
        async () => {
          const p = await sweep.query(sweepProgressQuery);
          return p.pausedFor?.startsWith('budget') ? p.pausedFor : undefined;
        },
        { what: 'the sweep to hold on its budget', timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(heldFor).toBe(`budget: budget.tokens ${10 * TASK_TOKENS} of ${10.5 * TASK_TOKENS} spent (a task costs ~${TASK_TOKENS})`);
      await waitUntil(async () => (await signalsOf(shard)).includes('pause-order'), {
        what: 'the hold to reach the shard',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      // What was in flight finishes and is counted; nothing more starts.
      const atHold = llm.calls.length;
      expect(atHold).toBeLessThanOrEqual(10 + TASK_WINDOW);
      answers.release();
      await waitUntil(async () => (await ledger.query(spendLedgerQuery)).spentByModel.m?.tasks === atHold, {
        what: `the ledger to count the ${atHold} tasks asked`,
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await scheduledActivities(shard)).toHaveLength(atHold);
      expect(llm.calls).toHaveLength(atHold);
      // A user's resume does not lift the budget's hold.
      await sweep.signal(sweepResumeSignal);
      expect((await sweep.query(sweepProgressQuery)).pausedFor).toBe(heldFor);
      expect(await scheduledActivities(shard)).toHaveLength(atHold);

      await sweep.signal(sweepSetBudgetSignal, { sweep: { tokens: 100 * TASK_TOKENS }, models: {} });
      answers.open();
      const result = await sweep.result();
      expect(result.cells).toHaveLength(1);
      // The spend went to the ledger; the sweep heard only its two verdicts, the hold and its release.
      const signals = await signalsOf(sweep);
      expect(signals).not.toContain('spend');
      expect(signals.filter((s) => s === 'budget-hold')).toHaveLength(2);
      const final = await sweep.query(sweepProgressQuery);
      expect(final.spentByModel?.m).toEqual({
        calls: TASKS,
        promptTokens: TASKS * PROMPT_TOKENS,
        completionTokens: TASKS * COMPLETION_TOKENS,
        tasks: TASKS,
      });
      expect(final.pausedFor).toBeNull();
    });
    expect(llm.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, TASKS));
  });
});

describe('a cancelled sweep', () => {
  it('cancels its cells, their shards and the activities in flight', async () => {
    const queues = testQueues();
    const answers = new Holds();
    const llm = stubLlm(answers);
    const storage = stubStorage({ tasks: 4 });
    // Tasks of 100 samples: two a shard, two shards.
    const input = sweepInput(queues, ['m'], { nSamples: 100 });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const sweep = await startSweep(input);
      // Both shards running, their tasks all asked.
      await held(answers, 4, 'tasks');
      await sweep.cancel();
      const failure = await sweep.result().catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      const cellId = 'ds.m.direct.t0';
      for (const id of [
        cellWorkflowId(input.sweepId, cellId),
        cellShardWorkflowId(input.sweepId, cellId, 0),
        cellShardWorkflowId(input.sweepId, cellId, 1),
      ]) {
        const handle = env.client.workflow.getHandle(id);
        await waitUntil(async () => (await handle.describe()).status.name !== 'RUNNING', {
          what: `${id} to end`,
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect((await handle.describe()).status.name, id).toBe('CANCELLED');
      }
      await waitUntil(() => llm.cancelled.count === 4, {
        what: `the 4 answers in flight to be cancelled (${llm.cancelled.count} are)`,
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      // Their shards asked it (rather than leave them running until they found their shard gone).
      for (const shard of [0, 1]) {
        const { events } = await env.client.workflow.getHandle(cellShardWorkflowId(input.sweepId, cellId, shard)).fetchHistory();
        expect((events ?? []).filter((e) => e.activityTaskCancelRequestedEventAttributes)).toHaveLength(2);
      }
    });
    expect(storage.executed).toEqual([]);
  });
});
