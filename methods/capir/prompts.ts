/**
 * The prompts of the decomposed-retrieval baselines: CAPIR's one generation (the task and the docs
 * its per-subtask reranks kept, in rag's DocPrompting layout so the two differ only in retrieval),
 * EpiGen's (the same with the plan), and CAPIR + Self-Repair's two stages: feedback first (what went
 * wrong, in words, no code), then the code from that feedback.
 */
import type { ApiDoc } from '../../domain/apidocs/library.js';
import { isStatementTask, type SweepProblem } from '../../domain/datasets/problems.js';
import type { ChatMessage } from '../../domain/llm/request.js';
import { clip, pythonBlock } from '../../domain/methods/chat.js';
import { formatPlan } from '../exploracoder/plan.js';
import { chatMessagesOf, type PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { ragUserMessage } from '../rag/request.js';

/**
 * CAPIR's (EpiGen's, with the plan) generation, in rag's layout; a cell's prompt template shapes it
 * as it shapes rag's chat request (system message, instruction). The feedback and repair turns of
 * CAPIR + Self-Repair continue this conversation in the method's own words.
 */
export function capirMessages(
  problem: SweepProblem,
  docs: readonly ApiDoc[],
  libraryName: string,
  plan: readonly string[] | null,
  template?: PromptTemplate,
): ChatMessage[] {
  const planned = plan === null ? '' : `\nA plan for the task, one API subtask per step:\n${formatPlan([...plan])}\n`;
  return chatMessagesOf(problem, ragUserMessage(problem, docs, libraryName, template) + planned, template);
}

function what(problem: SweepProblem): string {
  return isStatementTask(problem) ? 'script' : `function \`${problem.entry_point}\``;
}

/** Stage 1 of a repair: the model explains the error, in words. */
export function feedbackMessages(
  first: readonly ChatMessage[],
  problem: SweepProblem,
  code: string,
  error: string,
  maxChars: number,
): ChatMessage[] {
  return [
    ...first,
    { role: 'assistant', content: pythonBlock(code) },
    {
      role: 'user',
      content:
        `Running your ${what(problem)} on the task's example inputs raised an error:\n${clip(error.replace(/\s+$/, ''), maxChars)}\n\n` +
        'Explain in a few sentences what is wrong with the code and how to fix it. Do not write the code yet.',
    },
  ];
}

/** Stage 2: the code, from the model's own feedback. */
export function repairFromFeedbackMessages(feedbackPrompt: readonly ChatMessage[], feedback: string, problem: SweepProblem): ChatMessage[] {
  return [
    ...feedbackPrompt,
    { role: 'assistant', content: feedback },
    { role: 'user', content: `Now write the corrected complete ${what(problem)} in one \`\`\`python code block.` },
  ];
}
