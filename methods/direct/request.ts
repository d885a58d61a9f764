/**
 * `direct`: one generation per sample straight from the task's prompt, the baseline every other
 * method is compared with. The prompt is the task family's; the system message and the code
 * fence are the language's; a model's prompt template (promptTemplate.ts) replaces the parts it
 * gives.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import { fimPrompt } from '../../domain/llm/fim.js';
import type { LlmApi, LlmBody } from '../../domain/llm/request.js';
import { chatInstructionOf, chatMessagesOf, completionPromptOf, type PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { samplingFields, type Sampling } from '../../domain/methods/sampling.js';

/**
 * The family's own message (FamilySteps.chatMessage) unless the template gives an instruction; else the
 * family's instruction (or the template's), then the prompt's code in a fenced block of its language.
 */
export function chatUserMessage(problem: SweepProblem, template?: PromptTemplate): string {
  const own = template?.instruction === undefined ? familyOf(problem).chatMessage?.(problem) : undefined;
  if (own !== undefined) return own;
  return `${chatInstructionOf(problem, template)}\n\n\`\`\`${languageOf(problem).fenceTag}\n${problem.prompt}\`\`\`\n`;
}

/**
 * The request for sample `sampleIndex`, or with `choices` > 1 for that many consecutive samples from
 * it in one request (the API's `n`; its seed is its first sample's).
 */
export function directRequestBody(problem: SweepProblem, api: LlmApi, sampling: Sampling, sampleIndex: number, choices = 1): LlmBody {
  const common = { ...samplingFields(sampling, sampleIndex), ...(choices > 1 ? { n: choices } : {}) };
  return api === 'chat'
    ? { ...common, messages: chatMessagesOf(problem, chatUserMessage(problem, sampling.prompt), sampling.prompt) }
    : { ...common, prompt: completionPrompt(problem, sampling) };
}

/**
 * The completion model's prompt: the family's, continued left to right; or, for a task asked as a
 * gap to fill, the FIM prompt of its parts with the model's FIM tokens, the template's prefix and
 * instruction before the task's prefix (where bigcode puts its --prefix).
 */
function completionPrompt(problem: SweepProblem, sampling: Sampling): string {
  const parts = familyOf(problem).infill?.(problem);
  if (!parts) return completionPromptOf(familyOf(problem).completionPrompt(problem), sampling.prompt);
  if (!sampling.fim) throw new Error(`task ${problem.task_id} fills in the middle: its model needs FIM tokens (models[i].fim)`);
  return fimPrompt(sampling.fim, { prefix: completionPromptOf(parts.prefix, sampling.prompt), suffix: parts.suffix });
}
