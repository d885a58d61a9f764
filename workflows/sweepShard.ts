/**
 * One shard of a cell: produce every sample of a few tasks with the cell's method, then run them all
 * in one sandbox activity. A child workflow of its own, so that a cell of 100,000 samples never
 * carries their events in one history. Single-call methods (direct, rag) are one LLM activity per
 * task; multi-step methods (ExploraCoder and its ablations, self-repair) are a child workflow per
 * task with a deterministic id, so a restarted shard finds its tasks' chains where they stopped.
 */
import { ApplicationFailure, executeChild, ParentClosePolicy } from '@temporalio/workflow';
import type { MethodTaskOutcome } from '../domain/methods/artifacts.js';
import type { ShardOutcome } from '../domain/sweep/records.js';
import { cellTaskWorkflowId, llmTaskQueue } from '../domain/sweep/keys.js';
import { METHODS, type MethodName, type MethodSpec } from '../domain/sweep/methods.js';
import type { MethodTaskRef } from '../activities/methods.js';
import { llmActivities, sandboxActivities } from './activityOptions.js';
import { exploracoderTaskWorkflow, type MethodTaskInput } from './exploracoderTask.js';
import { selfRepairTaskWorkflow } from './selfRepairTask.js';
import type { ShardInput } from './sweepTypes.js';

export async function sweepShardWorkflow(input: ShardInput): Promise<ShardOutcome> {
  const sandbox = sandboxActivities(input.queues.sandbox, input.timeoutS);
  if (input.mode === 'evaluate-only') {
    if (!input.savedGenerationsKey) throw ApplicationFailure.nonRetryable('evaluate-only needs loaded generations', 'InvalidSweep');
    return sandbox.executeShard({ ...common(input), generations: { kind: 'saved', key: input.savedGenerationsKey }, execute: true });
  }
  const tasks = await generate(input);
  return sandbox.executeShard({
    ...common(input),
    generations: {
      kind: 'llm',
      api: input.cell.endpoint.api,
      stop: input.cell.stop,
      keys: tasks.map((t) => t.finalKeys),
      methodTasks: tasks.map((t) => (t.traceKey && t.cost ? { cost: t.cost, traceKey: t.traceKey } : null)),
    },
    execute: input.mode !== 'generation-only',
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

type TaskGeneration = Pick<MethodTaskOutcome, 'finalKeys'> & Partial<Omit<MethodTaskOutcome, 'finalKeys'>>;

/** The method step: each method turns (task, samples) into cached LLM answers, one per sample. */
async function generate(input: ShardInput): Promise<TaskGeneration[]> {
  const llm = llmActivities(llmTaskQueue(input.queues.llmBase, input.cell.model));
  const sampleIndices = Array.from({ length: input.nSamples }, (_, i) => i);
  const spec: MethodSpec | undefined = (METHODS as Record<string, MethodSpec>)[input.cell.method];
  if (!spec) throw ApplicationFailure.nonRetryable(`method ${input.cell.method} has no workflow step`, 'UnknownMethod');
  const taskIndices = Array.from({ length: input.taskEnd - input.taskStart }, (_, i) => input.taskStart + i);
  const ref = (taskIndex: number): MethodTaskRef => {
    if (!input.libraryKey || !input.methodOptions) {
      throw ApplicationFailure.nonRetryable(`method ${input.cell.method} needs the dataset's API library, and ${input.cell.dataset} has none`, 'InvalidSweep');
    }
    return {
      sweepId: input.sweepId,
      cellId: input.cell.id,
      datasetKey: input.datasetKey,
      libraryKey: input.libraryKey,
      taskIndex,
      endpoint: input.cell.endpoint,
      sampling: input.cell.sampling,
      options: input.methodOptions,
    };
  };
  switch (spec.kind) {
    case 'direct':
      return Promise.all(
        taskIndices.map(async (t) => ({
          finalKeys: (await llm.generateDirect({ endpoint: input.cell.endpoint, sampling: input.cell.sampling, datasetKey: input.datasetKey, taskIndex: t, sampleIndices })).map((s) => s.key),
        })),
      );
    case 'rag':
      return Promise.all(taskIndices.map(async (t) => ({ finalKeys: (await llm.generateRag({ ref: ref(t), sampleIndices })).map((s) => s.key) })));
    case 'exploracoder':
    case 'self-repair': {
      const workflow = spec.kind === 'exploracoder' ? exploracoderTaskWorkflow : selfRepairTaskWorkflow;
      return Promise.all(
        taskIndices.map((t) => {
          const args: MethodTaskInput = {
            ref: ref(t),
            taskId: `#${t}`,
            modelId: input.cell.model,
            nSamples: input.nSamples,
            timeoutS: input.timeoutS,
            queues: input.queues,
            method: input.cell.method as MethodName,
            ...(spec.variant ? { variant: spec.variant } : {}),
          };
          return executeChild(workflow, {
            args: [args],
            workflowId: cellTaskWorkflowId(input.sweepId, input.cell.id, t),
            parentClosePolicy: ParentClosePolicy.TERMINATE,
          });
        }),
      );
    }
  }
}

