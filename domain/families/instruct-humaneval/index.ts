/**
 * InstructHumanEval, as bigcode-evaluation-harness's `instruct-humaneval` (the instruction, then the
 * context: imports and signature, which the model continues) and `instruct-humaneval-nocontext`
 * (the instruction alone) run it: the rows of Hugging Face's codeparrot/instructhumaneval (test
 * split: task_id, prompt, canonical_solution, test, entry_point, signature, docstring, context,
 * instruction), the prompt laid out with the model's instruction tokens (bigcode's
 * `--instruction_tokens` user,end,assistant), the answer read back as bigcode's _parse_instruction
 * and the task's postprocess_generation read it, then "\n" + test + "\n" + check(entry_point): pass@k.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { LlmApi } from '../../llm/request.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { flag, readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { selfChecking } from '../humanevalStyle.js';
import type { DefinedFamily, ProblemOf } from '../types.js';

/** bigcode's stop words for the task (its tokenizer's EOS, which it adds, ends a completion at the server). */
export const INSTRUCT_HUMANEVAL_STOP_WORDS = ['if __name__', '\nprint', '\nclass'] as const;

export type InstructionTokens = readonly [user: string, end: string, assistant: string];

/** bigcode's stop words as its generation extends them: the task's, then each instruction token not blank. */
export function instructStopWords(tokens: InstructionTokens): string[] {
  return [...INSTRUCT_HUMANEVAL_STOP_WORDS, ...tokens.filter((t) => t.trim() !== '')];
}

/** bigcode's _make_instruction_prompt (no --prefix): user + instruction + end + assistant + context. */
export function instructPrompt(tokens: InstructionTokens, instruction: string, context: string): string {
  const [user, end, assistant] = tokens;
  return user + instruction + end + assistant + context;
}

/** bigcode's _parse_instruction: the text after the first assistant token (else end token); all of it when both are empty or absent. */
export function parseInstruction(code: string, tokens: InstructionTokens): string {
  const [, end, assistantToken] = tokens;
  let assistant = assistantToken;
  if (!assistant && end) assistant = end;
  else if (!assistant && !end) return code;
  const at = code.indexOf(assistant);
  if (at === -1) return code;
  if (assistant.includes('```python')) {
    const fence = code.indexOf('```python', at);
    // Python's code[-1 + 9:] when the fence is missing.
    return code.slice((fence === -1 ? -1 : fence) + '```python'.length);
  }
  return code.slice(at + assistant.length);
}

/** bigcode's _stop_at_stop_token: the text before the first stop word. */
function stopAtStopToken(text: string, stops: readonly string[]): string {
  let end = text.length;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

/** bigcode's remove_after_return: the text before the first line, after the first, that starts with a non-space character. */
export function removeAfterReturn(code: string): string {
  const lines = /[^\n]+(\n|$)/g;
  let seenOne = false;
  for (const match of code.matchAll(lines)) {
    const start = match.index;
    if (seenOne && start < code.length && pyStrip(code[start]!) !== '') return code.slice(0, start);
    seenOne = true;
  }
  return code;
}

/** Python's str.find over a slice's result: -1 stays -1 (slices from the end are not asked here). */
const find = (text: string, what: string) => text.indexOf(what);

/** InstructHumanEvalWithContext.postprocess_generation. */
export function postprocessWithContext(generation: string, entryPoint: string, stops: readonly string[]): string {
  const text = stopAtStopToken(generation, stops);
  const funcIndex = find(text, `def ${entryPoint}`);
  // Python's generation[0:-1] + generation[-1:] when the function is missing.
  const cut = funcIndex === -1 ? text.length - 1 : funcIndex;
  return text.slice(0, Math.max(cut, 0)) + removeAfterReturn(funcIndex === -1 ? text.slice(-1) : text.slice(funcIndex));
}

/** InstructHumanEvalWithoutContext.postprocess_generation. */
export function postprocessWithoutContext(generation: string, context: string, entryPoint: string, stops: readonly string[]): string {
  const at = find(context, `def ${entryPoint}`);
  // Python's prompt[0:-1] when the context has no such function.
  const prefix = context.slice(0, at === -1 ? Math.max(context.length - 1, 0) : at);
  let text = generation;
  const sep = find(text, '```');
  if (sep !== -1) text = text.slice(sep + 3, sep + 9) === 'python' ? text.slice(sep + 9) : text.slice(sep + 3);
  text = stopAtStopToken(text, stops);
  let funcIndex = find(text, `def ${entryPoint}`);
  if (funcIndex === -1) funcIndex = 0;
  let returnIndex = text.slice(funcIndex).lastIndexOf('  return ');
  if (returnIndex === -1) returnIndex = 0;
  let j = funcIndex + returnIndex;
  while (j < text.length && text[j] !== '\n') j++;
  const sep2 = find(text, '```');
  return pyStrip(prefix) + '\n' + text.slice(funcIndex, sep2 === -1 ? j : Math.min(j, sep2));
}

const TokensSchema = z
  .array(z.string())
  .length(3, "must be exactly 3 tokens: user, end, assistant (on the command line separated by commas, '' for an empty one)")
  .transform((tokens) => tokens as unknown as InstructionTokens);

/** bigcode's --instruction_tokens: the entry's instruction_tokens (a list) and evaluate.ts's --instruction-tokens (user,end,assistant). */
const INSTRUCT_OPTIONS = familyOptions({
  /** [user, end, assistant], the delimiters the model was tuned with. */
  instruction_tokens: option(TokensSchema, {
    help: "bigcode's --instruction_tokens, user,end,assistant (evaluate.ts's default: none, none and a newline, the prompt bigcode makes without them)",
    value: 'csv',
    text: (csv) => csv.split(',').map((token) => (token === "''" ? '' : token)),
  }),
});

export const InstructHumanEvalEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('instruct-humaneval'),
  /** codeparrot/instructhumaneval's test split (Parquet), or its rows as JSON Lines; local or s3://. */
  path: RowsFileSchema,
  /** false: bigcode's instruct-humaneval-nocontext (the instruction alone). */
  context: z.boolean().default(true),
  ...INSTRUCT_OPTIONS.entry,
});

