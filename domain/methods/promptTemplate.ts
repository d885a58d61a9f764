/**
 * A cell's prompt template (`models[i].prompt`, or a point of the `prompts:` axis): what replaces
 * the named default prompts in the requests that write a solution: direct's and rag's, and the
 * final-solution requests of the multi-step methods (the first answer of self-repair and CAPIR +
 * Self-Repair, whose repair turns continue that conversation; CAPIR's and EpiGen's generation;
 * ExploraCoder's final solution). The planner, reranks, exploration and debug prompts keep the
 * methods' own wording (each method's promptTemplateScope). Without a template, every request is
 * byte for byte what it was before templates existed (the LLM cache is keyed by the request body).
 *
 * - chat models: `system` replaces the language's system message (`''` sends none); `instruction`
 *   replaces the task family's instruction, the text before the fenced prompt.
 * - completion models: `prefix` goes before everything (bigcode's `--prefix`); `instruction`, with
 *   `instruction_tokens` [user, end, assistant] (bigcode's `--instruction_tokens`), makes bigcode's
 *   instruct prompt, the task's own prompt following the assistant marker so that the completion
 *   still continues it.
 */
import type { SweepProblem } from '../datasets/problems.js';
import { familyOf, languageOf } from '../families/registry.js';

export interface PromptTemplate {
  /** Chat: the system message (replaces the language's, or ExploraCoder's final step's own; '' sends none). */
  system?: string;
  /**
   * Chat: the instruction before the fenced prompt (ExploraCoder's final step: its closing sentence
   * asking for the code). Completions: the instruction of the instruct prompt.
   */
  instruction?: string;
  /** Completions: text before the whole prompt (bigcode's --prefix). */
  prefix?: string;
  /** Completions: bigcode's --instruction_tokens, [user, end, assistant]. */
  instruction_tokens?: [string, string, string];
}

/**
 * The tokens bigcode's harness uses when an instruct task gets none: no user or end marker and a
 * newline as the assistant's (`TokenizedDataset._make_instruction_prompt` in bigcode_eval/utils.py).
 */
export const BIGCODE_DEFAULT_INSTRUCTION_TOKENS: readonly [string, string, string] = Object.freeze(['', '', '\n']) as readonly [
  string,
  string,
  string,
];

/** The chat system message: the template's, else the family's (BigCodeBench sends none), else the language's. Null: send none. */
export function chatSystemMessage(problem: SweepProblem, template?: PromptTemplate): string | null {
  if (template?.system === undefined) {
    const family = familyOf(problem);
    return family.chatSystem ? family.chatSystem(problem) : languageOf(problem).systemPrompt;
  }
  return template.system === '' ? null : template.system;
}

/** What a chat model is asked to write, before the prompt's code: the template's instruction, else the family's. */
export function chatInstructionOf(problem: SweepProblem, template?: PromptTemplate): string {
  return template?.instruction ?? familyOf(problem).chatInstruction(problem);
}

/**
 * The text a completion model continues, from `context` (the text the completion must continue:
 * the family's completion prompt, after rag's docs comment for rag). Laid out as bigcode's
 * `_make_instruction_prompt` (bigcode_eval/utils.py) lays out instruct-humaneval's prompt:
 * prefix + user + instruction + end + assistant + context, where bigcode's context is the task's
 * signature and ours the task's prompt; with no instruction, prefix + context (bigcode's --prefix
 * before a plain task's prompt). Either way the completion continues `context`, so the solution is
 * the task's prompt + the completion, whatever came before it.
 */
export function completionPromptOf(context: string, template?: PromptTemplate): string {
  if (!template) return context;
  const prefix = template.prefix ?? '';
  if (template.instruction === undefined) return prefix + context;
  const [user, end, assistant] = template.instruction_tokens ?? BIGCODE_DEFAULT_INSTRUCTION_TOKENS;
  return prefix + user + template.instruction + end + assistant + context;
}

/**
 * A step's system message when the step has its own (ExploraCoder's final solution): the
 * template's, else the step's. Null: send none.
 */
export function stepSystemMessage(own: string, template?: PromptTemplate): string | null {
  if (template?.system === undefined) return own;
  return template.system === '' ? null : template.system;
}

/** The chat messages of a single-prompt request: the system message (unless the template drops it), then the user's. */
export function chatMessagesOf(
  problem: SweepProblem,
  user: string,
  template?: PromptTemplate,
): Array<{ role: 'system' | 'user'; content: string }> {
  const system = chatSystemMessage(problem, template);
  return [...(system === null ? [] : [{ role: 'system' as const, content: system }]), { role: 'user' as const, content: user }];
}
