/** The `direct` method's LLM activity, on each model's queue (cached answers are not sent again). */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { throttledHeartbeat } from '../../infra/heartbeat.js';
import type { LlmCallSummary, LlmEndpoint } from '../../domain/llm/request.js';
import { directRequestBody } from './request.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { type Sampling } from '../../domain/methods/sampling.js';
import { laidOut, type LlmActivities } from '../../infra/llm/llm.js';
import { stripThinking } from '../../domain/llm/extract.js';
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
      if (asksInTwoSteps(problem)) return answerInTwoSteps(llm, problem, input.endpoint, input.sampling, input.sampleIndices);
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
        // A second step's request is known only once its first is answered: the live path asks both.
        if (asksInTwoSteps(problem)) continue;
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

/** Whether the problem is asked in two steps (its family's are: FamilySteps asksInTwoSteps). */
function asksInTwoSteps(problem: SweepProblem): boolean {
  return familyOf(problem).asksInTwoSteps !== undefined;
}

/**
 * direct for a task asked in two steps (a family's nextStep: HumanEvalExplain describes, then
 * writes from its description): each sample's first request (laid out as direct lays out any),
 * then, from that sample's own first answer, its second request, one per sample (its prompt is the
 * sample's own). Both are cached by their body: an answered first step is read back, never asked
 * again, so a retried or resumed sample pays for each request once and asks the same second
 * request. The sample's summary is its second answer's (what is scored), carrying both requests'
 * tokens and calls; a first step that failed is the sample's answer (an error, as any).
 */
async function answerInTwoSteps(
  llm: Pick<LlmActivities, 'callLlm' | 'readLlmRecord'>,
  problem: SweepProblem,
  endpoint: LlmEndpoint,
  sampling: Sampling,
  sampleIndices: number[],
): Promise<LlmCallSummary[]> {
  const family = familyOf(problem);
  const firstCalls = laidOut(endpoint, sampleIndices, (first, choices) =>
    directRequestBody(problem, endpoint.api, sampling, first, choices),
  );
  const first = await llm.callLlm({ endpoint, calls: firstCalls });
  const seconds: Array<{ at: number; body: ReturnType<typeof directRequestBody>; sampleIndex: number }> = [];
  for (const [at, summary] of first.entries()) {
    if (summary.status !== 'ok') continue;
    const record = await llm.readLlmRecord(summary.key);
    if (!record)
      throw new Error(`LLM record ${summary.key} is missing (task ${problem.task_id}, sample ${sampleIndices[at]}'s first step)`);
    // A chat model's reasoning is no part of its answer (as its code is read without it).
    const next = family.nextStep?.(problem, endpoint.api === 'chat' ? stripThinking(record.text) : record.text);
    if (!next) throw new Error(`task ${problem.task_id}: family ${family.id} gives no second step`);
    seconds.push({ at, sampleIndex: sampleIndices[at]!, body: directRequestBody(next, endpoint.api, sampling, sampleIndices[at]!) });
  }
  const second =
    seconds.length === 0 ? [] : await llm.callLlm({ endpoint, calls: seconds.map(({ body, sampleIndex }) => ({ body, sampleIndex })) });
  const out = [...first];
  seconds.forEach(({ at }, i) => {
    const one = first[at]!;
    const two = second[i]!;
    out[at] = {
      ...two,
      cached: one.cached && two.cached,
      promptTokens: one.promptTokens + two.promptTokens,
      completionTokens: one.completionTokens + two.completionTokens,
      calls: one.calls + two.calls,
    };
  });
  return out;
}