const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  canonical_solution: z.string(),
  test: z.string(),
  entry_point: z.string().min(1),
  context: z.string(),
  instruction: z.string(),
});

const PayloadSchema = z.object({
  instruct: z.object({ context: z.string(), with_context: z.boolean(), tokens: TokensSchema }),
});
type InstructProblem = ProblemOf<z.output<typeof PayloadSchema>>;

/** The rows as problems: HumanEval's task ids, bigcode's prompt with the tokens, HumanEval's prompt + solution as the reference. */
export function instructProblems(text: string, withContext: boolean, tokens: InstructionTokens, source: string): InstructProblem[] {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  return rows.map(({ row }) => ({
    family: 'instruct-humaneval' as const,
    task_id: row.task_id,
    prompt: instructPrompt(tokens, row.instruction, withContext ? row.context : ''),
    entry_point: row.entry_point,
    test: row.test,
    canonical_solution: row.prompt + row.canonical_solution,
    form: 'full' as const,
    instruct: { context: row.context, with_context: withContext, tokens: [...tokens] as [string, string, string] },
  }));
}

/**
 * The program a generation stands for. A completion: bigcode's reading of prompt + completion
 * (_parse_instruction, then the task's postprocess_generation over its stop words and the
 * instruction tokens); the completion ends where the request's stop words or the model's EOS end
 * it, which bigcode's generation also stops at. A chat answer's code, after the context's lines
 * before the function (its imports); a saved generation (bigcode's generations.json) as it is.
 */
export function instructSolution(problem: InstructProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'saved') return code;
  const { context, with_context, tokens } = problem.instruct;
  if (api === 'chat') {
    const at = context.indexOf(`def ${problem.entry_point}`);
    return pyStrip(context.slice(0, at === -1 ? 0 : at)) + '\n' + code;
  }
  const stops = instructStopWords(tokens);
  const generation = parseInstruction(problem.prompt + code, tokens);
  return with_context
    ? postprocessWithContext(generation, problem.entry_point, stops)
    : postprocessWithoutContext(generation, context, problem.entry_point, stops);
}

/** evaluate.ts's --instruction-tokens: bigcode's comma-separated user,end,assistant. */
const instructVariantOption = z
  .enum(['context', 'nocontext'])
  .optional()
  .meta(
    flag({
      description: "nocontext for bigcode's instruct-humaneval-nocontext (set by --tasks)",
      value: 'which',
    }),
  );

export const instructHumanEvalFamily: DefinedFamily<
  'instruct-humaneval',
  typeof InstructHumanEvalEntrySchema,
  z.output<typeof PayloadSchema>
> = defineFamily({
  id: 'instruct-humaneval',
  description: "InstructHumanEval (bigcode's instruct-humaneval, -nocontext): HumanEval as an instruction, with the model's tokens; pass@k",
  entrySchema: InstructHumanEvalEntrySchema,
  payloadSchema: PayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({
    problems: instructProblems(texts.rows!, entry.context, entry.instruction_tokens, sources.rows!),
    notes: [],
  }),
  stopWords: (entry) => instructStopWords(entry.instruction_tokens),
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `Write the Python function \`${problem.entry_point}\` the text below asks for. ` +
    'Reply with the complete function in one ```python code block.',
  solution: instructSolution,
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  ...selfChecking,
  // bigcode's get_reference, after the candidate and a newline.
  tests: (problem) => `\n${problem.test}\ncheck(${problem.entry_point})`,
  evaluate: readsProblemsFiles({
    bigcodeTasks: {
      names: 'instruct-humaneval, instruct-humaneval-nocontext',
      read: (task) =>
        task === 'instruct-humaneval'
          ? { options: { instructVariant: 'context' } }
          : task === 'instruct-humaneval-nocontext'
            ? { options: { instructVariant: 'nocontext' } }
            : null,
    },
    recognize: {
      rank: 15,
      test: (row) => 'instruction' in row && 'context' in row && 'entry_point' in row,
      fields: "InstructHumanEval's task_id, instruction, context, entry_point, test",
    },
    // The variant is the entry's `context` read as bigcode's task names it, so declared here alone.
    options: INSTRUCT_OPTIONS.evaluate.extend({ instructVariant: instructVariantOption }),
    form: 'full',
    problems: ({ text, source, options }) =>
      instructProblems(text, options.instructVariant !== 'nocontext', options.instruction_tokens ?? ['', '', '\n'], source),
  }),
});
