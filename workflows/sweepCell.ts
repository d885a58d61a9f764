/**
 * One cell of a sweep (dataset x model x method x temperature): its tasks in shards, each a child
 * workflow with a deterministic id, a bounded number at once; pause and resume by signal; progress
 * in search attributes, current details and a query; continue-as-new before history grows; finally
 * the cell's results files.
 */
import {
  condition,
  continueAsNew,
  defineQuery,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  ParentClosePolicy,
} from '@temporalio/workflow';
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_PASS_AT_1, SA_TOTAL } from '../domain/config/searchAttributes.js';
import { cellShardWorkflowId } from '../domain/sweep/keys.js';
import { shardTaskRange } from '../domain/sweep/sharding.js';
import type { ShardOutcome, ShardTotals } from '../domain/sweep/records.js';
import type { CellSummary } from '../domain/sweep/results.js';
import { storageActivities } from './activityOptions.js';
import { startChildPatiently } from './startChildPatiently.js';
import { pauseSignal, sendLegacyPause, sendPauseOrder, takePauseOrders, type SeqStore } from './pauseOrders.js';
import { sweepShardWorkflow } from './sweepShard.js';
import { answerCellInBatches, answersInBatches } from './cellBatches.js';
import type { CellInput, CellProgressState } from './sweepTypes.js';

export { pauseSignal, resumeSignal } from './pauseOrders.js';

export interface CellProgress extends CellProgressState {
  cellId: string;
  phase: 'running' | 'paused' | 'finalizing' | 'done';
  shards: number;
  samplesTotal: number;
  tasksTotal: number;
  passAt1SoFar: number | null;
  summary: CellSummary | null;
  /** Workflow ids of the shards running now (their own progress: shardProgressQuery). */
  runningShards: string[];
  /** Batch mode: the workflow ids of the cell's batches while it waits for them (their progress: batchAnswersProgressQuery). */
  batches?: string[];
}
export const cellProgressQuery = defineQuery<CellProgress>('progress');

