/**
 * One shard of a cell: produce every sample of a few tasks with the cell's method, then run them all
 * in one sandbox activity. A child workflow of its own, so that a cell of 100,000 samples never
 * carries their events in one history. Single-call methods (direct, rag) are one LLM activity per
 * task; multi-step methods (ExploraCoder and its ablations, self-repair) are a child workflow per
 * task with a deterministic id, so a restarted shard finds its tasks' chains where they stopped.
 *
 * Tasks start at most TASK_WINDOW at a time (or the window its cell gives it), and none while the
 * shard is paused (its cell forwards the sweep's pause): a pause then stops the spending within the
 * window's tasks, instead of after every task of every running shard. A shard of a cell that overlaps
 * its shards tells it once every task has its answers, so that the cell starts the next shard's tasks
 * while this one's programs run.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  defineQuery,
  defineSignal,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { addCost, subtractCost, ZERO_COST, type MethodCost } from '../domain/methods/artifacts.js';
import type { ShardOutcome } from '../domain/sweep/records.js';
import { budgetLocalActivities, sandboxActivities, storageActivities } from './activityOptions.js';
import { windowed, type Window } from './windowed.js';
import { methodStepFor, type TaskGeneration } from './methodSteps.js';
import { localSeq, takePauseOrders } from './pauseOrders.js';
import { reportSpend } from './spendReports.js';
import { batchSpend } from '../domain/sweep/budget.js';
import { cellWorkflowId, sweepWorkflowId } from '../domain/sweep/keys.js';
import { errorLine } from '../domain/sweep/cellErrors.js';
import { reportCellErrors } from './cellErrorReports.js';
import { sampleSlices, TASK_WINDOW, type IndexRange } from '../domain/sweep/sharding.js';
import type { ExecuteShardInput } from '../activities/sandbox/executeShard.js';
import type { ShardInput } from './sweepTypes.js';

export { TASK_WINDOW };

/** A shard to its cell: every task of shard `shardIndex` has its answers (its runs start now). */
export const shardGeneratedSignal = defineSignal<[{ shardIndex: number }]>('shard-generated');

/** Slices of a sliced shard (sampleSlices) whose sandbox activities run at once, on any of the queue's workers. */
export const SLICE_WINDOW = 8;

/**
 * A shard's own progress: how many of its samples have their answer, before any of them runs, and
 * what the answers cost so far (the cell counts a shard's cost once it has run, from its records).
 * Cost fields are absent from shards started before they existed.
 */
export interface ShardProgress {
  phase: 'generating' | 'executing';
  answered: number;
  samples: number;
  calls?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** Of the tokens, those answered in provider batches; absent: none, or shards started before it. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
  /** Tasks whose samples all have their answer (absent from shards started before it). */
  tasksAnswered?: number;
  /** Answers cut at max_tokens so far, where the method says (direct, rag); absent from shards started before it. */
  cut?: number;
}
export const shardProgressQuery = defineQuery<ShardProgress>('shard-progress');

