/**
 * The workflow step of each method kind: how a shard turns one task into one cached LLM answer per
 * sample. Keyed by the kinds of domain/methods/registry.ts, so a kind without a step does not
 * compile. Single-call kinds are one LLM activity per task; multi-step kinds are a child workflow
 * per task with a deterministic id, so a restarted shard finds its tasks' chains where they stopped.
 */
import { ApplicationFailure, ParentClosePolicy } from '@temporalio/workflow';
import type { MethodTaskRef } from '../activities/llm/methods.js';
import type { MethodTaskOutcome } from '../domain/methods/artifacts.js';
import type { MethodKind, MethodSpec } from '../domain/methods/registry.js';
import { cellTaskWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import { llmActivities } from './activityOptions.js';
import { exploracoderTaskWorkflow, type MethodTaskInput } from './exploracoderTask.js';
import { selfRepairTaskWorkflow } from './selfRepairTask.js';
import { capirTaskWorkflow } from './capirTask.js';
import { startChildPatiently } from './startChildPatiently.js';
import type { ShardInput } from './sweepTypes.js';

/** What a task's generation leaves: the answers' keys, and for multi-step kinds their cost and trace. */
export type TaskGeneration = Pick<MethodTaskOutcome, 'finalKeys'> & Partial<Omit<MethodTaskOutcome, 'finalKeys'>>;

export interface MethodStepContext<K extends MethodKind> {
  shard: ShardInput;
  spec: Extract<MethodSpec, { kind: K }>;
  taskIndex: number;
}

export type MethodStep<K extends MethodKind> = (ctx: MethodStepContext<K>) => Promise<TaskGeneration>;

export const METHOD_STEPS: { [K in MethodKind]: MethodStep<K> } = {
  direct: async ({ shard, taskIndex }) => {
    const answers = await llmOf(shard).generateDirect({
      endpoint: shard.cell.endpoint,
      sampling: shard.cell.sampling,
      datasetKey: shard.datasetKey,
      taskIndex,
      sampleIndices: allSamples(shard),
    });
    return { finalKeys: answers.map((s) => s.key) };
  },
  rag: async ({ shard, taskIndex }) => {
    const answers = await llmOf(shard).generateRag({ ref: taskRef(shard, taskIndex), sampleIndices: allSamples(shard) });
    return { finalKeys: answers.map((s) => s.key) };
  },
  'self-repair': ({ shard, taskIndex }) => taskChain(selfRepairTaskWorkflow, shard, taskIndex, {}),
  exploracoder: ({ shard, spec, taskIndex }) => taskChain(exploracoderTaskWorkflow, shard, taskIndex, { variant: spec.variant }),
  capir: ({ shard, spec, taskIndex }) => taskChain(capirTaskWorkflow, shard, taskIndex, { capir: spec.variant }),
};

/** Runs the step of the spec's kind for one task of the shard. */
export function runMethodStep(shard: ShardInput, spec: MethodSpec, taskIndex: number): Promise<TaskGeneration> {
  const step = METHOD_STEPS[spec.kind] as MethodStep<MethodKind>;
  return step({ shard, spec, taskIndex } as MethodStepContext<MethodKind>);
}

function llmOf(shard: ShardInput) {
  return llmActivities(llmTaskQueue(shard.queues.llmBase, shard.cell.model));
}

function allSamples(shard: ShardInput): number[] {
  return Array.from({ length: shard.nSamples }, (_, i) => i);
}

/** Which task of which cell a library-using step works on. */
function taskRef(shard: ShardInput, taskIndex: number): MethodTaskRef {
  if (!shard.libraryKey || !shard.methodOptions) {
    throw ApplicationFailure.nonRetryable(`method ${shard.cell.method} needs the dataset's API library, and ${shard.cell.dataset} has none`, 'InvalidSweep');
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

/** A multi-step kind's chain for one task, as a child workflow with a deterministic id. */
async function taskChain(
  workflow: typeof exploracoderTaskWorkflow | typeof selfRepairTaskWorkflow | typeof capirTaskWorkflow,
  shard: ShardInput,
  taskIndex: number,
  extra: Pick<MethodTaskInput, 'variant' | 'capir'>,
): Promise<TaskGeneration> {
  const args: MethodTaskInput = {
    ref: taskRef(shard, taskIndex),
    taskId: `#${taskIndex}`,
    modelId: shard.cell.model,
    nSamples: shard.nSamples,
    timeoutS: shard.timeoutS,
    queues: shard.queues,
    method: shard.cell.method,
    ...extra,
  };
  const child = await startChildPatiently<typeof workflow>(workflow, {
    args: [args],
    workflowId: cellTaskWorkflowId(shard.sweepId, shard.cell.id, taskIndex),
    parentClosePolicy: ParentClosePolicy.TERMINATE,
  });
  return child.result();
}
