/** rag's LLM-queue activity (also self-repair's first answers): cached answers are not sent again. */
import type { LlmCallSummary } from '../../domain/llm/request.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import { retrieveDocs } from '../../infra/library.js';
import { laidOut } from '../../infra/llm/llm.js';
import { defineMethodActivities, methodContext, type MethodActivityDeps } from '../../activities/llm/methodKit.js';
import { ragQuery, ragRequestBody } from './request.js';

export function createRagActivities(deps: MethodActivityDeps) {
  const { context } = methodContext(deps);
  const { llm, embeddings } = deps;
  return {
    /**
     * rag: the top rag_k docs for the whole task in one prompt; one answer per sample, the model's
     * samples_per_request to a request. Also self-repair's first answers; the cell's prompt template
     * shapes them (ref.sampling.prompt).
     */
    async generateRag(input: { ref: MethodTaskRef; sampleIndices: number[] }): Promise<LlmCallSummary[]> {
      const { ref } = input;
      const { problem, library } = await context(ref);
      const docs = await retrieveDocs(library, ref.libraryKey, ragQuery(problem), ref.options.rag_k, ref.options, embeddings);
      const calls = laidOut(ref.endpoint, input.sampleIndices, (first, choices) =>
        ragRequestBody(problem, docs, library.library.name, ref.endpoint.api, ref.sampling, first, choices),
      );
      return llm.callLlm({ endpoint: ref.endpoint, calls });
    },
  };
}

export type RagActivities = ReturnType<typeof createRagActivities>;

export const ragActivities = defineMethodActivities({ kind: 'rag', llm: createRagActivities });