export async function sweepShardWorkflow(input: ShardInput): Promise<ShardOutcome> {
  let paused = false;
  takePauseOrders(localSeq(), (p) => void (paused = p));
  const samples = (input.taskEnd - input.taskStart) * input.nSamples;
  // Loaded generations are all there from the start.
  const progress: Required<ShardProgress> = {
    phase: input.mode === 'evaluate-only' ? 'executing' : 'generating',
    answered: input.mode === 'evaluate-only' ? samples : 0,
    samples,
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    batchPromptTokens: 0,
    batchCompletionTokens: 0,
    tasksAnswered: input.mode === 'evaluate-only' ? input.taskEnd - input.taskStart : 0,
    cut: 0,
  };
  setHandler(shardProgressQuery, () => progress);
  // Shards started before the window existed schedule every task at once, as they did.
  // Batch mode's rounds (input.batchRounds) gather every task of the shard: all of them start at once.
  const width = input.batchRounds ? input.taskEnd - input.taskStart : (input.taskWindow ?? TASK_WINDOW);
  const taskWindow = patched('shard-task-window') ? { width, open: () => !paused } : null;
  // A cell that stops on errors hears of them from its shards (domain/sweep/cellErrors.ts). What
  // failed for good is tried again once the cell's hold is released, or a minute later if it holds not.
  let mayStart: (() => Promise<void>) | null = null;
  const errors =
    input.reportsErrors && patched('cell-error-stop')
      ? errorReports(input, async () => {
          await condition(() => paused, '1 minute');
          if (paused) await condition(() => !paused);
          await mayStart?.();
        })
      : null;
  if (input.mode === 'evaluate-only') {
    if (!input.savedGenerationsKey) throw ApplicationFailure.nonRetryable('evaluate-only needs loaded generations', 'InvalidSweep');
    const saved = { kind: 'saved' as const, key: input.savedGenerationsKey };
    return execute(input, () => saved, true, errors);
  }
  // A budgeted sweep counts every task's cost as it ends, a large task's slice by slice (workflows/spendReports.ts).
  const spendTo = input.spendLedger ?? (input.reportsSpend === true ? sweepWorkflowId(input.sweepId) : null);
  const reporting = spendTo !== null && patched('shard-reports-spend');
  /** Counts answers and their cost in the shard's progress, and, budgeted, tells the spend ledger (`tasks`: how much of a task). */
  const count = async (samples: number, paid: MethodCost, tasks?: number) => {
    progress.answered += samples;
    progress.calls += paid.calls;
    progress.promptTokens += paid.prompt_tokens;
    progress.completionTokens += paid.completion_tokens;
    progress.batchPromptTokens += paid.batch_prompt_tokens ?? 0;
    progress.batchCompletionTokens += paid.batch_completion_tokens ?? 0;
    if (reporting)
      await reportSpend(spendTo, {
        model: input.cell.model,
        calls: paid.calls,
        promptTokens: paid.prompt_tokens,
        completionTokens: paid.completion_tokens,
        ...batchSpend(paid.batch_prompt_tokens ?? 0, paid.batch_completion_tokens ?? 0),
        ...(tasks === undefined ? {} : { tasks }),
      });
  };
  // A budgeted sweep's shard asks the ledger before each task: the cap stops the starts as soon as
  // it is reached, not once the pause has come down from the sweep (TASK_WINDOW bounds the rest).
  // A cell that stops on errors is asked too, for the same reason (domain/sweep/cellErrors.ts).
  const asksLedger = input.spendLedger && taskWindow && patched('shard-asks-ledger');
  // One local activity per task, never two in a row: the LLM activity's sequence number must not
  // depend on the order in which the lanes' local activities complete (a replay would not match).
  const asksCell = errors && taskWindow ? errors.cellWorkflowId : null;
  const hold: (() => Promise<unknown>) | null =
    asksLedger && asksCell
      ? () => budgetLocalActivities().spendOrErrorHold({ ledgerWorkflowId: input.spendLedger!, cellWorkflowId: asksCell })
      : asksLedger
        ? () => budgetLocalActivities().spendHold({ ledgerWorkflowId: input.spendLedger! })
        : asksCell
          ? () => budgetLocalActivities().cellErrorHold({ cellWorkflowId: asksCell })
          : null;
  mayStart = hold
    ? async () => {
        for (;;) {
          if (paused) await condition(() => !paused);
          if (!(await hold())) return;
          // Held: the pause is on its way (from the sweep, or the cell); once it came, its resume
          // lets the task ask again. A hold lifted before the pause got here is seen a minute later at most.
          await condition(() => paused, '1 minute');
        }
      }
    : null;
  const tasks = await generate(input, taskWindow, mayStart, errors, {
    // A large task's slices, as each is answered: its share of the task.
    sliceAnswered: (samples, cost) => count(samples, cost, samples / input.nSamples),
    // A multi-step chain's cost is its work beyond the final answers; theirs comes apart. What
    // slices counted already is taken off: the rest, and the rest of the task.
    taskAnswered: (generation, counted) => {
      // Progress only (a query's state): no command changes, so no patched() is needed.
      progress.tasksAnswered++;
      progress.cut += generation.cut ?? 0;
      const paid = addCost(generation.cost ?? ZERO_COST, generation.finalCost ?? {});
      if (counted.samples === 0) return count(input.nSamples, paid);
      const rest = subtractCost(paid, counted.cost);
      // Every answer came by slices, and they counted it all: nothing is left to tell.
      if (counted.samples === input.nSamples && rest.calls === 0 && rest.prompt_tokens === 0 && rest.completion_tokens === 0)
        return Promise.resolve();
      return count(input.nSamples - counted.samples, rest, 1 - counted.samples / input.nSamples);
    },
  });
  progress.phase = 'executing';
  // Its cell counts it as generating until told (or until it ends): the cell's next shard starts now.
  const cell = workflowInfo().parent?.workflowId;
  if (input.tellsGenerated && cell !== undefined && patched('shard-tells-generated'))
    await getExternalWorkflowHandle(cell)
      .signal(shardGeneratedSignal, { shardIndex: input.shardIndex })
      .catch(() => undefined);
  const methodTasks = tasks.map((t) => (t.traceKey && t.cost ? { cost: t.cost, traceKey: t.traceKey } : null));
  const answers = (samples: IndexRange): ExecuteShardInput['generations'] => ({
    kind: 'llm',
    api: input.cell.endpoint.api,
    stop: input.cell.stop,
    ...(input.cell.sanitize ? { sanitize: input.cell.sanitize } : {}),
    keys: tasks.map((t) =>
      samples.start === 0 && samples.end === input.nSamples ? t.finalKeys : t.finalKeys.slice(samples.start, samples.end),
    ),
    methodTasks,
  });
  return execute(input, answers, input.mode !== 'generation-only', errors);
}

