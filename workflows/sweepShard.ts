/**
 * One shard of a cell: generate every sample of a few tasks (one LLM activity per task, on the
 * model's own queue), then run them all in one sandbox activity. A child workflow of its own, so
 * that a cell of 100,000 samples never carries their events in one history.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LlmCallSummary } from '../domain/llm/request.js';
import type { ShardOutcome } from '../domain/sweep/records.js';
import { llmTaskQueue } from '../domain/sweep/keys.js';
import { llmActivities, sandboxActivities } from './activityOptions.js';
import type { ShardInput } from './sweepTypes.js';

export async function sweepShardWorkflow(input: ShardInput): Promise<ShardOutcome> {
  const sandbox = sandboxActivities(input.queues.sandbox, input.timeoutS);
  if (input.mode === 'evaluate-only') {
    if (!input.savedGenerationsKey) throw ApplicationFailure.nonRetryable('evaluate-only needs loaded generations', 'InvalidSweep');
    return sandbox.executeShard({ ...common(input), generations: { kind: 'saved', key: input.savedGenerationsKey }, execute: true });
  }
  const keys = await generate(input);
  return sandbox.executeShard({
    ...common(input),
    generations: { kind: 'llm', api: input.cell.endpoint.api, stop: input.cell.stop, keys: keys.map((samples) => samples.map((s) => s.key)) },
    execute: input.mode !== 'generation-only',
  });
}

function common(input: ShardInput) {
  return {
    sweepId: input.sweepId,
    cellId: input.cell.id,
    shardIndex: input.shardIndex,
    datasetKey: input.datasetKey,
    taskStart: input.taskStart,
    taskEnd: input.taskEnd,
    nSamples: input.nSamples,
    timeoutS: input.timeoutS,
  };
}

/** The method step: each method turns (task, samples) into cached LLM answers. */
async function generate(input: ShardInput): Promise<LlmCallSummary[][]> {
  const llm = llmActivities(llmTaskQueue(input.queues.llmBase, input.cell.model));
  const sampleIndices = Array.from({ length: input.nSamples }, (_, i) => i);
  switch (input.cell.method) {
    case 'direct': {
      const tasks: Promise<LlmCallSummary[]>[] = [];
      for (let t = input.taskStart; t < input.taskEnd; t++) {
        tasks.push(llm.generateDirect({ endpoint: input.cell.endpoint, sampling: input.cell.sampling, datasetKey: input.datasetKey, taskIndex: t, sampleIndices }));
      }
      return Promise.all(tasks);
    }
    default:
      throw ApplicationFailure.nonRetryable(`method ${input.cell.method} has no workflow step`, 'UnknownMethod');
  }
}
