/**
 * `rag`: naive retrieval-augmented generation (DocPrompting style): the top-k API docs for the
 * whole task in one prompt, one generation per sample. For completion models the docs go in a
 * comment block above the prompt, so the text still continues the function.
 */
import type { ApiDoc } from '../../domain/apidocs/library.js';
import { formatApiDoc } from '../../domain/apidocs/corpus.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { LlmApi, LlmBody } from '../../domain/llm/request.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import { chatInstructionOf, chatMessagesOf, completionPromptOf, type PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { samplingFields, type Sampling } from '../../domain/methods/sampling.js';

/** The instruction (the family's, or the model's template's), the prompt's code, then the docs. */
export function ragUserMessage(problem: SweepProblem, docs: readonly ApiDoc[], libraryName: string, template?: PromptTemplate): string {
  return (
    `${chatInstructionOf(problem, template)} Use the library \`${libraryName}\`; relevant parts of its documentation follow the code.\n\n` +
    `\`\`\`${languageOf(problem).fenceTag}\n` +
    problem.prompt +
    '```\n\n' +
    `Documentation:\n${docs.map(formatApiDoc).join('\n\n')}\n`
  );
}

export function ragRequestBody(
  problem: SweepProblem,
  docs: readonly ApiDoc[],
  libraryName: string,
  api: LlmApi,
  sampling: Sampling,
  sampleIndex: number,
  choices = 1,
): LlmBody {
  const common = { ...samplingFields(sampling, sampleIndex), ...(choices > 1 ? { n: choices } : {}) };
  if (api === 'chat') {
    return { ...common, messages: chatMessagesOf(problem, ragUserMessage(problem, docs, libraryName, sampling.prompt), sampling.prompt) };
  }
  const comment = docs
    .map(formatApiDoc)
    .join('\n\n')
    .split('\n')
    .map((l) => `# ${l}`.trimEnd())
    .join('\n');
  // A template's prefix or instruct prompt goes before the docs: the completion continues the prompt.
  return {
    ...common,
    prompt: completionPromptOf(
      `# Documentation of ${libraryName}:\n${comment}\n\n${familyOf(problem).completionPrompt(problem)}`,
      sampling.prompt,
    ),
  };
}

/** The retrieval query for a whole task: its prompt without the boilerplate of the stub. */
export function ragQuery(problem: SweepProblem): string {
  return problem.prompt.replace(/raise NotImplementedError\(\)/g, '');
}
