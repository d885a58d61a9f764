/** second-look's LLM-queue activity: one answer of one sample, the first or the second look. */
import type { ChatMessage } from '../../../domain/llm/request.js';
import type { MethodTaskRef } from '../../../domain/methods/taskRef.js';
import {
  defineMethodActivities,
  finalSampling,
  methodContext,
  type LlmStepResult,
  type MethodActivityDeps,
} from '../../../activities/llm/methodKit.js';
import { LOOK_AGAIN } from './definition.js';
import { createSecondLookTraceActivities } from './trace.js';

export function createSecondLookActivities(deps: MethodActivityDeps) {
  const { answerStep, context } = methodContext(deps);
  return {
    async secondLookAnswer(input: { ref: MethodTaskRef; sampleIndex: number; firstKey?: string }): Promise<LlmStepResult> {
      const { ref } = input;
      const { problem } = await context(ref);
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You write Python functions.' },
        { role: 'user', content: `Complete this function:\n${problem.prompt}` },
      ];
      if (input.firstKey) {
        const first = await deps.llm.readLlmRecord(input.firstKey);
        if (!first) throw new Error(`LLM record ${input.firstKey} is missing`);
        messages.push({ role: 'assistant', content: first.text }, { role: 'user', content: LOOK_AGAIN });
      }
      return answerStep(ref.endpoint, finalSampling(ref.sampling), messages, input.sampleIndex);
    },
  };
}

export type SecondLookActivities = ReturnType<typeof createSecondLookActivities>;

export const secondLookActivities = defineMethodActivities({
  kind: 'second-look',
  llm: createSecondLookActivities,
  storage: createSecondLookTraceActivities,
});
