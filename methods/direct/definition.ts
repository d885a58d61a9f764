/** `direct`: one request per sample straight from the task's prompt; the baseline. */
import { batchedRequests, type MethodDefinition } from '../../domain/methods/types.js';

/** direct has no switches. */
export type DirectVariant = Record<string, never>;

export const directMethod = {
  kind: 'direct',
  needsLibrary: false,
  needsChat: false,
  promptTemplateScope: 'its one request per sample',
  optionsRead: [],
  names: {
    direct: { description: 'one request per sample; the extracted code is run against the hidden tests', variant: {} },
  },
  estimateCost: (_variant, ctx) => ({
    llmRequests: batchedRequests(ctx),
    llmAnswers: ctx.tasks * ctx.n,
    sandboxRuns: ctx.tasks * ctx.n,
    estimate: false,
    shared: [],
  }),
  sharedRequestFamilies: () => [],
  outlineTrace: () => [],
} as const satisfies MethodDefinition<'direct', DirectVariant>;
