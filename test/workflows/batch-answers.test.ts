/**
 * Batch mode's workflow logic on Temporal's test environment with stub activities standing in for
 * the provider: a cell in batch mode answers its request sets in batches before its shards start;
 * requests a batch left go in a new batch up to retry_rounds, the rest to the live path;
 * live_after_s cancels a batch that takes too long and keeps what it answered; a cancelled
 * workflow cancels its batch in flight; a multi-round cell sends each round of its chains'
 * requests as one batch, and none while held.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { BatchStatus, CollectBatchInput, CollectedBatch, SubmitBatchInput, SubmittedBatch } from '../../activities/llm/batch.js';
import type { BatchEndpoint } from '../../domain/llm/batchMode.js';
import { pauseOrderSignal, pauseSignal } from '../../workflows/pauseOrders.js';
import { cellProgressQuery, sweepCellWorkflow } from '../../workflows/sweepCell.js';
import { MethodOptionsSchema } from '../../domain/methods/options.js';
import { cellWorkflowId, llmTaskQueue, sweepWorkflowId } from '../../domain/sweep/keys.js';
import type { PrepareRagBatchInput } from '../../methods/rag/activities.js';
import type { RequestSet } from '../../infra/llm/batchPlan.js';
import { batchAnswersProgressQuery, batchAnswersWorkflow, type BatchAnswersInput } from '../../workflows/batchAnswers.js';
import type { SweepInput, SweepQueues } from '../../workflows/sweepTypes.js';
import type { DatasetEntry } from '../../domain/families/registry.js';
import { sweepWorkflow } from '../../workflows/sweep.js';
import { uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { sharedWorkflowEnv } from '../support/workflow-env.js';
import { cellInput, directCell, Holds, stubLlm, stubStorage } from './stubs.js';
import { batchRoundsProgressQuery, roundChainsSignal, roundParkedSignal, roundsCloseSignal } from '../../workflows/roundSignals.js';
import { batchRoundsWorkflow, type BatchRoundsInput } from '../../workflows/batchRounds.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import { BATCH_SETTINGS, ROUND_SETTLE_MS, roundsCell, stubParking, STEP_COST, summariesOf, type Parking } from './parkingStubs.js';

// One dev server and one set of workers for every case, each case its own stubs (sharedStubWorkers).
const shared = sharedWorkflowEnv();

const SETTINGS = BATCH_SETTINGS;

const setOf = (setId: string, requests: number): RequestSet => ({ planKey: `plan/${setId}`, setId, requests, samples: requests });

/**
 * A provider in memory: a batch finishes after `pollsToFinish` polls (never: Infinity) and answers
 * `answered(set, round)` of its set's requests; the rest are left as a set of their own.
 */
