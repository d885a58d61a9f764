/**
 * The shard workflow's logic on Temporal's test environment with stub activities: its tasks' and
 * slices' windows, the slices' answers, runs and join, its pause gate, retries, and what it tells
 * the spend ledger. The real activities' side of slices (their files, the join's checks) is
 * test/sweep/shard-slices.e2e.test.ts's.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellShardWorkflowId } from '../../domain/sweep/keys.js';
import { sampleSlices } from '../../domain/sweep/sharding.js';
import { DEFAULT_LLM_HEARTBEAT_TIMEOUT_S } from '../../workflows/activityOptions.js';
import { ANSWER_SLICE_WINDOW } from '../../workflows/methodKit.js';
import { pauseOrderSignal } from '../../workflows/pauseOrders.js';
import { spendLedgerQuery } from '../../workflows/spendReports.js';
import { spendLedgerWorkflow } from '../../workflows/spendLedger.js';
import { shardProgressQuery, sweepShardWorkflow, SLICE_WINDOW, TASK_WINDOW } from '../../workflows/sweepShard.js';
import type { ShardInput, SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { scheduledActivities, startWorkflowEnv, testQueues, withStubWorkers } from '../support/workflow-env.js';
import { COMPLETION_TOKENS, Holds, PROMPT_TOKENS, shardInput, stubLlm, stubStorage } from './stubs.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startWorkflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => start + i);

function startShard(queues: SweepQueues, shape: Partial<ShardInput>) {
  const input = shardInput(`wft-shard-${uniqueSuffix()}`, queues, shape);
  return env.client.workflow.start(sweepShardWorkflow, {
    workflowId: cellShardWorkflowId(input.sweepId, input.cell.id, input.shardIndex),
    taskQueue: queues.workflows,
    args: [input],
  });
}

const held = (holds: Holds, count: number, what: string) =>
  waitUntil(() => holds.held === count, { what: `${count} ${what} held (${holds.held} are)`, timeoutMs: 30_000, intervalMs: 20 });

describe('a shard of tasks of more samples than one activity takes', () => {
  it('answers each task in slices, runs the shard in slices with their own answers, and joins them once', async () => {
    const queues = testQueues();
    const llm = stubLlm();
    const storage = stubStorage();
    const n = 7;
    const outcome = await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const shard = await startShard(queues, { taskStart: 4, taskEnd: 6, nSamples: n, samplesPerActivity: 3 });
      return shard.result();
    });
    // Answers: each task's samples in slices of about 3, each asked once.
    const answerSlices = sampleSlices(n, 1, 3).map((s) => range(s.start, s.end));
    expect(answerSlices).toEqual([range(0, 3), range(3, 6), range(6, 7)]);
    for (const t of [4, 5])
      expect(
        llm.calls
          .filter((c) => c.taskIndex === t)
          .map((c) => c.sampleIndices)
          .sort((a, b) => a[0]! - b[0]!),
      ).toEqual(answerSlices);
    expect(llm.calls).toHaveLength(2 * answerSlices.length);
    // Runs: the shard's 2 x 7 samples in slices, each with its own samples' answers of both tasks.
    const runSlices = sampleSlices(n, 2, 3);
    expect(runSlices.length).toBeGreaterThan(answerSlices.length);
    const runs = [...storage.executed].sort((a, b) => a.slice!.index - b.slice!.index);
    expect(runs.map((r) => r.slice)).toEqual(runSlices.map((s, index) => ({ index, ...s })));
    for (const r of runs) {
      const { start, end } = r.slice!;
      expect(r.execute).toBe(true);
      expect(r.generations).toMatchObject({ kind: 'llm', keys: [4, 5].map((t) => range(start, end).map((s) => `llm/${t}/${s}`)) });
    }
    // One join of every slice, whose outcome is the shard's.
    expect(storage.joined).toEqual([{ shardIndex: 0, slices: runSlices }]);
    expect(outcome.samples).toBe(2 * n);
    expect(outcome.tasks.map((t) => [t.taskIndex, t.n])).toEqual([
      [4, n],
      [5, n],
    ]);
  });

  it('within its slices per activity: one answer activity a task, one run of every sample, no join', async () => {
    const queues = testQueues();
    const llm = stubLlm();
    const storage = stubStorage();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const shard = await startShard(queues, { taskStart: 0, taskEnd: 2, nSamples: 3, samplesPerActivity: 6 });
      return shard.result();
    });
    expect(llm.calls.map((c) => c.sampleIndices)).toEqual([range(0, 3), range(0, 3)]);
    expect(storage.executed).toHaveLength(1);
    expect(storage.executed[0]).not.toHaveProperty('slice');
    expect(storage.joined).toEqual([]);
  });

  it('starts at most its windows at once: tasks, answer slices, run slices', async () => {
    const queues = testQueues();
    const answers = new Holds();
    const runs = new Holds();
    const llm = stubLlm(answers);
    const storage = stubStorage({ holds: runs });
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      // 20 one-sample tasks: the task window.
      const tasks = await startShard(queues, { taskStart: 0, taskEnd: 20, nSamples: 1 });
      await held(answers, TASK_WINDOW, 'tasks');
      expect(await scheduledActivities(tasks)).toEqual(Array(TASK_WINDOW).fill('generateDirect'));
      answers.open();
      runs.open();
      await tasks.result();
    });
    expect(llm.mostInFlight()).toBe(TASK_WINDOW);
    expect(llm.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, 20));

    const queues2 = testQueues();
    const answers2 = new Holds();
    const runs2 = new Holds();
    const llm2 = stubLlm(answers2);
    const storage2 = stubStorage({ holds: runs2 });
    await withStubWorkers(env, queues2, { activities: storage2.activities, llm: { m: llm2.activities } }, async () => {
      // One task of 20 samples, a slice each: the answer slices' window, then the run slices'.
      const shard = await startShard(queues2, { taskStart: 0, taskEnd: 1, nSamples: 20, samplesPerActivity: 1 });
      await held(answers2, ANSWER_SLICE_WINDOW, 'answer slices');
      expect(llm2.calls).toHaveLength(ANSWER_SLICE_WINDOW);
      answers2.open();
      await held(runs2, SLICE_WINDOW, 'run slices');
      expect(storage2.executed).toHaveLength(SLICE_WINDOW);
      runs2.open();
      await shard.result();
    });
    expect(llm2.mostInFlight()).toBe(ANSWER_SLICE_WINDOW);
    expect(storage2.mostInFlight()).toBe(SLICE_WINDOW);
    expect(llm2.calls.flatMap((c) => c.sampleIndices).sort((a, b) => a - b)).toEqual(range(0, 20));
    expect(storage2.executed.map((r) => r.slice!.index).sort((a, b) => a - b)).toEqual(range(0, 20));
    expect(storage2.joined).toHaveLength(1);
  });
});

describe("a shard's live progress", () => {
  it('counts each task as its answers are all in, and the answers cut at max_tokens', async () => {
    const queues = testQueues();
    const answers = new Holds();
    // Task 1's second sample and task 2's both were cut.
    const llm = stubLlm(answers, (t, s) => (t === 1 && s === 1) || t === 2);
    const storage = stubStorage();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const shard = await startShard(queues, { taskStart: 0, taskEnd: 3, nSamples: 2 });
      await held(answers, 3, 'tasks');
      expect(await shard.query(shardProgressQuery)).toMatchObject({ answered: 0, tasksAnswered: 0, cut: 0 });
      answers.release(1);
      await waitUntil(async () => (await shard.query(shardProgressQuery)).tasksAnswered === 1, {
        what: 'the first task to be answered',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      const one = await shard.query(shardProgressQuery);
      expect(one.answered).toBe(2);
      answers.open();
      await shard.result();
      expect(await shard.query(shardProgressQuery)).toMatchObject({ answered: 6, tasksAnswered: 3, cut: 3 });
    });
  });
});

describe("a shard's pause", () => {
  it('starts no task while paused, once those in flight are answered; resumed, it asks each task once', async () => {
    const queues = testQueues();
    const answers = new Holds();
    const llm = stubLlm(answers);
    const storage = stubStorage();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const shard = await startShard(queues, { taskStart: 0, taskEnd: 20, nSamples: 1 });
      await held(answers, TASK_WINDOW, 'tasks');
      await shard.signal(pauseOrderSignal, { paused: true, seq: 1 });
      answers.release();
      // The window's tasks are answered; the workflow has seen each answer and started nothing.
      await waitUntil(async () => (await shard.query(shardProgressQuery)).answered === TASK_WINDOW, {
        what: 'the window to be answered',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await scheduledActivities(shard)).toEqual(Array(TASK_WINDOW).fill('generateDirect'));
      expect(answers.held).toBe(0);
      // An older order that arrives late changes nothing.
      await shard.signal(pauseOrderSignal, { paused: false, seq: 0 });
      expect((await shard.query(shardProgressQuery)).answered).toBe(TASK_WINDOW);
      expect(await scheduledActivities(shard)).toHaveLength(TASK_WINDOW);

      await shard.signal(pauseOrderSignal, { paused: false, seq: 2 });
      answers.open();
      const outcome = await shard.result();
      expect(outcome.samples).toBe(20);
    });
    expect(llm.calls.map((c) => c.taskIndex).sort((a, b) => a - b)).toEqual(range(0, 20));
  });

  it("starts no slice of a large task's answers while paused; resumed, it asks each sample once", async () => {
    const queues = testQueues();
    const answers = new Holds();
    const llm = stubLlm(answers);
    const storage = stubStorage();
    await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const shard = await startShard(queues, { taskStart: 0, taskEnd: 1, nSamples: 20, samplesPerActivity: 1 });
      await held(answers, ANSWER_SLICE_WINDOW, 'answer slices');
      await shard.signal(pauseOrderSignal, { paused: true, seq: 1 });
      answers.release();
      await waitUntil(async () => (await shard.query(shardProgressQuery)).answered === ANSWER_SLICE_WINDOW, {
        what: 'the slices in flight to be answered',
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(await scheduledActivities(shard)).toHaveLength(ANSWER_SLICE_WINDOW);
      await shard.signal(pauseOrderSignal, { paused: false, seq: 2 });
      answers.open();
      await shard.result();
    });
    expect(llm.calls.flatMap((c) => c.sampleIndices).sort((a, b) => a - b)).toEqual(range(0, 20));
  });
});

describe("a shard's retries and spend", () => {
  it('retries a run that failed on an outage, and finishes with its outcome', async () => {
    const queues = testQueues();
    const storage = stubStorage({ failures: 1 });
    const outcome = await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: stubLlm().activities } }, async () =>
      (await startShard(queues, { taskStart: 0, taskEnd: 2, nSamples: 2 })).result(),
    );
    expect(storage.executed).toHaveLength(2);
    expect(storage.executed[1]).toEqual(storage.executed[0]);
    expect(outcome.samples).toBe(4);
  });

  it("gives its model calls the sweep's heartbeat timeout (heartbeat_timeout_s), 30 s without one", async () => {
    const queues = testQueues();
    const storage = stubStorage();
    const [plain, quick] = await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: stubLlm().activities } }, () =>
      Promise.all(
        [queues, { ...queues, llmHeartbeatTimeoutS: 12 }].map(async (q) => {
          const handle = await startShard(q, { taskStart: 0, taskEnd: 2, nSamples: 1 });
          await handle.result();
          return handle;
        }),
      ),
    );
    const llmHeartbeats = async (shard: typeof plain) =>
      ((await shard!.fetchHistory()).events ?? []).flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a?.activityType?.name === 'generateDirect' ? [Number(a.heartbeatTimeout?.seconds)] : [];
      });
    expect(DEFAULT_LLM_HEARTBEAT_TIMEOUT_S).toBe(30);
    expect(await llmHeartbeats(plain)).toEqual([30, 30]);
    expect(await llmHeartbeats(quick)).toEqual([12, 12]);
  });

  it("tells the spend ledger every task's cost once, a large task's slice by slice", async () => {
    const queues = testQueues();
    const storage = stubStorage();
    const llm = stubLlm();
    const ledgerState = await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
      const ledger = await env.client.workflow.start(spendLedgerWorkflow, {
        workflowId: `wft-ledger-${uniqueSuffix()}`,
        taskQueue: queues.workflows,
        args: [
          { sweepWorkflowId: 'nobody', prices: {}, maxHistoryEvents: 8_000, state: { spentByModel: {}, budget: null, hold: null, seq: 0 } },
        ],
      });
      // Three tasks of 5 samples in slices of 2.
      const shard = await startShard(queues, {
        taskStart: 0,
        taskEnd: 3,
        nSamples: 5,
        samplesPerActivity: 2,
        spendLedger: ledger.workflowId,
      });
      await shard.result();
      // Every signal is in the ledger's history when the shard ends; its handling may come just after.
      return waitUntil(
        async () => {
          const state = await ledger.query(spendLedgerQuery);
          return state.spentByModel.m?.calls === 15 && state;
        },
        { what: "the ledger to count the shard's 15 answers", timeoutMs: 30_000, intervalMs: 50 },
      );
    });
    const spent = ledgerState.spentByModel.m!;
    expect(spent.tasks).toBeCloseTo(3, 9);
    expect(spent.calls).toBe(15);
    expect(spent.promptTokens).toBe(15 * PROMPT_TOKENS);
    expect(spent.completionTokens).toBe(15 * COMPLETION_TOKENS);
    expect(llm.calls.length).toBeGreaterThan(3);
  });
});
