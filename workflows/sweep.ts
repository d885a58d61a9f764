/**
 * A sweep: prepare its datasets (PBE World ones through the dataset workflow), then run every cell
 * of the grid as a child workflow with a deterministic id, a bounded number at once, and write the
 * sweep's results. Pause and resume are forwarded to the running cells.
 */
import {
  condition,
  defineQuery,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  ParentClosePolicy,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { SA_KIND, SA_NAME, SA_DONE, SA_TOTAL, SA_PAUSED_FOR } from '../domain/config/searchAttributes.js';
import {
  addSpend,
  batchSpend,
  budgetHold,
  describeHold,
  holdChanges,
  NO_SPEND,
  type Spend,
  type SweepBudgets,
} from '../domain/sweep/budget.js';
import type { ModelPrice } from '../domain/sweep/price.js';
import { datasetWorkflowId, DEFAULT_SHARD_SIZE } from '../domain/datasets/layout.js';
import { cellWorkflowId, spendLedgerWorkflowId, sweepWorkflowId } from '../domain/sweep/keys.js';
import { nextStartableCell, sharedRequestFamilies } from '../domain/sweep/sharing.js';
import { tasksPerShard } from '../domain/sweep/sharding.js';
import type { CellSummary } from '../domain/sweep/results.js';
import { storageActivities } from './activityOptions.js';
import { startChildPatiently } from './startChildPatiently.js';
import { generateDatasetWorkflow } from './generateDataset.js';
import type { CellBatchScope } from './cellBatches.js';
import { answerModelInBatches, gatheredByModel } from './modelBatches.js';
import { localSeq, pauseSignal, resumeSignal, sendLegacyPause, sendPauseOrder } from './pauseOrders.js';
import { sweepCellWorkflow } from './sweepCell.js';
import { budgetHoldSignal, closeLedgerSignal, setBudgetSignal, spendSignal } from './spendReports.js';
import { spendLedgerWorkflow } from './spendLedger.js';
import type { SweepInput } from './sweepTypes.js';

/** The user's pause and resume of a whole sweep (scripts/sweep-status.ts --pause / --resume). */
export { pauseSignal as sweepPauseSignal, resumeSignal as sweepResumeSignal } from './pauseOrders.js';
/** Replaces a sweep's spend caps (null lifts them): raising a cap the sweep is held at resumes it. */
export { setBudgetSignal as sweepSetBudgetSignal } from './spendReports.js';

export interface SweepProgress {
  sweepId: string;
  phase: 'datasets' | 'cells' | 'finalizing' | 'done';
  paused: boolean;
  /**
   * Why it is paused: 'user' (sweep-status --pause), or the budget it reached (describeHold); null
   * while it runs. Absent from sweeps started before budgets.
   */
  pausedFor?: string | null;
  /** What each model's answers cost so far, as the shards reported it (budgets count it). */
  spentByModel?: Record<string, Spend>;
  budget?: SweepBudgets | null;
  /** True when its shards report each task's cost (it started with a budget): only then do budgets hold it. */
  countsSpend?: boolean;
  /**
   * The workflow that counts the spend (workflows/spendLedger.ts) once the sweep has started it;
   * absent from sweeps that count it themselves (started before the ledger) or count none. While
   * it runs, `spentByModel` here is what finished cells cost, and the ledger's `ledger` query has
   * the live sum; at the end it is the ledger's final sum.
   */
  spendLedger?: string;
  prices?: Record<string, ModelPrice>;
  cells: Array<{
    id: string;
    workflowId: string;
    state: 'pending' | 'running' | 'done';
    summary: CellSummary | null;
    /** The cell's model id (absent from sweeps started before budgets). */
    model?: string;
    /** Its samples, once its dataset is prepared (null before). */
    samplesTotal?: number | null;
  }>;
  resultsKey: string | null;
  reportKey: string | null;
  /** Batch mode gathered by model: the workflow ids of the batches the sweep waits for now (their progress: batchAnswersProgressQuery). */
  batches?: string[];
}
export const sweepProgressQuery = defineQuery<SweepProgress>('progress');

export interface SweepResult {
  sweepId: string;
  resultsKey: string;
  reportKey: string;
  cells: CellSummary[];
}

export async function sweepWorkflow(input: SweepInput): Promise<SweepResult> {
  const storage = storageActivities(input.queues.storage);
  const progress: SweepProgress = {
    sweepId: input.sweepId,
    phase: 'datasets',
    paused: false,
    cells: input.cells.map((c) => ({
      id: c.id,
      workflowId: cellWorkflowId(input.sweepId, c.id),
      state: 'pending',
      summary: null,
      model: c.model,
      samplesTotal: null,
    })),
    resultsKey: null,
    reportKey: null,
  };
  setHandler(sweepProgressQuery, () => progress);
  // Budgets (domain/sweep/budget.ts): the shards report each task's cost here, so the sum is one
  // whatever the number of workers; the sweep holds (pauses) when the next task would pass a cap.
  const budgeting = patched('sweep-budget');
  let userPaused = false;
  let hold: ReturnType<typeof budgetHold> = null;
  if (budgeting) {
    progress.pausedFor = null;
    progress.spentByModel = {};
    progress.budget = input.budget ?? null;
    progress.countsSpend = input.budget !== undefined;
    if (input.prices) progress.prices = input.prices;
  }
  const pausedFor = () => (hold ? describeHold(hold) : userPaused ? 'user' : null);
  const publish = () => {
    const done = progress.cells.filter((c) => c.state === 'done').length;
    setCurrentDetails(
      `**${progress.phase}${progress.paused ? ' (paused)' : ''}** sweep \`${input.sweepId}\`: ${done}/${progress.cells.length} cells done` +
        (budgeting && progress.pausedFor ? `\n\npaused for ${progress.pausedFor}` : ''),
    );
    upsertSearchAttributes([
      { key: SA_KIND, value: 'sweep' },
      { key: SA_NAME, value: input.sweepId },
      { key: SA_DONE, value: done },
      { key: SA_TOTAL, value: progress.cells.length },
      // '' while running: a Web UI column, and a list filter (ExploraPausedFor STARTS_WITH "budget").
      ...(budgeting ? [{ key: SA_PAUSED_FOR, value: progress.pausedFor ?? '' }] : []),
    ]);
  };
  // Pause orders to cells are numbered (sweepTypes.ts): a pause and a resume sent at once may
  // reach a cell in either order. Numbered from the run's start time (ms), so that the orders of
  // a later run (a reset) are newer than any a cell saw from an earlier one.
  const cellOrders = localSeq(Date.now());
  const orderCell = (workflowId: string) => sendPauseOrder(cellOrders, workflowId, progress.paused);
  const forward = async (paused: boolean) => {
    const running = progress.cells.filter((c) => c.state === 'running');
    if (patched('ordered-pause')) {
      await Promise.all(running.map((c) => orderCell(c.workflowId)));
      return;
    }
    await Promise.all(running.map((c) => sendLegacyPause(c.workflowId, paused)));
  };
  const setPaused = async (paused: boolean) => {
    if (!budgeting) {
      progress.paused = paused;
      publish();
      await forward(paused);
      return;
    }
    userPaused = paused;
    await applyPause();
  };
  /** The sweep is paused while the user or a budget holds it; forwarded to the cells on every change of either. */
  const applyPause = async () => {
    progress.paused = userPaused || hold !== null;
    progress.pausedFor = pausedFor();
    publish();
    await forward(progress.paused);
  };
  /**
   * Holds when a cap is reached, lets go when none is. The reason stays as it was when the hold
   * began (what was spent then), unless the caps change while it holds.
   */
  const reconsiderBudget = async (capsChanged: boolean) => {
    const next = progress.budget ? budgetHold(progress.budget, progress.spentByModel ?? {}, input.prices ?? {}) : null;
    if (!holdChanges(hold, next, capsChanged)) return;
    hold = next;
    await applyPause();
  };
  // Sweeps started before the ledger count the spend here, from their shards' signals.
  setHandler(spendSignal, async (spend) => {
    if (!budgeting) return;
    const spent = progress.spentByModel!;
    spent[spend.model] = addSpend(spent[spend.model] ?? NO_SPEND, { ...spend, tasks: spend.tasks ?? 1 });
    await reconsiderBudget(false);
  });
  // Once started, the ledger (a child) counts the spend and decides; the sweep passes the caps on
  // and applies the ledger's verdicts, the newest one only.
  let ledger: ChildWorkflowHandle<typeof spendLedgerWorkflow> | null = null;
  let lastVerdict = 0;
  setHandler(setBudgetSignal, async (budget) => {
    if (!budgeting) return;
    progress.budget = budget;
    if (ledger) await ledger.signal(setBudgetSignal, budget);
    else await reconsiderBudget(true);
  });
  setHandler(budgetHoldSignal, async (verdict) => {
    if (verdict.seq <= lastVerdict) return;
    lastVerdict = verdict.seq;
    hold = verdict.hold;
    await applyPause();
  });
  setHandler(pauseSignal, () => setPaused(true));
  setHandler(resumeSignal, () => setPaused(false));
  publish();

  // Datasets: each to the sweep's normalized problems in S3.
  const prepared = new Map<string, { key: string; tasks: number; libraryKey?: string }>();
  for (const ds of input.datasets) {
    let generated: string | undefined;
    if (ds.entry.family === 'pbe-world') {
      generated = `sweep.${input.sweepId}.${ds.name}`.slice(0, 100);
      const dataset = await startChildPatiently(generateDatasetWorkflow, {
        workflowId: datasetWorkflowId(generated),
        taskQueue: input.queues.workflows,
        args: [{ name: generated, params: ds.entry.pbe_world, shardSize: DEFAULT_SHARD_SIZE, storageTaskQueue: input.queues.storage }],
      });
      await dataset.result();
    }
    prepared.set(
      ds.name,
      await storage.prepareSweepDataset({
        sweepId: input.sweepId,
        dataset: ds.name,
        entry: ds.entry,
        files: ds.files,
        ...(generated !== undefined ? { generated } : {}),
        selection: ds.selection,
      }),
    );
  }

  for (const [i, entry] of progress.cells.entries())
    entry.samplesTotal = (prepared.get(input.cells[i]!.dataset)?.tasks ?? 0) * input.nSamples;
  progress.phase = 'cells';
  publish();
  const maxParallel = input.maxParallelCells ?? 4;
  const running = new Set<Promise<void>>();
  // Cells that would send the same LLM requests run one after another (see sharing.ts): the later
  // ones then find every shared answer in the cache. Evaluate-only sends no requests.
  const keepApart = input.mode !== 'evaluate-only' && patched('cells-sharing-requests-apart');
  const families = input.cells.map((c) => (keepApart ? sharedRequestFamilies(c) : []));
  const held = new Set<string>();
  // Cells an earlier run of this sweep finished (a failed or terminated sweep started again) keep
  // their stored results: they are not run again, so nothing of theirs is rewritten.
  const kept: Record<string, CellSummary> = patched('keep-finished-cells')
    ? await storage.finishedCells({ sweepId: input.sweepId, cellIds: input.cells.map((c) => c.id), mode: input.mode })
    : {};
  for (const [i, entry] of progress.cells.entries()) {
    const summary = kept[entry.id];
    if (!summary) continue;
    entry.state = 'done';
    entry.summary = summary;
    // What finished cells cost counts against the budgets as if their shards had reported it.
    if (budgeting) {
      const model = input.cells[i]!.model;
      const { calls, promptTokens, completionTokens } = summary.cost;
      progress.spentByModel![model] = addSpend(progress.spentByModel![model] ?? NO_SPEND, {
        calls,
        promptTokens,
        completionTokens,
        ...batchSpend(summary.cost.batchPromptTokens ?? 0, summary.cost.batchCompletionTokens ?? 0),
        tasks: summary.tasks,
      });
    }
  }
  // A budgeted sweep's spend is counted by its ledger, whose history continues as new: one signal
  // per task here would make this history (which cannot) grow with the sweep's tasks.
  if (budgeting && input.budget !== undefined && patched('spend-ledger')) {
    // Caps the user set before this point (set-budget during the datasets) are progress.budget.
    const state = { spentByModel: progress.spentByModel ?? {}, budget: progress.budget ?? null, hold: null, seq: 0 };
    ledger = await startChildPatiently(spendLedgerWorkflow, {
      workflowId: spendLedgerWorkflowId(input.sweepId),
      taskQueue: input.queues.workflows,
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      args: [
        {
          sweepWorkflowId: sweepWorkflowId(input.sweepId),
          prices: input.prices ?? {},
          maxHistoryEvents: input.maxHistoryEvents ?? 8_000,
          state,
        },
      ],
    });
    progress.spendLedger = ledger.workflowId;
  } else if (budgeting && Object.keys(kept).length) await reconsiderBudget(false);
  if (Object.keys(kept).length) publish();
  const pending = input.cells.map((_, i) => i).filter((i) => !kept[input.cells[i]!.id]);
  // Batch mode gathered by model (modelBatches.ts): the batches of each such model's pending cells
  // run first; its cells wait for them, the other cells start meanwhile.
  const cellScope = (i: number): CellBatchScope => {
    const cell = input.cells[i]!;
    const data = prepared.get(cell.dataset)!;
    return {
      sweepId: input.sweepId,
      cell,
      datasetKey: data.key,
      ...(data.libraryKey ? { libraryKey: data.libraryKey } : {}),
      ...(input.methodOptions ? { methodOptions: input.methodOptions } : {}),
      tasks: data.tasks,
      nSamples: input.nSamples,
      queues: input.queues,
    };
  };
  const gathered = new Set(pending.filter((i) => gatheredByModel(input.cells[i]!, input.mode)));
  const waitingModels = new Set<string>();
  const phases = new Set<Promise<void>>();
  // A model's batch phase that failed fails the sweep (as a failed cell does) once the loop looks:
  // its cells do not go live at the full price instead.
  const phaseFailure: { error?: Error } = {};
  if (gathered.size > 0 && patched('model-gathered-batches')) {
    const byModel = new Map<string, number[]>();
    for (const i of gathered) byModel.set(input.cells[i]!.model, [...(byModel.get(input.cells[i]!.model) ?? []), i]);
    const batchIds = new Map<string, string[]>();
    for (const [model, cells] of byModel) {
      waitingModels.add(model);
      const phase: Promise<void> = answerModelInBatches(
        cells.map(cellScope),
        (ids) => {
          batchIds.set(model, ids);
          progress.batches = [...batchIds.values()].flat();
        },
        () => condition(() => !progress.paused),
      ).then(
        () => {
          waitingModels.delete(model);
          batchIds.delete(model);
          progress.batches = [...batchIds.values()].flat();
          phases.delete(phase);
        },
        (err: unknown) => {
          phaseFailure.error ??= err instanceof Error ? err : new Error(String(err));
          phases.delete(phase);
        },
      );
      phases.add(phase);
    }
  } else gathered.clear();
  const waitsForBatches = (i: number) => gathered.has(i) && waitingModels.has(input.cells[i]!.model);
  while (pending.length > 0) {
    const next = running.size < maxParallel ? nextStartableCell(pending, families, held, waitsForBatches) : -1;
    if (phaseFailure.error) throw phaseFailure.error;
    if (next < 0) {
      await Promise.race([...running, ...phases]);
      continue;
    }
    await condition(() => !progress.paused);
    const [i] = pending.splice(next, 1) as [number];
    const cell = input.cells[i]!;
    for (const f of families[i]!) held.add(f);
    const ds = input.datasets.find((d) => d.name === cell.dataset)!;
    const data = prepared.get(cell.dataset)!;
    const entry = progress.cells[i]!;
    entry.state = 'running';
    publish();
    const child = await startChildPatiently(sweepCellWorkflow, {
      workflowId: entry.workflowId,
      taskQueue: input.queues.workflows,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      args: [
        {
          sweepId: input.sweepId,
          cell,
          mode: input.mode,
          datasetKey: data.key,
          ...(ds.savedGenerationsKey ? { savedGenerationsKey: ds.savedGenerationsKey } : {}),
          ...(data.libraryKey ? { libraryKey: data.libraryKey } : {}),
          ...(input.methodOptions ? { methodOptions: input.methodOptions } : {}),
          // Only budgeted sweeps hear of every task (a signal each, in this workflow's history).
          ...(ledger ? { spendLedger: ledger.workflowId } : budgeting && input.budget ? { reportsSpend: true as const } : {}),
          tasks: data.tasks,
          nSamples: input.nSamples,
          k: input.k,
          timeoutS: input.timeoutS,
          queues: input.queues,
          tasksPerShard: tasksPerShard({
            tasks: data.tasks,
            nSamples: input.nSamples,
            shardSamples: input.shardSamples,
            maxParallelShards: input.maxParallelShards ?? 8,
          }),
          ...(input.shardSamples !== undefined ? { samplesPerActivity: input.shardSamples } : {}),
          maxParallelShards: input.maxParallelShards ?? 8,
          maxHistoryEvents: input.maxHistoryEvents ?? 8_000,
          ...(input.cellErrorStop ? { errorStop: input.cellErrorStop } : {}),
          ...(gathered.has(i) ? { batchedBySweep: true as const } : {}),
        },
      ],
    });
    // A pause that came while the cell was being started missed it: tell it now.
    if (progress.paused && patched('forward-pause-after-start')) {
      if (patched('ordered-pause')) await orderCell(child.workflowId);
      else await child.signal(pauseSignal).catch(() => undefined);
    }
    const p: Promise<void> = child.result().then((summary) => {
      entry.state = 'done';
      entry.summary = summary;
      for (const f of families[i]!) held.delete(f);
      running.delete(p);
      publish();
    });
    running.add(p);
  }
  await Promise.all(running);
  if (ledger) {
    await ledger.signal(closeLedgerSignal);
    progress.spentByModel = (await ledger.result()).spentByModel;
  }

  progress.phase = 'finalizing';
  publish();
  const cells = progress.cells.map((c) => c.summary!);
  const resultsKey = await storage.finalizeSweep({ sweepId: input.sweepId, configHash: input.configHash, cells });
  progress.resultsKey = resultsKey;
  const reportKey = await storage.buildSweepReport({ sweepId: input.sweepId });
  progress.reportKey = reportKey;
  progress.phase = 'done';
  publish();
  return { sweepId: input.sweepId, resultsKey, reportKey, cells };
}
