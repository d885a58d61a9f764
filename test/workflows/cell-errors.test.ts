/**
 * A cell that only fails stops paying (domain/sweep/cellErrors.ts), on Temporal's test environment
 * with stub activities: its shards count the samples the infrastructure failed, the cell holds once
 * they pass its limit and no task starts after that, the reason names the cell, the count and the
 * last error; released, the cell goes on and asks only what was not answered. Wrong answers are no
 * errors, and a cell started without the rule fails as before.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecuteShardInput } from '../../activities/sandbox/executeShard.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import type { CellErrorStop } from '../../domain/sweep/cellErrors.js';
import { cellShardWorkflowId, cellWorkflowId } from '../../domain/sweep/keys.js';
import { releaseErrorHoldSignal } from '../../workflows/cellErrorReports.js';
import { cellProgressQuery, sweepCellWorkflow } from '../../workflows/sweepCell.js';
import { shardProgressQuery } from '../../workflows/sweepShard.js';
import type { CellInput, SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { startWorkflowEnv, testQueues, withStubWorkers } from '../support/workflow-env.js';
import { cellInput, Holds, outcomeOf, stubStorage } from './stubs.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startWorkflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const CELL = 'ds.m.direct.t0';
const atCount = (maxErrors: number): CellErrorStop => ({ maxErrors, maxErrorFraction: null, minSamples: 20 });

function startCell(queues: SweepQueues, shape: Partial<CellInput>, sweepId = `wft-cerr-${uniqueSuffix()}`) {
  const input = cellInput(sweepId, queues, shape);
  return env.client.workflow.start(sweepCellWorkflow, {
    workflowId: cellWorkflowId(input.sweepId, input.cell.id),
    taskQueue: queues.workflows,
    args: [input],
  });
}

/**
 * The direct method's LLM activity against an endpoint that can be broken: `refuses` fails the
 * activity for good (a 404: nothing recorded), `fails` answers each sample with an error record
 * written now (`modeOf` may say otherwise for some tasks); a call waits for its task's `holdsOf`
 * first, if given. Every call is recorded.
 */
function llmEndpoint(options: { holdsOf?: (task: number) => Holds; modeOf?: (task: number, samples: number[]) => Mode | undefined } = {}) {
  const state = { mode: 'refuses' as Mode };
  const calls: number[] = [];
  const activities = {
    async generateDirect(input: { taskIndex: number; sampleIndices: number[] }): Promise<LlmCallSummary[]> {
      calls.push(input.taskIndex);
      await options.holdsOf?.(input.taskIndex).pass();
      const mode = options.modeOf?.(input.taskIndex, input.sampleIndices) ?? state.mode;
      if (mode === 'refuses')
        throw ApplicationFailure.nonRetryable('model m: http://x/v1 answered 404 (model not found)', 'LlmConfigError');
      return input.sampleIndices.map((s) => ({
        key: `llm/${input.taskIndex}/${s}`,
        status: mode === 'fails' ? ('error' as const) : ('ok' as const),
        cached: false,
        promptTokens: 7,
        completionTokens: 3,
        calls: 1,
        ...(mode === 'fails' ? { error: '400 from m: prompt too long' } : {}),
      }));
    },
  };
  return { activities, calls, state };
}

type Mode = 'refuses' | 'fails' | 'answers';

const count = (calls: number[], task: number) => calls.filter((t) => t === task).length;

