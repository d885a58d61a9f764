/** `rag`: naive RAG (DocPrompting style), the top rag_k API docs for the whole task in one prompt per sample. */
import { ragAnswerFamily } from '../../domain/methods/sharedFamilies.js';
import { batchedRequests, type MethodDefinition } from '../../domain/methods/types.js';

/** rag has no switches. */
export type RagVariant = Record<string, never>;

export const ragMethod = {
  kind: 'rag',
  needsLibrary: true,
  needsChat: false,
  promptTemplateScope: 'its one request per sample (the template before the documentation)',
  optionsRead: ['rag_k', 'retriever', 'embeddings', 'doc_masking'],
  names: {
    rag: { description: 'naive RAG (DocPrompting): the top rag_k API docs for the whole task in one prompt per sample', variant: {} },
  },
  estimateCost: (_variant, ctx) => {
    const requests = batchedRequests(ctx);
    const answers = ctx.tasks * ctx.n;
    return {
      llmRequests: requests,
      llmAnswers: answers,
      sandboxRuns: answers,
      estimate: false,
      shared: [{ part: 'rag', atCellTemperature: true, templated: true, requests, answers }],
    };
  },
  sharedRequestFamilies: (_variant, cell) => [ragAnswerFamily(cell)],
  outlineTrace: () => [],
} as const satisfies MethodDefinition<'rag', RagVariant>;
