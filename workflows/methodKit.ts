/**
 * The workflow kit every method's workflow (methods/<kind>/workflow.ts) is built on: the shape of
 * a method's shard step and of its per-task child workflow's input, the task reference its
 * activities take, and the child start with a deterministic id. Activity options per queue are in
 * activityOptions.ts, the trace's target in traceTarget.ts. Workflow-sandbox code: no I/O here.
 */
import { ApplicationFailure, getExternalWorkflowHandle, ParentClosePolicy } from '@temporalio/workflow';
import { costOfCalls, type MethodCost, type MethodTaskOutcome } from '../domain/methods/artifacts.js';
import type { LlmCallSummary } from '../domain/llm/request.js';
import type { MethodTaskRef } from '../domain/methods/taskRef.js';
import type { MethodDefinition } from '../domain/methods/types.js';
import { cellTaskWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import { sampleSlices, type IndexRange } from '../domain/sweep/sharding.js';
import { llmActivities } from './activityOptions.js';
import { roundChainsSignal, type BatchRoundsRef } from './roundSignals.js';
import { startChildPatiently } from './startChildPatiently.js';
import { windowed } from './windowed.js';
import type { ShardInput, SweepQueues } from './sweepTypes.js';

/** The input of a multi-step method's child workflow for one task (its kind's switches beside). */
export interface MethodTaskInput {
  ref: MethodTaskRef;
  taskId: string;
  modelId: string;
  nSamples: number;
  timeoutS: number;
  queues: SweepQueues;
  method: string;
  /** Batch mode (workflows/roundParking.ts): the chain parks its LLM steps' requests for its cell's round collector. */
  batchRounds?: BatchRoundsRef;
}

/**
 * What a task's generation leaves: the answers' keys, what they cost (for live progress), for
 * multi-step kinds their trace, and for single-call kinds the answers the endpoint failed now
 * (`freshErrors`: a cell that stops on errors counts them, domain/sweep/cellErrors.ts). `cut`: its
 * answers cut at max_tokens, where the step knows (the single-call methods), for the live progress.
 */
export type TaskGeneration = Pick<MethodTaskOutcome, 'finalKeys'> &
  Partial<Omit<MethodTaskOutcome, 'finalKeys'>> & { freshErrors?: FreshErrors; cut?: number };

/** Answers the endpoint failed for good now (not read from the cache), and the last one's reason. */
export interface FreshErrors {
  count: number;
  last: string;
}

/** The fresh errors among a task's answers; undefined when there are none. */
export function freshErrorsOf(answers: readonly LlmCallSummary[]): FreshErrors | undefined {
  const failed = answers.filter((a) => a.status === 'error' && !a.cached);
  if (!failed.length) return undefined;
  return { count: failed.length, last: failed[failed.length - 1]!.error ?? 'the endpoint failed the request' };
}

/** How many of a step's answers were cut at max_tokens. */
export function cutAnswers(answers: readonly Pick<LlmCallSummary, 'cut'>[]): number {
  return answers.filter((a) => a.cut).length;
}

/** A single-call method's task generation (direct, rag): its answers' keys, their cost, how many were cut, the fresh errors. */
export function answersGeneration(answers: readonly LlmCallSummary[]): TaskGeneration {
  const freshErrors = freshErrorsOf(answers);
  return {
    finalKeys: answers.map((s) => s.key),
    cost: costOfCalls(answers),
    cut: cutAnswers(answers),
    ...(freshErrors ? { freshErrors } : {}),
  };
}

export interface MethodStepContext<Variant> {
  shard: ShardInput;
  /** The cell's named method: its name and its kind's switches. */
  spec: { name: string; kind: string; variant: Variant };
  taskIndex: number;
  /** What the shard wants to hear while a task is answered in slices. */
  hooks: StepHooks;
}

/** The shard's side of a step of several activities. */
export interface StepHooks {
  /** False while the shard is paused: a step of several activities starts no more of them. */
  open?: () => boolean;
  /** A slice of a large task's answers is in: how many samples, and what they cost (progress, budgets). */
  sliceAnswered?: (samples: number, cost: MethodCost) => Promise<void>;
}

/** How a shard turns one task into one cached LLM answer per sample. */
export type MethodStep<Variant> = (ctx: MethodStepContext<Variant>) => Promise<TaskGeneration>;

/** How the shard runs one task of the named method. */
export type BoundStep = (shard: ShardInput, taskIndex: number, hooks?: StepHooks) => Promise<TaskGeneration>;

/** A method's workflow face: its kind, and its shard step for each name its definition answers to. */
export interface MethodWorkflow<Kind extends string = string> {
  role: 'method-workflow';
  kind: Kind;
  /** The step of the named method (with that name's switches), or undefined when it is not this kind's. */
  stepFor(name: string): BoundStep | undefined;
}

export function defineMethodWorkflow<Kind extends string, Variant>(
  definition: MethodDefinition<Kind, Variant>,
  step: MethodStep<Variant>,
): MethodWorkflow<Kind> {
  return {
    role: 'method-workflow',
    kind: definition.kind,
    stepFor(name) {
      if (!Object.prototype.hasOwnProperty.call(definition.names, name)) return undefined;
      const spec = { name, kind: definition.kind, variant: definition.names[name]!.variant };
      return (shard, taskIndex, hooks = {}) => step({ shard, spec, taskIndex, hooks });
    },
  };
}

export function isMethodWorkflow(value: unknown): value is MethodWorkflow {
  return typeof value === 'object' && value !== null && (value as { role?: unknown }).role === 'method-workflow';
}

/** Slices of one task's samples whose LLM activities run at once, on any of the model queue's workers. */
export const ANSWER_SLICE_WINDOW = 8;

/**
 * A single-call method's answers for one task, one per sample in sample order: one LLM activity for
 * all of them, or, for a task of more samples than the shard's samples per activity, one activity
 * per slice of them (domain/sweep/sharding.ts sampleSlices), ANSWER_SLICE_WINDOW at once and none
 * while the shard is paused (`open`), so a pause stops a large task's spending within the slices
 * in flight. Each slice is then any worker's work, within the 2 hours an activity may take, and an
 * answer already cached is not asked again whichever slice asks.
 */
export async function answerInSlices(
  shard: ShardInput,
  hooks: StepHooks,
  answer: (sampleIndices: number[]) => Promise<LlmCallSummary[]>,
): Promise<LlmCallSummary[]> {
  const slices = sampleSlices(shard.nSamples, 1, shard.samplesPerActivity);
  const indices = ({ start, end }: IndexRange) => Array.from({ length: end - start }, (_, i) => start + i);
  if (slices.length === 1) return answer(indices(slices[0]!));
  // Each slice is counted as it comes in (live progress, the budget's spend), not only at the task's end.
  const answered = await windowed(slices, { width: ANSWER_SLICE_WINDOW, ...(hooks.open ? { open: hooks.open } : {}) }, async (slice) => {
    const answers = await answer(indices(slice));
    await hooks.sliceAnswered?.(answers.length, costOfCalls(answers));
    return answers;
  });
  return answered.flat();
}

/** The LLM activities of the shard's model queue, typed by the method's activities. */
export function shardLlm<A extends object>(shard: ShardInput) {
  return llmActivities<A>(llmTaskQueue(shard.queues.llmBase, shard.cell.model), shard.queues.llmHeartbeatTimeoutS);
}

/** Which task of which cell a library-using step works on. */
export function taskRef(shard: ShardInput, taskIndex: number): MethodTaskRef {
  if (!shard.libraryKey || !shard.methodOptions) {
    throw ApplicationFailure.nonRetryable(
      `method ${shard.cell.method} needs the dataset's API library, and ${shard.cell.dataset} has none`,
      'InvalidSweep',
    );
  }
  return {
    sweepId: shard.sweepId,
    cellId: shard.cell.id,
    datasetKey: shard.datasetKey,
    libraryKey: shard.libraryKey,
    taskIndex,
    endpoint: shard.cell.endpoint,
    sampling: shard.cell.sampling,
    options: shard.methodOptions,
  };
}

/**
 * A multi-step kind's chain for one task, as a child workflow with a deterministic id, so a
 * restarted shard finds its tasks' chains where they stopped. `extra` is the kind's switches.
 */
export async function runTaskChain<Extra extends object>(
  workflow: (input: MethodTaskInput & Extra) => Promise<MethodTaskOutcome>,
  shard: ShardInput,
  taskIndex: number,
  extra: Extra,
): Promise<TaskGeneration> {
  const args: MethodTaskInput & Extra = {
    ref: taskRef(shard, taskIndex),
    taskId: `#${taskIndex}`,
    modelId: shard.cell.model,
    nSamples: shard.nSamples,
    timeoutS: shard.timeoutS,
    queues: shard.queues,
    method: shard.cell.method,
    ...extra,
  };
  const workflowId = cellTaskWorkflowId(shard.sweepId, shard.cell.id, taskIndex);
  const rounds = shard.batchRounds;
  if (!rounds) {
    const child = await startChildPatiently(workflow, { args: [args], workflowId, parentClosePolicy: ParentClosePolicy.TERMINATE });
    return child.result();
  }
  // Batch mode: the collector knows of the chain before it can park anything, and hears when it
  // ends whatever way, so that it never waits for a chain that is not there.
  const collector = getExternalWorkflowHandle(rounds.collectorId);
  await collector.signal(roundChainsSignal, { started: [workflowId] });
  try {
    const child = await startChildPatiently(workflow, {
      args: [{ ...args, batchRounds: rounds }],
      workflowId,
      parentClosePolicy: ParentClosePolicy.TERMINATE,
    });
    return await child.result();
  } finally {
    await collector.signal(roundChainsSignal, { ended: [workflowId] }).catch(() => undefined);
  }
}
