/** The `direct` method's LLM activity, on each model's queue (cached answers are not sent again). */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { throttledHeartbeat } from '../../infra/heartbeat.js';
import type { LlmCallSummary, LlmEndpoint } from '../../domain/llm/request.js';
import { directRequestBody } from './request.js';
import { type Sampling } from '../../domain/methods/sampling.js';
import { laidOut } from '../../infra/llm/llm.js';
import { loadProblems } from '../../infra/problems.js';
import { defineMethodActivities, type MethodActivityDeps } from '../../activities/llm/methodKit.js';
import { planOf, storeRequestSets, uncachedOf, type RequestSet } from '../../infra/llm/batchPlan.js';

export interface GenerateDirectInput {
  endpoint: LlmEndpoint;
  sampling: Sampling;
  datasetKey: string;
  taskIndex: number;
  sampleIndices: number[];
  /** Requests sent at once (domain/sweep/sharding.ts taskRequestLanes); absent: one after another. */
  concurrency?: number;
}

export interface PrepareDirectBatchInput {
  endpoint: LlmEndpoint;
  sampling: Sampling;
  datasetKey: string;
  /** The cell's tasks [taskStart, taskEnd), every one of its samples. */
  taskStart: number;
  taskEnd: number;
  nSamples: number;
  /** Where the request sets are stored (the cell's batch folder). */
  prefix: string;
}

export function createDirectActivities({ bucket, llm }: MethodActivityDeps) {
  return {
    /** The `direct` method for one task: one answer per sample, `samplesPerRequest` to a request (cached ones are not sent again). */
    async generateDirect(input: GenerateDirectInput): Promise<LlmCallSummary[]> {
      const problems = await loadProblems(bucket, input.datasetKey);
      const problem = problems[input.taskIndex];
      if (!problem) throw ApplicationFailure.nonRetryable(`task index ${input.taskIndex} is out of range`, 'InvalidTask');
      let calls: ReturnType<typeof laidOut>;
      try {
        calls = laidOut(input.endpoint, input.sampleIndices, (first, choices) =>
          directRequestBody(problem, input.endpoint.api, input.sampling, first, choices),
        );
      } catch (error) {
        // A request is a pure function of the stored task and the cell's settings: one that cannot be
        // built now (a FIM task for a model without FIM tokens) never can, so no retry.
        throw ApplicationFailure.nonRetryable((error as Error).message, 'InvalidRequest');
      }
      return llm.callLlm({ endpoint: input.endpoint, calls, ...(input.concurrency ? { concurrency: input.concurrency } : {}) });
    },

    /**
     * Batch mode: the requests generateDirect would send for the tasks' samples that the cache does
     * not answer yet (the same bodies, so the same cache identities), stored as request sets within
     * the model's batch limits.
     */
    async prepareDirectBatch(input: PrepareDirectBatchInput): Promise<RequestSet[]> {
      const problems = await loadProblems(bucket, input.datasetKey);
      const samples = Array.from({ length: input.nSamples }, (_, i) => i);
      const plan = [];
      const heartbeat = throttledHeartbeat();
      for (let t = input.taskStart; t < input.taskEnd; t++) {
        heartbeat();
        const problem = problems[t];
        if (!problem) throw ApplicationFailure.nonRetryable(`task index ${t} is out of range`, 'InvalidTask');
        let calls: ReturnType<typeof laidOut>;
        try {
          calls = laidOut(input.endpoint, samples, (first, choices) =>
            directRequestBody(problem, input.endpoint.api, input.sampling, first, choices),
          );
        } catch (error) {
          // The live path would fail this task for good too; batch mode leaves it to say so.
          console.warn(`batch mode: task ${t} left to the live path: ${(error as Error).message}`);
          continue;
        }
        plan.push(...planOf(input.endpoint, calls));
      }
      const uncached = await uncachedOf(bucket, input.endpoint, plan);
      Context.current().heartbeat();
      return storeRequestSets(bucket, input.endpoint, uncached, input.prefix);
    },
  };
}

export type DirectActivities = ReturnType<typeof createDirectActivities>;

export const directActivities = defineMethodActivities({ kind: 'direct', llm: createDirectActivities });
