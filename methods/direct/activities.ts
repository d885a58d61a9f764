/** The `direct` method's LLM activity, on each model's queue (cached answers are not sent again). */
import { ApplicationFailure } from '@temporalio/common';
import type { LlmCallSummary, LlmEndpoint } from '../../domain/llm/request.js';
import { directRequestBody } from './request.js';
import { type Sampling } from '../../domain/methods/sampling.js';
import { laidOut } from '../../infra/llm/llm.js';
import { loadProblems } from '../../infra/problems.js';
import { defineMethodActivities, type MethodActivityDeps } from '../../activities/llm/methodKit.js';

export interface GenerateDirectInput {
  endpoint: LlmEndpoint;
  sampling: Sampling;
  datasetKey: string;
  taskIndex: number;
  sampleIndices: number[];
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
      return llm.callLlm({ endpoint: input.endpoint, calls });
    },
  };
}

export type DirectActivities = ReturnType<typeof createDirectActivities>;

export const directActivities = defineMethodActivities({ kind: 'direct', llm: createDirectActivities });
