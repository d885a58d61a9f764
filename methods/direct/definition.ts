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
  // A two-step dataset's second step is one request per sample (its prompt carries the sample's own first answer).
  estimateCost: (_variant, ctx) => {
    const secondSteps = ctx.twoSteps ? ctx.tasks * ctx.n : 0;
    return {
      llmRequests: batchedRequests(ctx) + secondSteps,
      llmAnswers: ctx.tasks * ctx.n + secondSteps,
      sandboxRuns: ctx.tasks * ctx.n,
      estimate: false,
      shared: [],
      ...(secondSteps > 0 ? { secondStepRequests: secondSteps } : {}),
    };
  },
  sharedRequestFamilies: () => [],
  outlineTrace: () => [],
} as const satisfies MethodDefinition<'direct', DirectVariant>;
