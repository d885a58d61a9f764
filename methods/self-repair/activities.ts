/** self-repair's own LLM-queue activity (its first answers are rag's, its budget ExploraCoder's plan). */
import { ApplicationFailure } from '@temporalio/common';
import { SnippetRunSchema } from '../../domain/methods/artifacts.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import {
  chatOnly,
  defineMethodActivities,
  finalSampling,
  methodContext,
  type LlmStepResult,
  type MethodActivityDeps,
} from '../../activities/llm/methodKit.js';
import { repairMessages } from './prompts.js';
import { createSelfRepairTraceActivities } from './trace.js';

export function createSelfRepairActivities(deps: MethodActivityDeps) {
  const { answerStep, context, mustRead } = methodContext(deps);
  const { llm } = deps;
  return {
    /** self-repair: a fixed version of sample `sampleIndex`'s last answer, from its visible-example run. */
    async repairSample(input: {
      ref: MethodTaskRef;
      sampleIndex: number;
      firstKey: string;
      previousKey: string;
      runKey: string;
      round: number;
      budget: number;
    }): Promise<LlmStepResult> {
      const { ref } = input;
      chatOnly(ref.endpoint);
      const { problem } = await context(ref);
      const first = await llm.readLlmRecord(input.firstKey);
      const previous = await llm.readLlmRecord(input.previousKey);
      const run = await mustRead(input.runKey, SnippetRunSchema, 'visible-example run');
      if (!first || !previous) throw new Error(`LLM record ${!first ? input.firstKey : input.previousKey} is missing`);
      const request = first.request as { body?: { messages?: Array<{ role: 'system' | 'user' | 'assistant'; content: string }> } };
      const firstMessages = request.body?.messages;
      if (!firstMessages)
        throw ApplicationFailure.nonRetryable('self-repair needs a chat model (the first answer has no messages)', 'LlmConfigError');
      const feedback = `${run.error ?? run.status}${run.stdout.trim() ? `\noutput:\n${run.stdout}` : ''}`;
      const messages = repairMessages(
        firstMessages,
        problem,
        run.code,
        `${feedback}\n(repair round ${input.round} of at most ${input.budget})`,
        ref.options.observation_chars,
      );
      return answerStep(ref.endpoint, finalSampling(ref.sampling), messages, input.sampleIndex);
    },
  };
}

export type SelfRepairActivities = ReturnType<typeof createSelfRepairActivities>;

export const selfRepairActivities = defineMethodActivities({
  kind: 'self-repair',
  llm: createSelfRepairActivities,
  storage: createSelfRepairTraceActivities,
});
