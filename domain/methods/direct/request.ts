/**
 * `direct`: one generation per sample straight from the task's prompt, the baseline every other
 * method is compared with.
 */
import { isStatementTask, type SweepProblem } from '../../datasets/problems.js';
import type { LlmApi, LlmBody } from '../../llm/request.js';
import { samplingFields, type Sampling } from '../sampling.js';

const SYSTEM = 'You are an expert Python programmer. Answer with working Python code only.';

/**
 * For full-program tasks the prompt is a whole stub ending in `raise NotImplementedError()`; a
 * completion model must continue the function body instead, so that line is cut.
 */
export function completionPrompt(problem: SweepProblem): string {
  return problem.form === 'full' ? problem.prompt.replace(/\n[ \t]+raise NotImplementedError\(\)\s*$/, '\n') : problem.prompt;
}

/** What a chat model is asked to write: the function, or for a statement task the whole script. */
export function chatTaskInstruction(problem: SweepProblem): string {
  return isStatementTask(problem)
    ? 'Complete the following Python script: its last line is unfinished; finish it so that the script does what its comments ask. ' +
        'Reply with the whole script in one ```python code block.'
    : `Complete the following Python function \`${problem.entry_point}\`. ` +
        'Reply with the complete function (including its signature and any imports it needs) in one ```python code block.';
}

export function chatUserMessage(problem: SweepProblem): string {
  return `${chatTaskInstruction(problem)}\n\n\`\`\`python\n${problem.prompt}\`\`\`\n`;
}

/**
 * The request for sample `sampleIndex`, or with `choices` > 1 for that many consecutive samples from
 * it in one request (the API's `n`; its seed is its first sample's).
 */
export function directRequestBody(problem: SweepProblem, api: LlmApi, sampling: Sampling, sampleIndex: number, choices = 1): LlmBody {
  const common = { ...samplingFields(sampling, sampleIndex), ...(choices > 1 ? { n: choices } : {}) };
  return api === 'chat'
    ? { ...common, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: chatUserMessage(problem) }] }
    : { ...common, prompt: completionPrompt(problem) };
}