export async function sweepCellWorkflow(input: CellInput): Promise<CellSummary> {
  const shards = Math.ceil(input.tasks / input.tasksPerShard);
  const state: CellProgressState = input.resume ?? {
    nextShard: 0,
    samplesDone: 0,
    tasksDone: 0,
    passSum: 0,
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    sandboxRuns: 0,
    startedAtMs: Date.now(),
    paused: false,
    run: 1,
  };
  let phase: CellProgress['phase'] = state.paused ? 'paused' : 'running';
  let summary: CellSummary | null = null;
  // The shards running now, declared before any handler can run (a query or a signal may come
  // before this run's first task ends).
  const inFlight = new Map<number, Promise<void>>();
  let batchIds: string[] = [];
  const shardId = (i: number) => cellShardWorkflowId(input.sweepId, input.cell.id, i);
  const progress = (): CellProgress => ({
    ...state,
    cellId: input.cell.id,
    phase,
    shards,
    samplesTotal: input.tasks * input.nSamples,
    tasksTotal: input.tasks,
    passAt1SoFar: state.tasksDone ? state.passSum / state.tasksDone : null,
    summary,
    runningShards: [...inFlight.keys()].map(shardId),
    ...(batchIds.length > 0 ? { batches: batchIds } : {}),
  });
  setHandler(cellProgressQuery, progress);
  // Before any handler: a signal that came before this run's first task is handled inside setHandler,
  // and its handler publishes.
  let lastPublished = -1;
  // Running shards pause too (they start no more tasks).
  const shardOrders: SeqStore = { get: () => state.shardPauseSeq, set: (s) => void (state.shardPauseSeq = s) };
  /** Tells shard `i` the cell's pause state now, numbered after every earlier order (pauseOrders.ts). */
  const orderShard = (i: number) => sendPauseOrder(shardOrders, shardId(i), state.paused);
  const forward = async (paused: boolean) => {
    if (!patched('cell-forwards-pause')) return;
    if (patched('ordered-pause')) {
      await Promise.all([...inFlight.keys()].map(orderShard));
      return;
    }
    await Promise.all([...inFlight.keys()].map((i) => sendLegacyPause(shardId(i), paused)));
  };
  const setPaused = async (paused: boolean) => {
    state.paused = paused;
    if (paused && phase === 'running') phase = 'paused';
    if (!paused && phase === 'paused') phase = 'running';
    publish(true);
    await forward(paused);
  };
  takePauseOrders({ get: () => state.pauseSeq, set: (s) => void (state.pauseSeq = s) }, setPaused);

  function publish(force = false) {
    const p = progress();
    setCurrentDetails(
      `**${p.phase}** cell \`${input.cell.id}\`: ${p.samplesDone}/${p.samplesTotal} samples, ` +
        `pass@1 so far ${p.passAt1SoFar === null ? '-' : p.passAt1SoFar.toFixed(3)}, ${p.calls} LLM calls, ${p.promptTokens + p.completionTokens} tokens`,
    );
    const now = Date.now();
    if (force || now - lastPublished >= 1000) {
      lastPublished = now;
      upsertSearchAttributes([
        { key: SA_KIND, value: 'cell' },
        { key: SA_NAME, value: input.sweepId },
        { key: SA_CELL, value: input.cell.id },
        { key: SA_DONE, value: p.samplesDone },
        { key: SA_TOTAL, value: p.samplesTotal },
        { key: SA_PASS_AT_1, value: p.passAt1SoFar ?? 0 },
      ]);
    }
  }
  publish(true);

  const historyIsLarge = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.maxHistoryEvents;
  const absorb = (o: ShardOutcome) => {
    state.samplesDone += o.samples;
    for (const t of o.tasks) {
      if (t.n === 0) continue;
      state.tasksDone++;
      state.passSum += t.c / t.n;
    }
    state.calls += o.calls;
    state.promptTokens += o.promptTokens;
    state.completionTokens += o.completionTokens;
    state.sandboxRuns += o.sandboxRuns;
  };
  const absorbTotals = (t: ShardTotals) => {
    state.samplesDone += t.samples;
    state.tasksDone += t.tasksDone;
    state.passSum += t.passSum;
    state.calls += t.calls;
    state.promptTokens += t.promptTokens;
    state.completionTokens += t.completionTokens;
    state.sandboxRuns += t.sandboxRuns;
  };
  // Shards an earlier run of this cell finished (a failed or terminated sweep started again) keep
  // their records: they are not started again, only counted.
  const finished = new Map<number, ShardTotals>();
  if (state.nextShard < shards && patched('keep-finished-shards')) {
    const stored = await storageActivities(input.queues.storage).finishedShards({
      sweepId: input.sweepId,
      cellId: input.cell.id,
      from: state.nextShard,
      shards,
      execute: input.mode !== 'generation-only',
      // A stored shard is kept only if it holds this sharding's tasks (an earlier run may have sharded otherwise).
      sharding: { tasksPerShard: input.tasksPerShard, tasks: input.tasks, nSamples: input.nSamples },
    });
    for (const t of stored) finished.set(t.shardIndex, t);
  }
  // Shards below nextShard were finished by earlier runs; nextShard only advances when a shard is
  // launched (or found finished), so in-flight ones are drained before continuing as new.
  let launched = state.nextShard;
  const skipFinished = () => {
    while (launched < shards && finished.has(launched)) absorbTotals(finished.get(launched++)!);
  };
  skipFinished();
  if (finished.size) publish(true);
  // Batch mode: the cell's requests go to the provider's Batch API before its shards ask live (cellBatches.ts).
  if (input.resume === undefined && launched < shards && answersInBatches(input) && patched('cell-batch-answers')) {
    await answerCellInBatches(input, (ids) => void (batchIds = ids));
    batchIds = [];
  }
  while (launched < shards || inFlight.size > 0) {
    while (inFlight.size < input.maxParallelShards && launched < shards && !historyIsLarge() && !state.paused) {
      const shardIndex = launched++;
      const tasks = shardTaskRange(shardIndex, input.tasksPerShard, input.tasks);
      const child = await startChildPatiently(sweepShardWorkflow, {
        workflowId: cellShardWorkflowId(input.sweepId, input.cell.id, shardIndex),
        taskQueue: input.queues.workflows,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        args: [
          {
            sweepId: input.sweepId,
            cell: input.cell,
            mode: input.mode,
            datasetKey: input.datasetKey,
            ...(input.savedGenerationsKey ? { savedGenerationsKey: input.savedGenerationsKey } : {}),
            ...(input.libraryKey ? { libraryKey: input.libraryKey } : {}),
            ...(input.methodOptions ? { methodOptions: input.methodOptions } : {}),
            ...(input.spendLedger ? { spendLedger: input.spendLedger } : input.reportsSpend ? { reportsSpend: true as const } : {}),
            shardIndex,
            taskStart: tasks.start,
            taskEnd: tasks.end,
            nSamples: input.nSamples,
            ...(input.samplesPerActivity !== undefined ? { samplesPerActivity: input.samplesPerActivity } : {}),
            timeoutS: input.timeoutS,
            queues: input.queues,
          },
        ],
      });
      inFlight.set(
        shardIndex,
        child.result().then((o) => {
          inFlight.delete(shardIndex);
          absorb(o);
          publish();
        }),
      );
      // A pause that came while the shard was being started missed it: tell it now.
      if (state.paused && patched('forward-pause-after-start')) {
        if (patched('ordered-pause')) await orderShard(shardIndex);
        else await child.signal(pauseSignal).catch(() => undefined);
      }
      skipFinished();
    }
    if (inFlight.size === 0) {
      if (state.paused && launched < shards) {
        await condition(() => !state.paused);
        continue;
      }
      break;
    }
    await Promise.race(inFlight.values());
  }
  state.nextShard = launched;
  if (launched < shards) {
    publish(true);
    await continueAsNew<typeof sweepCellWorkflow>({ ...input, resume: { ...state, run: state.run + 1 } });
  }

  phase = 'finalizing';
  publish(true);
  summary = await storageActivities(input.queues.storage).finalizeCell({
    sweepId: input.sweepId,
    cellId: input.cell.id,
    datasetKey: input.datasetKey,
    nSamples: input.nSamples,
    k: input.k,
    shards,
    wallSeconds: (Date.now() - state.startedAtMs) / 1000,
    cell: {
      cell: input.cell.id,
      dataset: input.cell.dataset,
      model: input.cell.model,
      method: input.cell.method,
      temperature: input.cell.temperature,
      n_samples: input.nSamples,
      ...(input.cell.prompt === undefined ? {} : { prompt: input.cell.prompt }),
      // The prompts the cell was asked with: its model's template, or the named defaults. Loaded
      // generations (evaluate-only) were asked by no one here.
      ...(input.mode === 'evaluate-only' ? {} : { prompt_template: input.cell.sampling.prompt ?? 'default' }),
    },
  });
  phase = 'done';
  publish(true);
  return summary;
}