// Each case has queues, stubs and ids of its own: they run at once, their waits on the server overlapping.
describe.concurrent('cell errors', () => {
  describe('a cell whose endpoint refuses every request', () => {
    it('holds after its limit, starts no task after that while the others finish, and once released asks only what failed', async () => {
      const queues = testQueues();
      const storage = stubStorage();
      // Shard 0 (tasks 0-8) meets the broken endpoint (refused); shard 1's first eight tasks (9-16)
      // are in flight meanwhile, and answered.
      const [refused, answered] = [new Holds(), new Holds()];
      const llm = llmEndpoint({ holdsOf: (t) => (t >= 9 ? answered : refused), modeOf: (t) => (t >= 9 ? 'answers' : undefined) });
      await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
        const sweepId = `wft-cerr-${uniqueSuffix()}`;
        const cell = await startCell(queues, { tasks: 18, tasksPerShard: 9, maxParallelShards: 2, errorStop: atCount(2) }, sweepId);
        await waitUntil(() => refused.held === 8 && answered.held === 8, {
          what: `both shards' windows in flight (${refused.held} + ${answered.held})`,
          timeoutMs: 30_000,
          intervalMs: 20,
        });
        // Shard 0's eight are refused (and asked again only after the release); shard 1's stay in flight.
        refused.open();
        const hold = await waitUntil(async () => (await cell.query(cellProgressQuery)).errorHold, {
          what: 'the cell to hold on errors',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect(hold).toMatchObject({ cellId: CELL, limit: 'max_errors 2' });
        expect(hold.errors).toBeGreaterThanOrEqual(2);
        expect(hold.lastError).toContain('404 (model not found)');
        expect((await cell.query(cellProgressQuery)).phase).toBe('paused');
        // The tasks in flight when it held are answered; no task starts after them.
        llm.state.mode = 'answers';
        answered.open();
        const shard1 = env.client.workflow.getHandle(cellShardWorkflowId(sweepId, CELL, 1));
        await waitUntil(async () => (await shard1.query(shardProgressQuery)).answered === 8, {
          what: "shard 1's tasks in flight answered",
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        await sleep(1_000);
        expect(count(llm.calls, 17)).toBe(0);
        expect(llm.calls.filter((t) => t < 9).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

        await cell.signal(releaseErrorHoldSignal, { stop: atCount(2) });
        await cell.result();
        const done = await cell.query(cellProgressQuery);
        expect(done).toMatchObject({ phase: 'done', errorHold: null, samplesDone: 18 });
      });
      // Each task that failed is asked once more; the others once.
      for (let t = 0; t < 18; t++) expect(count(llm.calls, t), `task ${t}`).toBe(t < 8 ? 2 : 1);
      expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual([0, 1]);
    });
  });

  describe('a cell whose endpoint fails every request with an error recorded as the answer', () => {
    it('holds after its limit with no task started after it; released, it goes on and asks no answered task again', async () => {
      const queues = testQueues();
      const storage = stubStorage();
      const llm = llmEndpoint();
      llm.state.mode = 'fails';
      await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
        const cell = await startCell(queues, { tasks: 20, tasksPerShard: 20, maxParallelShards: 1, errorStop: atCount(3) });
        const hold = await waitUntil(async () => (await cell.query(cellProgressQuery)).errorHold, {
          what: 'the cell to hold on errors',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect(hold).toMatchObject({ cellId: CELL, limit: 'max_errors 3', lastError: '400 from m: prompt too long' });
        const shard = env.client.workflow.getHandle((await cell.query(cellProgressQuery)).runningShards[0]!);
        // The first window's eight tasks were in flight; a lane that ended before the third error
        // could start one more task, none after it: at most 8 + 2 tasks asked, all answered, then nothing.
        await waitUntil(async () => (await shard.query(shardProgressQuery)).answered === llm.calls.length, {
          what: 'the tasks in flight answered',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        const asked = llm.calls.length;
        await sleep(1_000);
        expect(llm.calls).toHaveLength(asked);
        expect(asked).toBeGreaterThanOrEqual(8);
        expect(asked).toBeLessThanOrEqual(10);

        llm.state.mode = 'answers';
        await cell.signal(releaseErrorHoldSignal, { stop: atCount(3) });
        await cell.result();
      });
      // Errors recorded as answers are answers: nothing is asked twice.
      expect(llm.calls.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('counts no wrong answer: a cell whose every program fails its tests never holds', async () => {
      const queues = testQueues();
      const storage = stubStorage();
      const failing = {
        ...storage.activities,
        async executeShard(input: ExecuteShardInput) {
          storage.executed.push(input);
          const o = outcomeOf(input);
          return { ...o, tasks: o.tasks.map((t) => ({ ...t, c: 0, s: 0 })) };
        },
      };
      const llm = llmEndpoint();
      llm.state.mode = 'answers';
      await withStubWorkers(env, queues, { activities: failing, llm: { m: llm.activities } }, async () => {
        const cell = await startCell(queues, { tasks: 6, tasksPerShard: 2, maxParallelShards: 2, errorStop: atCount(1) });
        await cell.result();
        expect(await cell.query(cellProgressQuery)).toMatchObject({ phase: 'done', passSum: 0 });
        expect((await cell.query(cellProgressQuery)).errorHold ?? null).toBeNull();
      });
    });
  });

  describe("a large task's slices", () => {
    it('are counted once when one of them was refused and the task asked again', async () => {
      const queues = testQueues();
      const storage = stubStorage();
      // Samples 2-3 (the second slice) are refused until the release; samples 0-1 are answered both times.
      let refusing = true;
      const llm = llmEndpoint({ modeOf: (_task, samples) => (refusing && samples[0] === 2 ? 'refuses' : 'answers') });
      await withStubWorkers(env, queues, { activities: storage.activities, llm: { m: llm.activities } }, async () => {
        const sweepId = `wft-cerr-${uniqueSuffix()}`;
        const cell = await startCell(queues, { tasks: 1, nSamples: 4, samplesPerActivity: 2, errorStop: atCount(1) }, sweepId);
        await waitUntil(async () => (await cell.query(cellProgressQuery)).errorHold, {
          what: 'the cell to hold on errors',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        refusing = false;
        await cell.signal(releaseErrorHoldSignal, {});
        await cell.result();
        const shard = await env.client.workflow.getHandle(cellShardWorkflowId(sweepId, CELL, 0)).query(shardProgressQuery);
        // Both slices asked twice; each answer counted once.
        expect(llm.calls).toHaveLength(4);
        expect(shard).toMatchObject({ answered: 4, calls: 4, promptTokens: 28, completionTokens: 12 });
      });
    });
  });

  describe('a cell whose sandbox lacks a toolchain', () => {
    it("holds on the shard's run failing for a setup reason, and once released runs it again", async () => {
      const queues = testQueues();
      const storage = stubStorage();
      let missing = true;
      const sandbox = {
        ...storage.activities,
        async executeShard(input: ExecuteShardInput) {
          storage.executed.push(input);
          if (missing) throw ApplicationFailure.nonRetryable('no toolchain for go: run scripts/install-toolchains.sh', 'ToolchainMissing');
          return outcomeOf(input);
        },
      };
      const llm = llmEndpoint();
      llm.state.mode = 'answers';
      await withStubWorkers(env, queues, { activities: sandbox, llm: { m: llm.activities } }, async () => {
        const cell = await startCell(queues, { tasks: 4, nSamples: 2, tasksPerShard: 2, maxParallelShards: 1, errorStop: atCount(4) });
        const hold = await waitUntil(async () => (await cell.query(cellProgressQuery)).errorHold, {
          what: 'the cell to hold on errors',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect(hold).toMatchObject({ errors: 4, attempted: 8, lastError: 'no toolchain for go: run scripts/install-toolchains.sh' });
        // Held: the second shard runs nothing (it may have answered its tasks while the first ran).
        expect(storage.executed.map((e) => e.shardIndex)).toEqual([0]);
        missing = false;
        await cell.signal(releaseErrorHoldSignal, { stop: atCount(4) });
        await cell.result();
      });
      expect(storage.executed.map((e) => e.shardIndex).sort()).toEqual([0, 0, 1]);
      expect(llm.calls.sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
    });
  });

  describe('a cell started without the rule (before it existed, or stop_cell_on_errors: false)', () => {
    it('fails on a request the endpoint refuses, as before', async () => {
      const queues = testQueues();
      const llm = llmEndpoint();
      await withStubWorkers(env, queues, { activities: stubStorage().activities, llm: { m: llm.activities } }, async () => {
        const cell = await startCell(queues, { tasks: 2, tasksPerShard: 2 });
        const failure = await cell.result().catch((err: unknown) => err);
        expect(failure).toBeInstanceOf(WorkflowFailedError);
      });
      expect(llm.calls.length).toBeGreaterThanOrEqual(1);
    });
  });
});
