/**
 * CAPIR / EpiGen / CAPIR + Self-Repair's own LLM-queue activities (their plan and per-subtask
 * retrieval are ExploraCoder's planTask and recommendApis): the generation from the kept docs, and
 * the two stages of a repair. Every model call goes through the LLM cache.
 */
import { stripThinking } from '../../domain/llm/extract.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import { SnippetRunSchema } from '../../domain/methods/artifacts.js';
import { chatBody } from '../../domain/methods/chat.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import { docsByPath } from '../../infra/library.js';
import { laidOut } from '../../infra/llm/llm.js';
import {
  chatOnly,
  defineMethodActivities,
  finalSampling,
  methodContext,
  type LlmStepResult,
  type MethodActivityDeps,
} from '../../activities/llm/methodKit.js';
import { capirMessages, feedbackMessages, repairFromFeedbackMessages } from './prompts.js';
import { createCapirTraceActivities } from './trace.js';

export function createCapirActivities(deps: MethodActivityDeps) {
  const { answerStep, context, mustRead, planAndRecommendation, messagesOf } = methodContext(deps);
  const { llm } = deps;
  return {
    /**
     * CAPIR / EpiGen: one generation per sample, from the task and the docs the per-subtask reranks
     * kept (in rerank order, each once), EpiGen with the plan too; the cell's prompt template shapes
     * it as it shapes rag's chat request.
     */
    async generateCapir(input: {
      ref: MethodTaskRef;
      planKey: string;
      recommendKey: string;
      withPlan: boolean;
      sampleIndices: number[];
    }): Promise<LlmCallSummary[]> {
      const { ref } = input;
      chatOnly(ref.endpoint);
      const { problem, library } = await context(ref);
      const { plan, rec } = await planAndRecommendation(input.planKey, input.recommendKey);
      const docs = docsByPath(library, [...new Set(rec.subtasks.flatMap((s) => s.kept))]);
      const messages = capirMessages(problem, docs, library.library.name, input.withPlan ? plan.subtasks : null, ref.sampling.prompt);
      const calls = laidOut(ref.endpoint, input.sampleIndices, (first, choices) =>
        chatBody(finalSampling(ref.sampling), messages, first, choices),
      );
      return llm.callLlm({ endpoint: ref.endpoint, calls });
    },

    /**
     * CAPIR + Self-Repair, stage 1: the model's feedback in words on sample `sampleIndex`'s answer
     * at `previousKey`, from its run on the example inputs (`runKey`, which raised).
     */
    async repairFeedback(input: {
      ref: MethodTaskRef;
      sampleIndex: number;
      firstKey: string;
      previousKey: string;
      runKey: string;
      round: number;
    }): Promise<LlmStepResult> {
      const { ref } = input;
      const { problem } = await context(ref);
      const firstMessages = await messagesOf(input.firstKey);
      const run = await mustRead(input.runKey, SnippetRunSchema, 'example-input run');
      const messages = feedbackMessages(firstMessages, problem, run.code, run.error ?? run.status, ref.options.observation_chars);
      return answerStep(ref.endpoint, finalSampling(ref.sampling), messages, input.sampleIndex);
    },

    /** CAPIR + Self-Repair, stage 2: the code, from the stage-1 request and its feedback. */
    async repairFromFeedback(input: { ref: MethodTaskRef; sampleIndex: number; feedbackKey: string }): Promise<LlmStepResult> {
      const { ref } = input;
      const { problem } = await context(ref);
      const record = await llm.readLlmRecord(input.feedbackKey);
      if (!record) throw new Error(`LLM record ${input.feedbackKey} is missing`);
      const feedbackPrompt = await messagesOf(input.feedbackKey);
      const messages = repairFromFeedbackMessages(feedbackPrompt, stripThinking(record.text), problem);
      return answerStep(ref.endpoint, finalSampling(ref.sampling), messages, input.sampleIndex);
    },
  };
}

export type CapirActivities = ReturnType<typeof createCapirActivities>;

export const capirActivities = defineMethodActivities({
  kind: 'capir',
  llm: createCapirActivities,
  storage: createCapirTraceActivities,
});
