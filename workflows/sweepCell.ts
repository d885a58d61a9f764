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
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_PASS_AT_1, SA_PAUSED_FOR, SA_TOTAL } from '../domain/config/searchAttributes.js';
import { cellErrorHold, describeCellErrorHold } from '../domain/sweep/cellErrors.js';
import { cellErrorHoldQuery, cellErrorsSignal, releaseErrorHoldSignal } from './cellErrorReports.js';
import { cellShardWorkflowId, cellWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import { cellTaskSlots, nextShardWindow, shardTaskRange } from '../domain/sweep/sharding.js';
import type { ShardOutcome, ShardTotals } from '../domain/sweep/records.js';
import type { CellSummary } from '../domain/sweep/results.js';
import { storageActivities } from './activityOptions.js';
import { startChildPatiently } from './startChildPatiently.js';
import { pauseSignal, sendLegacyPause, sendPauseOrder, takePauseOrders, type SeqStore } from './pauseOrders.js';
import { shardGeneratedSignal, sweepShardWorkflow } from './sweepShard.js';
import { answerCellInBatches, answersInBatches, answersInRounds, cellBatchPrefix } from './cellBatches.js';
import { batchRoundsWorkflow } from './batchRounds.js';
import { roundsCloseSignal, roundsHoldSignal, type BatchRoundsRef } from './roundSignals.js';
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
  /** Batch mode, multi-round methods: the round collector while the shards run (its round's batches: batchRoundsProgressQuery). */
  roundCollector?: string;
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
  let phase: CellProgress['phase'] = state.paused || state.errorHold ? 'paused' : 'running';
  let summary: CellSummary | null = null;
  // The shards running now, declared before any handler can run (a query or a signal may come
  // before this run's first task ends).
  const inFlight = new Map<number, Promise<void>>();
  let batchIds: string[] = [];
  // Query state only (the live progress reads its batches): no command depends on it.
  let roundCollector: string | undefined;
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
    ...(roundCollector ? { roundCollector } : {}),
  });
  setHandler(cellProgressQuery, progress);
  // Before any handler: a signal that came before this run's first task is handled inside setHandler,
  // and its handler publishes.
  let lastPublished = -1;
  // A cell that stops on errors (domain/sweep/cellErrors.ts) holds once its shards' errors pass
  // its limit: as paused, with the reason in its progress, until released.
  const stopsOnErrors = input.errorStop !== undefined && patched('cell-error-stop');
  if (stopsOnErrors && state.errorStop === undefined) state.errorStop = input.errorStop!;
  /** Paused by the user, or held on errors: no shard or task starts. */
  const held = () => state.paused || Boolean(state.errorHold);
  // Running shards pause too (they start no more tasks).
  const shardOrders: SeqStore = { get: () => state.shardPauseSeq, set: (s) => void (state.shardPauseSeq = s) };
  /** Tells shard `i` the cell's pause state now, numbered after every earlier order (pauseOrders.ts). */
  const orderShard = (i: number) => sendPauseOrder(shardOrders, shardId(i), held());
  /** Tells the round collector (batch mode, multi-round methods) the cell's hold; null without one. */
  let holdRounds: ((held: boolean) => Promise<void>) | null = null;
  const forward = async (paused: boolean) => {
    await holdRounds?.(paused);
    if (!patched('cell-forwards-pause')) return;
    if (patched('ordered-pause')) {
      await Promise.all([...inFlight.keys()].map(orderShard));
      return;
    }
    await Promise.all([...inFlight.keys()].map((i) => sendLegacyPause(shardId(i), paused)));
  };
  const setPaused = async (paused: boolean) => {
    state.paused = paused;
    if (held() && phase === 'running') phase = 'paused';
    if (!held() && phase === 'paused') phase = 'running';
    publish(true);
    await forward(held());
  };
  takePauseOrders({ get: () => state.pauseSeq, set: (s) => void (state.pauseSeq = s) }, setPaused);
  // Samples running shards attempted, as their error reports said (the finished ones' are in samplesDone).
  const attemptedByShard = new Map<number, number>();
  setHandler(cellErrorHoldQuery, () => state.errorHold ?? null);
  setHandler(cellErrorsSignal, async (report) => {
    if (!stopsOnErrors) return;
    const count = state.errorCount ?? { errors: 0, lastError: '', samplesBase: state.samplesDone };
    count.errors += report.errors;
    count.lastError = report.message;
    state.errorCount = count;
    attemptedByShard.set(report.shardIndex, (attemptedByShard.get(report.shardIndex) ?? 0) + report.attempted);
    if (state.errorHold || !state.errorStop) return;
    let attempted = state.samplesDone - count.samplesBase;
    for (const a of attemptedByShard.values()) attempted += a;
    const hold = cellErrorHold(input.cell.id, state.errorStop, { errors: count.errors, attempted, lastError: count.lastError });
    if (!hold) return;
    state.errorHold = hold;
    state.errorHolds = { count: (state.errorHolds?.count ?? 0) + 1, last: describeCellErrorHold(hold) };
    await setPaused(state.paused);
  });
  setHandler(releaseErrorHoldSignal, async ({ stop }) => {
    if (!stopsOnErrors) return;
    // Counted from zero, with the limits of the config now (if given).
    if (stop !== undefined) state.errorStop = stop;
    delete state.errorCount;
    attemptedByShard.clear();
    if (!state.errorHold) return;
    state.errorHold = null;
    await setPaused(state.paused);
  });

  function publish(force = false) {
    const p = progress();
    setCurrentDetails(
      `**${p.phase}** cell \`${input.cell.id}\`: ${p.samplesDone}/${p.samplesTotal} samples, ` +
        `pass@1 so far ${p.passAt1SoFar === null ? '-' : p.passAt1SoFar.toFixed(3)}, ${p.calls} LLM calls, ${p.promptTokens + p.completionTokens} tokens` +
        (state.errorHold ? `\n\n${describeCellErrorHold(state.errorHold)}` : ''),
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
        // '' while it goes on: a list filter (ExploraPausedFor STARTS_WITH "errors") finds held cells.
        ...(stopsOnErrors ? [{ key: SA_PAUSED_FOR, value: state.errorHold ? describeCellErrorHold(state.errorHold) : '' }] : []),
      ]);
    }
  }
  publish(true);

  const historyIsLarge = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.maxHistoryEvents;
  // The answered tasks and cut answers of finished shards are counts for the progress query only:
  // no command depends on them, so no patched() is needed.
  const absorbAnswered = (shardIndex: number, cut: number | undefined) => {
    const range = shardTaskRange(shardIndex, input.tasksPerShard, input.tasks);
    state.tasksAnswered = (state.tasksAnswered ?? 0) + (range.end - range.start);
    state.cutAtMaxTokens = (state.cutAtMaxTokens ?? 0) + (cut ?? 0);
  };
  const absorbBatchTokens = (t: Pick<ShardOutcome, 'batchPromptTokens' | 'batchCompletionTokens'>) => {
    if (!t.batchPromptTokens && !t.batchCompletionTokens) return;
    state.batchPromptTokens = (state.batchPromptTokens ?? 0) + (t.batchPromptTokens ?? 0);
    state.batchCompletionTokens = (state.batchCompletionTokens ?? 0) + (t.batchCompletionTokens ?? 0);
  };
  const absorb = (o: ShardOutcome) => {
    absorbAnswered(o.shardIndex, o.cutAtMaxTokens);
    state.samplesDone += o.samples;
    for (const t of o.tasks) {
      if (t.n === 0) continue;
      state.tasksDone++;
      state.passSum += t.c / t.n;
    }
    state.calls += o.calls;
    state.promptTokens += o.promptTokens;
    state.completionTokens += o.completionTokens;
    absorbBatchTokens(o);
    state.sandboxRuns += o.sandboxRuns;
  };
  const absorbTotals = (t: ShardTotals) => {
    absorbAnswered(t.shardIndex, t.cutAtMaxTokens);
    state.samplesDone += t.samples;
    state.tasksDone += t.tasksDone;
    state.passSum += t.passSum;
    state.calls += t.calls;
    state.promptTokens += t.promptTokens;
    state.completionTokens += t.completionTokens;
    absorbBatchTokens(t);
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
    await answerCellInBatches(
      input,
      (ids) => void (batchIds = ids),
      // A held cell (paused, over budget, on errors) submits no batch: it waits here, its requests
      // prepared, and submits them once resumed. Batches already submitted go on (batchAnswers.ts).
      async () => {
        if (held() && patched('batch-waits-while-held')) await condition(() => !held());
      },
    );
    batchIds = [];
  }
  // Batch mode, multi-round methods: this run's shards' chains park their requests for a round
  // collector, which sends each round as a batch (batchRounds.ts). Started once this run has shards
  // to start; their chains have all ended (and it with them) before the run continues as new.
  let rounds: { ref: BatchRoundsRef; close: () => Promise<unknown> } | null = null;
  if (launched < shards && answersInRounds(input) && patched('batch-rounds')) {
    const prefix = `${cellBatchPrefix(input.sweepId, input.cell.id)}rounds/`;
    const collector = await startChildPatiently(batchRoundsWorkflow, {
      workflowId: `${cellWorkflowId(input.sweepId, input.cell.id)}/rounds-${state.run}`,
      taskQueue: input.queues.workflows,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      args: [
        {
          sweepId: input.sweepId,
          cellId: input.cell.id,
          endpoint: input.cell.endpoint,
          llmQueue: llmTaskQueue(input.queues.llmBase, input.cell.model),
          workflowQueue: input.queues.workflows,
          prefix,
          maxHistoryEvents: input.maxHistoryEvents,
          ...(input.roundSettleMs !== undefined ? { settleMs: input.roundSettleMs } : {}),
          ...(held() ? { held: true } : {}),
        },
      ],
    });
    holdRounds = (h) => collector.signal(roundsHoldSignal, { held: h });
    roundCollector = collector.workflowId;
    rounds = {
      ref: { collectorId: collector.workflowId, prefix: `${prefix}parked/` },
      close: async () => {
        await collector.signal(roundsCloseSignal);
        await collector.result();
      },
    };
  }
  // Answering and running overlap across shards (issue 45): a shard counts against maxParallelShards
  // while it generates, and its task window against the cell's task slots (domain/sweep/sharding.ts);
  // once it tells the cell its answers are in, the next shard starts while its programs run, with at
  // most 2 x maxParallelShards shards in flight in all. Loaded generations have nothing to answer.
  const overlaps = input.mode !== 'evaluate-only' && patched('cell-overlaps-shards');
  const slots = cellTaskSlots(input.cell.endpoint.concurrency, input.maxParallelShards);
  /** The task windows of the shards generating now. */
  const generating = new Map<number, number>();
  /** Counts what may let another shard start: a shard that ended, or that told it has its answers. */
  let changes = 0;
  setHandler(shardGeneratedSignal, ({ shardIndex }) => {
    if (generating.delete(shardIndex)) changes++;
  });
  const freeSlots = () => slots.pool - [...generating.values()].reduce((a, b) => a + b, 0);
  /** The next shard's task window, 0 while it must wait; null where shards do not overlap. */
  const nextWindow = (): number | null => {
    if (!overlaps) return null;
    if (generating.size >= input.maxParallelShards || inFlight.size >= 2 * input.maxParallelShards) return 0;
    const next = shardTaskRange(launched, input.tasksPerShard, input.tasks);
    return nextShardWindow(next.end - next.start, freeSlots(), slots, input.cell.endpoint.concurrency);
  };
  const mayLaunch = () => (overlaps ? nextWindow()! > 0 : inFlight.size < input.maxParallelShards);
  while (launched < shards || inFlight.size > 0) {
    while (launched < shards && mayLaunch() && !historyIsLarge() && !held()) {
      const taskWindow = nextWindow();
      const shardIndex = launched++;
      const tasks = shardTaskRange(shardIndex, input.tasksPerShard, input.tasks);
      if (taskWindow !== null) generating.set(shardIndex, taskWindow);
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
            ...(stopsOnErrors ? { reportsErrors: true as const } : {}),
            ...(taskWindow !== null ? { taskWindow, tellsGenerated: true as const } : {}),
            ...(rounds ? { batchRounds: rounds.ref } : {}),
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
          generating.delete(shardIndex);
          changes++;
          attemptedByShard.delete(shardIndex);
          absorb(o);
          publish();
        }),
      );
      // A pause that came while the shard was being started missed it: tell it now.
      if (held() && patched('forward-pause-after-start')) {
        if (patched('ordered-pause')) await orderShard(shardIndex);
        else await child.signal(pauseSignal).catch(() => undefined);
      }
      skipFinished();
    }
    if (inFlight.size === 0) {
      if (held() && launched < shards) {
        await condition(() => !held());
        continue;
      }
      break;
    }
    if (overlaps) {
      // A shard that fails fails the cell, as below.
      const seen = changes;
      const wasHeld = held();
      await Promise.race([condition(() => changes !== seen || held() !== wasHeld), ...inFlight.values()]);
    } else await Promise.race(inFlight.values());
  }
  if (rounds) {
    holdRounds = null;
    await rounds.close();
    roundCollector = undefined;
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
      // Which part of the dataset the figures are over (LiveCodeBench's window), as evaluate.ts's results say it.
      ...input.cell.scope,
      // The prompts the cell was asked with: its model's template, or the named defaults. Loaded
      // generations (evaluate-only) were asked by no one here.
      ...(input.mode === 'evaluate-only' ? {} : { prompt_template: input.cell.sampling.prompt ?? 'default' }),
      // A cell that held on errors says so in its results (docs/sweeps/cost.md#cells-that-only-fail).
      ...(state.errorHolds ? { error_holds: state.errorHolds } : {}),
    },
  });
  phase = 'done';
  publish(true);
  return summary;
}