/**
 * Sandbox failures of a worker's setup, not of the program run nor of the dataset (whose problems,
 * `DatasetProblem`, `ReferenceOutputsFailed`, no retry mends): they count as the cell's errors.
 */
const SETUP_FAILURES = new Set(['ToolchainMissing']);

/**
 * What a shard of a cell that stops on errors tells it: samples that ended in an error, with the
 * samples attempted since the last report (domain/sweep/cellErrors.ts).
 */
interface ErrorReports {
  cellWorkflowId: string;
  /** A task (or a run) that ended: its samples, and those of them that ended in an error. */
  ended(samples: number, errors: number, message: string): Promise<void>;
  /** Waits for the next attempt of what failed for good. */
  afterFailure: () => Promise<void>;
}

function errorReports(input: ShardInput, afterFailure: () => Promise<void>): ErrorReports {
  const cell = cellWorkflowId(input.sweepId, input.cell.id);
  let unreported = 0;
  return {
    cellWorkflowId: cell,
    async ended(samples, errors, message) {
      unreported += samples;
      if (errors === 0) return;
      const attempted = unreported;
      unreported = 0;
      await reportCellErrors(cell, { shardIndex: input.shardIndex, errors, attempted, message });
    },
    afterFailure,
  };
}

/**
 * The message of a failure for good of an activity or a child workflow (its deepest cause), or null
 * for anything else: a cancellation, or a failure of the workflow's own code, which fail the shard.
 */
function failedForGood(err: unknown, types?: ReadonlySet<string>): string | null {
  if (isCancellation(err)) return null;
  if (!(err instanceof ActivityFailure) && !(err instanceof ChildWorkflowFailure)) return null;
  let root: Error = err;
  while (root.cause instanceof Error) root = root.cause;
  if (types && !(root instanceof ApplicationFailure && root.type && types.has(root.type))) return null;
  return errorLine(root.message || String(root));
}

/** `call`, and again after the cell's release (or a minute) each time it fails for good with one of `types` (all errors when counting the task's). */
async function untilNotFailing<T>(
  errors: ErrorReports | null,
  samples: number,
  types: ReadonlySet<string> | undefined,
  call: () => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const message = errors ? failedForGood(err, types) : null;
      if (message === null) throw err;
      await errors!.ended(samples, samples, message);
      await errors!.afterFailure();
    }
  }
}

/**
 * Runs (or records) the shard's samples: in one sandbox activity, or, for a shard over its samples
 * per activity (sampleSlices), one per slice, SLICE_WINDOW at once, whose records are then joined
 * into the shard's one file.
 */
