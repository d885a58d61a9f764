/**
 * A throwaway method kind, defined outside methods/ to prove that a method is its folder plus its
 * registration: `second-look` shows the model each sample's first answer again and keeps the
 * second one. Pure, like every definition: the planner and the config loader read it.
 */
import { type MethodDefinition } from '../../../domain/methods/types.js';

export interface SecondLookVariant {
  /** false: the first answer is final (no second request). */
  lookAgain: boolean;
}

export const secondLookMethod = {
  kind: 'second-look',
  needsLibrary: true,
  needsChat: true,
  promptTemplateScope: 'none of its requests',
  optionsRead: [],
  names: {
    'second-look': {
      description: "each sample's first answer is shown to the model again; the second is final",
      variant: { lookAgain: true },
    },
  },
  estimateCost: (variant, ctx) => {
    const answers = ctx.tasks * ctx.n * (variant.lookAgain ? 2 : 1);
    return { llmRequests: answers, llmAnswers: answers, sandboxRuns: ctx.tasks * ctx.n, estimate: false, shared: [] };
  },
  sharedRequestFamilies: () => [],
  outlineTrace: (trace) => [`second look: ${trace.finals?.length ?? 0} final answers`],
} as const satisfies MethodDefinition<'second-look', SecondLookVariant>;

/** The second request's closing words (the scripted model tells the two requests apart by them). */
export const LOOK_AGAIN = 'Look at your answer again and give the final solution.';