function stubProvider(
  options: {
    pollsToFinish?: number;
    /** No batch completes before this says so. */
    mayFinish?: () => boolean;
    answered?: (set: RequestSet) => number;
    sets?: RequestSet[];
    /** The sets of a cell at this temperature (several cells: by their temperature). */
    setsOf?: (temperature: number) => RequestSet[];
  } = {},
) {
  const batches: Array<{ id: string; tag: string; setId: string; polls: number; status: string }> = [];
  const log: string[] = [];
  const activities = {
    async prepareDirectBatch(input: { sampling: { temperature: number } }): Promise<RequestSet[]> {
      log.push(options.setsOf ? `prepare t${input.sampling.temperature}` : 'prepare');
      return options.setsOf?.(input.sampling.temperature) ?? options.sets ?? [];
    },
    async poolRequestSets(input: { sets: RequestSet[] }): Promise<RequestSet[]> {
      const requests = input.sets.reduce((a, s) => a + s.requests, 0);
      log.push(`pool ${input.sets.map((s) => s.setId).join('+')}`);
      return [setOf(input.sets.map((s) => s.setId).join('+'), requests)];
    },
    async prepareRagBatch(input: PrepareRagBatchInput): Promise<RequestSet[]> {
      log.push(`prepare rag ${input.ref.libraryKey} tasks ${input.taskStart}-${input.taskEnd} samples ${input.nSamples}`);
      return options.sets ?? [];
    },
    async submitBatch(input: SubmitBatchInput): Promise<{ batchId: string; created: boolean }> {
      const tag = `${input.set.setId}/r${input.round}`;
      const found = batches.find((b) => b.tag === tag);
      if (found) return { batchId: found.id, created: false };
      const id = `batch_${batches.length + 1}`;
      batches.push({ id, tag, setId: input.set.setId, polls: 0, status: 'validating' });
      log.push(`submit ${input.set.setId}`);
      return { batchId: id, created: true };
    },
    async pollBatch(input: { batchId: string }): Promise<BatchStatus> {
      const b = batches.find((x) => x.id === input.batchId)!;
      b.polls++;
      if (b.status === 'cancelling') b.status = 'cancelled';
      else if (b.status === 'validating') b.status = 'in_progress';
      else if (b.status === 'in_progress' && b.polls >= (options.pollsToFinish ?? 2) && (options.mayFinish?.() ?? true))
        b.status = 'completed';
      return { batchId: b.id, status: b.status, total: 1, completed: 0, failed: 0 };
    },
    async collectBatch(input: CollectBatchInput): Promise<CollectedBatch> {
      log.push(`collect ${input.batchId}`);
      const b = batches.find((x) => x.id === input.batchId)!;
      const answered = b.status === 'cancelled' ? 0 : (options.answered?.(input.set) ?? input.set.requests);
      const leftCount = input.set.requests - answered;
      return {
        samples: answered,
        requests: answered,
        promptTokens: answered * 5,
        completionTokens: answered * 2,
        // What is left of a set nothing of which was answered is that set again (content-addressed).
        ...(leftCount > 0 ? { left: setOf(answered === 0 ? input.set.setId : `${input.set.setId}-left`, leftCount) } : {}),
      };
    },
    async cancelBatch(input: { batchId: string }): Promise<void> {
      log.push(`cancel ${input.batchId}`);
      const b = batches.find((x) => x.id === input.batchId)!;
      if (b.status === 'validating' || b.status === 'in_progress') b.status = 'cancelling';
    },
  };
  return { activities, batches, log };
}

function batchInput(queues: SweepQueues, set: RequestSet, settings: Partial<BatchEndpoint> = {}): BatchAnswersInput {
  const cell = directCell();
  return {
    sweepId: `wft-batch-${uniqueSuffix()}`,
    cellId: cell.id,
    endpoint: { ...cell.endpoint, batch: { ...SETTINGS, ...settings } },
    llmQueue: llmTaskQueue(queues.llmBase, cell.model),
    set,
    prefix: 'batches/',
  };
}

/** A batchAnswersWorkflow of `input` (its id: the input's sweep id, the key of its case's stubs). */
const startBatch = (queues: SweepQueues, input: BatchAnswersInput) =>
  shared.env.client.workflow.start(batchAnswersWorkflow, { workflowId: input.sweepId, taskQueue: queues.workflows, args: [input] });
const executeBatch = async (input: BatchAnswersInput) => (await startBatch(shared.workers.queues, input)).result();