async function execute(
  input: ShardInput,
  generations: (samples: IndexRange) => ExecuteShardInput['generations'],
  run: boolean,
  errors: ErrorReports | null = null,
): Promise<ShardOutcome> {
  const sandbox = sandboxActivities(input.queues.sandbox, input.timeoutS);
  const slices = sampleSlices(input.nSamples, input.taskEnd - input.taskStart, input.samplesPerActivity);
  const tasks = input.taskEnd - input.taskStart;
  // A run that fails for a reason of the worker's setup counts its samples as the cell's errors and
  // is tried again once the cell is released (or a minute later), instead of failing the sweep.
  const setupGuarded = (samples: IndexRange, call: () => Promise<ShardOutcome>) =>
    untilNotFailing(errors, tasks * (samples.end - samples.start), SETUP_FAILURES, call);
  if (slices.length === 1)
    return setupGuarded(slices[0]!, () => sandbox.executeShard({ ...common(input), generations: generations(slices[0]!), execute: run }));
  await windowed(
    slices.map((samples, index) => ({ index, samples })),
    { width: SLICE_WINDOW },
    ({ index, samples }) =>
      setupGuarded(samples, () =>
        sandbox.executeShard({ ...common(input), generations: generations(samples), execute: run, slice: { index, ...samples } }),
      ),
  );
  return storageActivities(input.queues.storage).joinShardSlices({
    sweepId: input.sweepId,
    cellId: input.cell.id,
    shardIndex: input.shardIndex,
    taskStart: input.taskStart,
    taskEnd: input.taskEnd,
    nSamples: input.nSamples,
    slices,
    execute: run,
  });
}

function common(input: ShardInput) {
  return {
    sweepId: input.sweepId,
    cellId: input.cell.id,
    shardIndex: input.shardIndex,
    datasetKey: input.datasetKey,
    ...(input.libraryKey ? { libraryKey: input.libraryKey } : {}),
    taskStart: input.taskStart,
    taskEnd: input.taskEnd,
    nSamples: input.nSamples,
    timeoutS: input.timeoutS,
  };
}

interface Counting {
  sliceAnswered: (samples: number, cost: MethodCost) => Promise<void>;
  /** `counted`: what the task's slices counted already. */
  taskAnswered: (generation: TaskGeneration, counted: { samples: number; cost: MethodCost }) => Promise<void>;
}

/** The method step of every task of the shard (workflows/methodSteps.ts), in the task window. */
async function generate(
  input: ShardInput,
  taskWindow: Window | null,
  mayStart: (() => Promise<void>) | null,
  errors: ErrorReports | null,
  counting: Counting,
): Promise<TaskGeneration[]> {
  const step = methodStepFor(input.cell.method);
  if (!step) throw ApplicationFailure.nonRetryable(`method ${input.cell.method} has no workflow step`, 'UnknownMethod');
  const taskIndices = Array.from({ length: input.taskEnd - input.taskStart }, (_, i) => input.taskStart + i);
  const run = async (t: number) => {
    await mayStart?.();
    const counted = { samples: 0, cost: ZERO_COST };
    // A task whose activity (or chain) fails for good, in a cell that stops on errors, counts its
    // samples as errors and is asked again once the cell is released, or a minute later. Slices
    // are counted as they come in the first attempt only: a later one brings those again (from the
    // cache), and the task's end counts what they did not.
    let attempts = 0;
    const generation = await untilNotFailing(errors, input.nSamples, undefined, () => {
      const first = attempts++ === 0;
      return step(input, t, {
        // A large task's slices of answers stop starting while the shard is paused, as its tasks do.
        ...(taskWindow ? { open: taskWindow.open } : {}),
        sliceAnswered: async (samples, cost) => {
          if (!first) return;
          counted.samples += samples;
          counted.cost = addCost(counted.cost, cost);
          await counting.sliceAnswered(samples, cost);
        },
      });
    });
    await counting.taskAnswered(generation, counted);
    await errors?.ended(input.nSamples, generation.freshErrors?.count ?? 0, generation.freshErrors?.last ?? '');
    return generation;
  };
  return taskWindow ? windowed(taskIndices, taskWindow, run) : Promise.all(taskIndices.map(run));
}
