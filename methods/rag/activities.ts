/** rag's LLM-queue activity (also self-repair's first answers): cached answers are not sent again. */
import { Context } from '@temporalio/activity';
import type { BatchPlanLine } from '../../domain/llm/batchLines.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import { throttledHeartbeat } from '../../infra/heartbeat.js';
import { retrieveDocs } from '../../infra/library.js';
import { planOf, storeRequestSets, uncachedOf, type RequestSet } from '../../infra/llm/batchPlan.js';
import { laidOut } from '../../infra/llm/llm.js';
import { defineMethodActivities, methodContext, type MethodActivityDeps } from '../../activities/llm/methodKit.js';
import { ragQuery, ragRequestBody } from './request.js';

export interface PrepareRagBatchInput {
  /** The cell's task reference, without the task: each of [taskStart, taskEnd) in turn. */
  ref: Omit<MethodTaskRef, 'taskIndex'>;
  taskStart: number;
  taskEnd: number;
  nSamples: number;
  /** Where the request sets are stored (the cell's batch folder). */
  prefix: string;
}

export function createRagActivities(deps: MethodActivityDeps) {
  const { context } = methodContext(deps);
  const { bucket, llm, embeddings } = deps;

  /** The task's requests for these samples, as generateRag sends them (its retrieval, then the samples laid over requests). */
  async function ragCalls(ref: MethodTaskRef, sampleIndices: readonly number[]) {
    const { problem, library } = await context(ref);
    const docs = await retrieveDocs(library, ref.libraryKey, ragQuery(problem), ref.options.rag_k, ref.options, embeddings);
    return laidOut(ref.endpoint, sampleIndices, (first, choices) =>
      ragRequestBody(problem, docs, library.library.name, ref.endpoint.api, ref.sampling, first, choices),
    );
  }

  return {
    /**
     * rag: the top rag_k docs for the whole task in one prompt; one answer per sample, the model's
     * samples_per_request to a request. Also self-repair's first answers; the cell's prompt template
     * shapes them (ref.sampling.prompt).
     */
    async generateRag(input: { ref: MethodTaskRef; sampleIndices: number[] }): Promise<LlmCallSummary[]> {
      const calls = await ragCalls(input.ref, input.sampleIndices);
      return llm.callLlm({ endpoint: input.ref.endpoint, calls });
    },

    /**
     * Batch mode: the requests generateRag would send for the tasks' samples that the cache does not
     * answer yet (retrieval first, the same bodies, so the same cache identities), stored as request
     * sets within the model's batch limits. Retrieval is a step before the one round of requests: a
     * task's docs do not depend on any answer.
     */
    async prepareRagBatch(input: PrepareRagBatchInput): Promise<RequestSet[]> {
      const samples = Array.from({ length: input.nSamples }, (_, i) => i);
      const plan: BatchPlanLine[] = [];
      const heartbeat = throttledHeartbeat();
      for (let t = input.taskStart; t < input.taskEnd; t++) {
        heartbeat();
        plan.push(...planOf(input.ref.endpoint, await ragCalls({ ...input.ref, taskIndex: t }, samples)));
      }
      const uncached = await uncachedOf(bucket, input.ref.endpoint, plan);
      Context.current().heartbeat();
      return storeRequestSets(bucket, input.ref.endpoint, uncached, input.prefix);
    },
  };
}

export type RagActivities = ReturnType<typeof createRagActivities>;

export const ragActivities = defineMethodActivities({ kind: 'rag', llm: createRagActivities });