// The cases only wait on the dev server and their stubs (each its own, by its workflow ids): all at once.
describe.concurrent('batch mode on the workflow test environment', () => {
  describe('a cell in batch mode', () => {
    it('answers its request sets in batches, each submitted once, before its first shard asks live', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ sets: [setOf('a', 3), setOf('b', 2)] });
      const llm = stubLlm();
      const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, {
        cell: { ...directCell(), endpoint: { ...directCell().endpoint, batch: SETTINGS } },
        tasks: 2,
      });
      const wrapped = {
        ...llm.activities,
        generateDirect: async (i: { taskIndex: number; sampleIndices: number[] }) => {
          provider.log.push(`live ${i.taskIndex}`);
          return llm.activities.generateDirect(i);
        },
      };
      await shared.workers.run(
        input.sweepId,
        { activities: stubStorage().activities, llm: { m: { ...provider.activities, ...wrapped } } },
        () =>
          shared.env.client.workflow.execute(sweepCellWorkflow, {
            workflowId: cellWorkflowId(input.sweepId, input.cell.id),
            taskQueue: queues.workflows,
            args: [input],
          }),
      );
      expect(provider.batches.map((b) => b.setId).sort()).toEqual(['a', 'b']);
      const firstLive = provider.log.findIndex((l) => l.startsWith('live'));
      expect(provider.log.slice(0, firstLive).sort()).toEqual(['collect batch_1', 'collect batch_2', 'prepare', 'submit a', 'submit b']);
      expect(provider.log.filter((l) => l.startsWith('live')).sort()).toEqual(['live 0', 'live 1']);
    });

    it('a rag cell answers its one round (after retrieval, in its prepare activity) in batches, then asks the rest live', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ sets: [setOf('r', 4)] });
      const llm = stubLlm();
      const cell = { ...directCell(), id: 'ds.m.rag.t0', method: 'rag' };
      const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, {
        cell: { ...cell, endpoint: { ...cell.endpoint, batch: SETTINGS } },
        libraryKey: 'lib-key',
        methodOptions: MethodOptionsSchema.parse({}),
        tasks: 2,
        nSamples: 2,
      });
      const generateRag = async (i: { ref: { taskIndex: number }; sampleIndices: number[] }) => {
        provider.log.push(`live ${i.ref.taskIndex}`);
        return llm.activities.generateDirect({ taskIndex: i.ref.taskIndex, sampleIndices: i.sampleIndices });
      };
      await shared.workers.run(
        input.sweepId,
        { activities: stubStorage().activities, llm: { m: { ...provider.activities, generateRag } } },
        () =>
          shared.env.client.workflow.execute(sweepCellWorkflow, {
            workflowId: cellWorkflowId(input.sweepId, input.cell.id),
            taskQueue: queues.workflows,
            args: [input],
          }),
      );
      const firstLive = provider.log.findIndex((l) => l.startsWith('live'));
      expect(provider.log.slice(0, firstLive)).toEqual(['prepare rag lib-key tasks 0-2 samples 2', 'submit r', 'collect batch_1']);
      expect(provider.log.filter((l) => l.startsWith('live')).sort()).toEqual(['live 0', 'live 1']);
    });

    it('a cell whose cache answers everything makes no batch', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ sets: [] });
      const input = cellInput(`wft-cell-${uniqueSuffix()}`, queues, {
        cell: { ...directCell(), endpoint: { ...directCell().endpoint, batch: SETTINGS } },
      });
      await shared.workers.run(
        input.sweepId,
        { activities: stubStorage().activities, llm: { m: { ...provider.activities, ...stubLlm().activities } } },
        () =>
          shared.env.client.workflow.execute(sweepCellWorkflow, {
            workflowId: cellWorkflowId(input.sweepId, input.cell.id),
            taskQueue: queues.workflows,
            args: [input],
          }),
      );
      expect(provider.log).toEqual(['prepare']);
    });
  });

  type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

  /** The cell's history once a workflow task has completed after the event `at` finds: what the cell did in answer to it. */
  async function historyAfter(handle: WorkflowHandle, what: string, at: (events: HistoryEvent[]) => number) {
    let events: HistoryEvent[] = [];
    await waitUntil(
      async () => {
        events = (await handle.fetchHistory()).events ?? [];
        const i = at(events);
        return i >= 0 && events.slice(i).some((e) => e.workflowTaskCompletedEventAttributes);
      },
      { what, timeoutMs: 30_000, intervalMs: 50 },
    );
    return events;
  }

  /** Where the activity of this type completed. */
  const activityCompleted = (type: string) => (events: HistoryEvent[]) => {
    const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)?.eventId;
    return scheduled == null
      ? -1
      : events.findIndex((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(scheduled));
  };
  const childrenStarted = (events: HistoryEvent[]) =>
    events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name ?? []);

  describe('a sweep gathering batches by model', () => {
    it("answers its model's cells' requests in the same batches, then starts them, and they make none of their own", async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ setsOf: (t) => [setOf(`t${t}`, 2)] });
      const llm = stubLlm();
      const cellAt = (t: number) => {
        const c = directCell();
        return {
          ...c,
          id: `ds.m.direct.t${t}`,
          temperature: t,
          sampling: { ...c.sampling, temperature: t },
          endpoint: { ...c.endpoint, batch: { ...SETTINGS, gather: 'model' as const } },
        };
      };
      const input: SweepInput = {
        sweepId: `wft-sweep-${uniqueSuffix()}`,
        configHash: 'hash',
        mode: 'full',
        datasets: [{ name: 'ds', entry: { family: 'humaneval' } as unknown as DatasetEntry, files: {}, selection: {} }],
        cells: [cellAt(0), cellAt(0.5)],
        nSamples: 1,
        k: [1],
        timeoutS: 1,
        queues,
      };
      const live = async (i: { taskIndex: number; sampleIndices: number[] }) => {
        provider.log.push('live');
        return llm.activities.generateDirect(i);
      };
      const result = await shared.workers.run(
        input.sweepId,
        { activities: stubStorage({ tasks: 2 }).activities, llm: { m: { ...provider.activities, generateDirect: live } } },
        () =>
          shared.env.client.workflow.execute(sweepWorkflow, {
            workflowId: sweepWorkflowId(input.sweepId),
            taskQueue: queues.workflows,
            args: [input],
          }),
      );
      expect(result.cells).toHaveLength(2);
      // Both cells prepared, pooled into one set, one batch; no cell prepared again; then each cell's 2 tasks live.
      const firstLive = provider.log.indexOf('live');
      expect(provider.log.slice(0, firstLive).sort()).toEqual([
        'collect batch_1',
        'pool t0+t0.5',
        'prepare t0',
        'prepare t0.5',
        'submit t0+t0.5',
      ]);
      expect(provider.log.slice(firstLive)).toEqual(['live', 'live', 'live', 'live']);
      expect(provider.batches).toHaveLength(1);
    });
  });

  describe('a paused cell in batch mode', () => {
    const batchCell = (queues: SweepQueues) =>
      cellInput(`wft-cell-${uniqueSuffix()}`, queues, {
        cell: { ...directCell(), endpoint: { ...directCell().endpoint, batch: SETTINGS } },
        tasks: 2,
      });

    it('submits no batch while paused: its requests prepared, it submits them once resumed', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ sets: [setOf('p', 2)] });
      const input = batchCell(queues);
      await shared.workers.run(
        input.sweepId,
        { activities: stubStorage().activities, llm: { m: { ...provider.activities, ...stubLlm().activities } } },
        async () => {
          const cell = await shared.env.client.workflow.signalWithStart(sweepCellWorkflow, {
            workflowId: cellWorkflowId(input.sweepId, input.cell.id),
            taskQueue: queues.workflows,
            args: [input],
            signal: pauseSignal,
            signalArgs: [],
          });
          const events = await historyAfter(cell, 'the cell to take its prepared sets', activityCompleted('prepareDirectBatch'));
          expect(childrenStarted(events)).toEqual([]);
          expect(provider.log).toEqual(['prepare']);
          expect((await cell.query(cellProgressQuery)).phase).toBe('paused');
          await cell.signal(pauseOrderSignal, { paused: false, seq: 1 });
          await cell.result();
        },
      );
      expect(provider.log.slice(0, 3)).toEqual(['prepare', 'submit p', 'collect batch_1']);
    });

    it('lets a batch already submitted finish and keeps its answers, and starts no shard until resumed', async () => {
      const { queues } = shared.workers;
      let finish = false;
      const provider = stubProvider({ sets: [setOf('q', 2)], mayFinish: () => finish });
      const llm = stubLlm();
      const input = batchCell(queues);
      await shared.workers.run(
        input.sweepId,
        { activities: stubStorage().activities, llm: { m: { ...provider.activities, ...llm.activities } } },
        async () => {
          const cell = await shared.env.client.workflow.start(sweepCellWorkflow, {
            workflowId: cellWorkflowId(input.sweepId, input.cell.id),
            taskQueue: queues.workflows,
            args: [input],
          });
          await waitUntil(() => provider.batches[0]?.status === 'in_progress', {
            what: 'the batch in progress',
            timeoutMs: 30_000,
            intervalMs: 20,
          });
          await cell.signal(pauseOrderSignal, { paused: true, seq: 1 });
          await waitUntil(async () => (await cell.query(cellProgressQuery)).phase === 'paused', {
            what: 'the cell paused',
            timeoutMs: 30_000,
            intervalMs: 20,
          });
          finish = true;
          const events = await historyAfter(cell, 'the cell to take its batch outcome', (all) =>
            all.findIndex((e) => e.childWorkflowExecutionCompletedEventAttributes),
          );
          // Polled to its end and collected, not cancelled; no shard while paused.
          expect(provider.log).toEqual(['prepare', 'submit q', 'collect batch_1']);
          expect(childrenStarted(events)).toEqual(['batchAnswersWorkflow']);
          expect(llm.calls).toEqual([]);
          await cell.signal(pauseOrderSignal, { paused: false, seq: 2 });
          await cell.result();
        },
      );
      expect(llm.calls.map((c) => c.taskIndex).sort()).toEqual([0, 1]);
    });
  });

  describe('a request set in batches', () => {
    it('sends what a batch left in a new batch, retry_rounds times, and leaves the rest to the live path', async () => {
      const { queues } = shared.workers;
      // Every batch answers all but one of its requests: 3 of 4, then none of the 1 left.
      const provider = stubProvider({ answered: (set) => set.requests - 1 });
      const input = batchInput(queues, setOf('s', 4), { retryRounds: 1 });
      const outcome = await shared.workers.run(input.sweepId, { activities: {}, llm: { m: provider.activities } }, () =>
        executeBatch(input),
      );
      expect(provider.batches.map((b) => b.setId)).toEqual(['s', 's-left']);
      expect(outcome.batches).toEqual([
        { batchId: 'batch_1', status: 'completed' },
        { batchId: 'batch_2', status: 'completed' },
      ]);
      expect(outcome).toMatchObject({ samplesAnswered: 3, samplesLeft: 1, requests: 3, promptTokens: 15, completionTokens: 6 });
    });

    it('ends its rounds when submission finds nothing to send (cached, or asked by other activities now), polling nothing', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider();
      const nothing = {
        ...provider.activities,
        async submitBatch(): Promise<SubmittedBatch> {
          provider.log.push('submit: nothing to send');
          return { batchId: null, created: false };
        },
        async pollBatch(): Promise<BatchStatus> {
          throw ApplicationFailure.nonRetryable('polled a batch that does not exist');
        },
      };
      const input = batchInput(queues, setOf('held', 2), { retryRounds: 2 });
      const outcome = await shared.workers.run(input.sweepId, { activities: {}, llm: { m: nothing } }, () => executeBatch(input));
      expect(provider.log).toEqual(['submit: nothing to send']);
      // Its samples are left to the live path, which reads or waits for them.
      expect(outcome).toMatchObject({ batches: [], samplesAnswered: 0, samplesLeft: 2 });
    });

    it('a batch that answered nothing is followed by a new batch of the same set, not found again', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ answered: () => 0 });
      const input = batchInput(queues, setOf('same', 2), { retryRounds: 2 });
      const outcome = await shared.workers.run(input.sweepId, { activities: {}, llm: { m: provider.activities } }, () =>
        executeBatch(input),
      );
      expect(provider.batches.map((b) => b.tag)).toEqual(['same/r1', 'same/r2', 'same/r3']);
      expect(outcome).toMatchObject({ samplesAnswered: 0, samplesLeft: 2 });
    });

    it('past live_after_s cancels the batch, keeps what it answered and sends no further round', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ pollsToFinish: Infinity });
      const input = batchInput(queues, setOf('slow', 2), { liveAfterS: 0.3, retryRounds: 3 });
      const outcome = await shared.workers.run(input.sweepId, { activities: {}, llm: { m: provider.activities } }, () =>
        executeBatch(input),
      );
      expect(provider.log).toEqual(['submit slow', 'cancel batch_1', 'collect batch_1']);
      expect(outcome).toMatchObject({ batches: [{ batchId: 'batch_1', status: 'cancelled' }], samplesAnswered: 0, samplesLeft: 2 });
    });

    it('cancelled, it cancels its batch in flight, and its progress shows the batch', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ pollsToFinish: Infinity });
      const input = batchInput(queues, setOf('c', 2));
      await shared.workers.run(input.sweepId, { activities: {}, llm: { m: provider.activities } }, async () => {
        const handle = await startBatch(queues, input);
        // The provider's batch in progress, and the workflow's poll having seen it (its query says so).
        await waitUntil(
          async () =>
            provider.batches[0]?.status === 'in_progress' &&
            (await handle.query(batchAnswersProgressQuery)).batches[0]?.status === 'in_progress',
          { what: 'the batch in progress', timeoutMs: 30_000, intervalMs: 20 },
        );
        const progress = await handle.query(batchAnswersProgressQuery);
        expect(progress).toMatchObject({
          round: 1,
          samples: 2,
          samplesAnswered: 0,
          batches: [{ batchId: 'batch_1', status: 'in_progress' }],
        });
        await handle.cancel();
        const failure = await handle.result().catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      });
      expect(provider.log).toEqual(['submit c', 'cancel batch_1']);
      expect(provider.batches[0]!.status).toBe('cancelling');
    });
  });

  /**
   * A self-repair cell in batch mode, its steps stubbed as the parking LLM activities behave
   * (infra/llm/parking.ts): a step asked with parkRequests whose requests are not cached fails with
   * LlmParked and their set; a batch's collect caches them. Task t's sample s passes its visible
   * run after (t + s) % 3 repairs, so with a plan of 2 subtasks (budget 2) the cell has 3 rounds.
   */
  function stubRounds(holds?: Holds) {
    const parking = stubParking();
    const { answer } = parking;
    const repairsNeeded = (t: number, s: number) => (t + s) % 3;
    const llm = {
      async planTask(input: { ref: { taskIndex: number } } & Parking) {
        answer([`plan/${input.ref.taskIndex}`], input);
        return { planKey: `plan/${input.ref.taskIndex}`, subtasks: ['a', 'b'], cost: STEP_COST };
      },
      async generateRag(input: { ref: { taskIndex: number }; sampleIndices: number[] } & Parking): Promise<LlmCallSummary[]> {
        const ids = input.sampleIndices.map((s) => `first/${input.ref.taskIndex}/${s}`);
        answer(ids, input);
        return summariesOf(ids);
      },
      async repairSample(input: { ref: { taskIndex: number }; sampleIndex: number; round: number } & Parking) {
        const id = `repair/${input.ref.taskIndex}/${input.sampleIndex}/${input.round}`;
        answer([id], input);
        return { llmKey: id, ok: true, cost: STEP_COST };
      },
      ...parking.batch,
    };
    const sandbox = {
      async runVisible(input: { taskIndex: number; llmKey: string; label: string }) {
        await holds?.pass();
        const round = Number(input.label.split('/r').pop());
        const s = Number(input.label.split('/').slice(-2)[0]);
        return { runKey: `run/${input.label}`, ok: round >= repairsNeeded(input.taskIndex, s), hasOutput: false, status: 'ok' };
      },
      async writeRepairTrace(input: { cellId: string; taskIndex: number }) {
        return `trace/${input.cellId}/${input.taskIndex}`;
      },
    };
    return { llm, sandbox, ...parking };
  }

  describe('a multi-round cell in batch mode', () => {
    it('sends each round of its chains as one batch, each request once, and none live', async () => {
      const { queues } = shared.workers;
      const rounds = stubRounds();
      const storage = stubStorage();
      // Two shards of 2 and 1 tasks at once: the round gathers the chains of both.
      const input = roundsCell('self-repair', queues, { tasks: 3, nSamples: 2, tasksPerShard: 2, maxParallelShards: 2 });
      await shared.workers.run(input.sweepId, { activities: { ...storage.activities, ...rounds.sandbox }, llm: { m: rounds.llm } }, () =>
        shared.env.client.workflow.execute(sweepCellWorkflow, {
          workflowId: cellWorkflowId(input.sweepId, input.cell.id),
          taskQueue: queues.workflows,
          args: [input],
        }),
      );
      // Round 1: 3 plans + 6 first answers; round 2: the 4 samples needing a repair; round 3: the 2 needing two.
      expect(rounds.log).toEqual([
        expect.stringMatching(/rounds\/r1\/ 9$/),
        'submit pool1',
        expect.stringMatching(/rounds\/r2\/ 4$/),
        'submit pool2',
        expect.stringMatching(/rounds\/r3\/ 2$/),
        'submit pool3',
      ]);
      expect(rounds.sentLive).toEqual([]);
      expect(new Set(rounds.batched).size).toBe(rounds.batched.length);
      expect(rounds.batched).toHaveLength(15);
      // Each shard ran its tasks' final answers: the last repair (or the first answer) of each sample.
      const keys = storage.executed.flatMap((e) => (e.generations.kind === 'llm' ? e.generations.keys.flat() : []));
      expect(keys.sort()).toEqual(['first/0/0', 'repair/0/1/1', 'repair/1/0/1', 'repair/1/1/2', 'repair/2/0/2', 'first/2/1'].sort());
    });

    it('held (paused) between two rounds, submits the next only once it goes on', async () => {
      const { queues } = shared.workers;
      const holds = new Holds();
      const rounds = stubRounds(holds);
      // One task: sample 0 passes at once, sample 1 after one repair: two rounds.
      const input = roundsCell('self-repair', queues, { nSamples: 2 });
      const cellId = cellWorkflowId(input.sweepId, input.cell.id);
      await shared.workers.run(
        input.sweepId,
        { activities: { ...stubStorage().activities, ...rounds.sandbox }, llm: { m: rounds.llm } },
        async () => {
          const handle = await shared.env.client.workflow.start(sweepCellWorkflow, {
            workflowId: cellId,
            taskQueue: queues.workflows,
            args: [input],
          });
          // Round 1 is answered: the first answers run on the examples.
          await waitUntil(() => holds.held > 0 || undefined, { what: 'the first runs', timeoutMs: 30_000, intervalMs: 20 });
          await handle.signal(pauseOrderSignal, { paused: true, seq: 1 });
          await waitUntil(async () => (await handle.query(cellProgressQuery)).phase === 'paused' || undefined, {
            what: 'the cell paused',
            timeoutMs: 30_000,
            intervalMs: 20,
          });
          holds.open();
          const collector = shared.env.client.workflow.getHandle(`${cellId}/rounds-1`);
          await waitUntil(async () => (await collector.query(batchRoundsProgressQuery)).waiting === 1 || undefined, {
            what: 'the chain waiting on its parked repair',
            timeoutMs: 30_000,
            intervalMs: 20,
          });
          // Long past the collector's settling (a collector not held would have pooled the round by now).
          await new Promise((r) => setTimeout(r, 6 * ROUND_SETTLE_MS));
          expect(rounds.log).toEqual([expect.stringMatching(/rounds\/r1\/ 3$/), 'submit pool1']);
          expect((await collector.query(batchRoundsProgressQuery)).held).toBe(true);
          await handle.signal(pauseOrderSignal, { paused: false, seq: 2 });
          await handle.result();
        },
      );
      expect(rounds.log).toEqual([
        expect.stringMatching(/rounds\/r1\/ 3$/),
        'submit pool1',
        expect.stringMatching(/rounds\/r2\/ 1$/),
        'submit pool2',
      ]);
      expect(rounds.sentLive).toEqual([]);
    });

    it('its round collector continues as new between rounds, carrying the chains it waits for and its round count', async () => {
      const { queues } = shared.workers;
      const provider = stubProvider({ pollsToFinish: 1 });
      const base = directCell();
      const workflowId = `wft-rounds-${uniqueSuffix()}`;
      const input: BatchRoundsInput = {
        sweepId: 's',
        cellId: base.id,
        endpoint: { ...base.endpoint, batch: SETTINGS },
        llmQueue: llmTaskQueue(queues.llmBase, base.model),
        workflowQueue: queues.workflows,
        prefix: 'rounds/',
        maxHistoryEvents: 5,
        settleMs: 10,
      };
      await shared.workers.run(workflowId, { activities: {}, llm: { m: provider.activities } }, async () => {
        await shared.env.client.workflow.start(batchRoundsWorkflow, { workflowId, taskQueue: queues.workflows, args: [input] });
        // Signals and queries go to the latest run of the id.
        const collector = shared.env.client.workflow.getHandle(workflowId);
        const firstRun = (await collector.describe()).runId;
        await collector.signal(roundChainsSignal, { started: ['a', 'b'] });
        await collector.signal(roundParkedSignal, { chainId: 'a', sets: [setOf('a1', 2)] });
        await collector.signal(roundParkedSignal, { chainId: 'b', sets: [setOf('b1', 1)] });
        await waitUntil(async () => (await collector.describe()).runId !== firstRun || undefined, {
          what: 'the collector continued as new after its first round',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        expect(provider.log).toEqual(['pool a1+b1', 'submit a1+b1', 'collect batch_1']);
        // b ended; a alone is every running chain of the next round.
        await collector.signal(roundChainsSignal, { ended: ['b'] });
        await collector.signal(roundParkedSignal, { chainId: 'a', sets: [setOf('a2', 1)] });
        await waitUntil(() => provider.log.includes('collect batch_2') || undefined, {
          what: 'round 2',
          timeoutMs: 30_000,
          intervalMs: 50,
        });
        await collector.signal(roundChainsSignal, { ended: ['a'] });
        await collector.signal(roundsCloseSignal);
        expect(await collector.result()).toEqual({ rounds: 2, requestsSent: 4 });
      });
      expect(provider.log.slice(3)).toEqual(['pool a2', 'submit a2', 'collect batch_2']);
    });
  });
});
