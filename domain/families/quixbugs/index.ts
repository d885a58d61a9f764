/**
 * QuixBugs (Python), as bigcode-evaluation-harness's `quixbugs` task runs it: the rows of Hugging
 * Face's Muennighoff/quixbugs (quixbugs_python.jsonl: name, buggy_program, docstring, solution,
 * tests), a buggy function to fix in one of bigcode's prompt formats (`--prompt`: prompt, edit,
 * prompt_codex), the answer cut at its last stop word, and the row's tests (assertions) run after
 * it: pass@k, each program given at least bigcode's 10 s.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { ExecutionLimits } from '../../execution/types.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import { FINISH_LENGTH, type LlmApi } from '../../llm/request.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { defineFamily } from '../define.js';
import { QUIXBUGS_SCORES } from './taskScores.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { statusScore } from '../humanevalStyle.js';
import { removeLastBlock } from '../repairText.js';
import { familyOptions, option } from '../familyOptions.js';
import type { AnswerEnding, DefinedFamily, ProblemOf, Requirement, TaskChecking, TaskScore } from '../types.js';

/**
 * bigcode's prompt formats for QuixBugs. `edit-openai` is not one: bigcode's constructor refuses
 * it (no stop words are defined for it) before get_prompt could return its (code, instruction) pair.
 */
export const QUIXBUGS_PROMPTS = ['prompt', 'edit', 'prompt_codex'] as const;
export type QuixBugsPrompt = (typeof QUIXBUGS_PROMPTS)[number];

/** bigcode's stop words for `edit`. */
export const QUIXBUGS_EDIT_STOP_WORDS = ['<commit_before>', '<commit_msg>', '<commit_after>', '<|endoftext|>'] as const;

/**
 * bigcode's stop words for every other format: its `prompt.startswith("prompt")` branch comes
 * before its `prompt_codex` one, so prompt_codex gets these too (`\ndef` among them).
 */
export const QUIXBUGS_PROMPT_STOP_WORDS = ['\ndef', '\nclass', '\n#', '\n@', '\nprint', '\nif', '###', '///', '<|endoftext|>'] as const;

export function quixBugsStopWords(prompt: QuixBugsPrompt): readonly string[] {
  return prompt === 'edit' ? QUIXBUGS_EDIT_STOP_WORDS : QUIXBUGS_PROMPT_STOP_WORDS;
}

/** bigcode's get_prompt, stripped as it returns it. */
export function quixBugsPrompt(prompt: QuixBugsPrompt, row: { name: string; buggy_program: string }): string {
  switch (prompt) {
    case 'edit':
      return pyStrip(`<commit_before>${row.buggy_program}<commit_msg>Fix bug in ${row.name}<commit_after>`);
    case 'prompt':
      return pyStrip(`# Buggy function\n${row.buggy_program}\n# Fixed function\ndef`);
    case 'prompt_codex':
      return pyStrip(`### fix the bug in the following function\n${row.buggy_program}\n### fixed function`);
  }
}

/** The prompt option's schema: bigcode's formats, edit-openai refused by name. */
const PromptSchema = z
  .string()
  .refine((p) => p !== 'edit-openai', {
    message: 'edit-openai is not a QuixBugs prompt bigcode runs (its QuixBugs constructor refuses it: no stop words for it)',
  })
  .pipe(z.enum(QUIXBUGS_PROMPTS, { error: `must be one of bigcode's QuixBugs prompts: ${QUIXBUGS_PROMPTS.join(', ')}` }));

/** bigcode's `--prompt` for the task: the entry's `prompt` and evaluate.ts's `--prompt`. */
const QUIX_OPTIONS = familyOptions({
  prompt: option(PromptSchema.default('prompt'), {
    help: "bigcode's --prompt: prompt, edit or prompt_codex (default prompt)",
    value: 'format',
  }),
});

export const QuixBugsEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('quixbugs'),
  /** quixbugs_python.jsonl, or the train split's Parquet; local or s3://. */
  path: RowsFileSchema,
  ...QUIX_OPTIONS.entry,
});
export type QuixBugsEntry = z.output<typeof QuixBugsEntrySchema>;

const RowSchema = z.looseObject({
  name: z.string().min(1),
  buggy_program: z.string(),
  solution: z.string(),
  tests: z.string(),
});

const QuixBugsPayloadSchema = z.object({ quixbugs: z.object({ prompt: z.enum(QUIXBUGS_PROMPTS) }) });
type QuixBugsProblem = ProblemOf<z.output<typeof QuixBugsPayloadSchema>>;

/** The rows as problems: task id `quixbugs/<name>`, bigcode's prompt, the tests stripped (get_reference). */
export function quixBugsProblems(text: string, prompt: QuixBugsPrompt, source: string): QuixBugsProblem[] {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  const seen = new Map<string, number>();
  return rows.map(({ line, row }) => {
    const first = seen.get(row.name);
    if (first !== undefined) throw new Error(`${source}:${line}: name: ${row.name} is given twice (first on line ${first})`);
    seen.set(row.name, line);
    return {
      family: 'quixbugs' as const,
      task_id: `quixbugs/${row.name}`,
      prompt: quixBugsPrompt(prompt, row),
      entry_point: row.name,
      test: pyStrip(row.tests),
      canonical_solution: row.solution,
      form: 'completion' as const,
      quixbugs: { prompt },
    };
  });
}

/**
 * The fixed function a generation stands for. A completion is bigcode's post-processing of its
 * generation: the text after the prompt (`def` put back for `prompt`) as bigcode's stopping
 * criterion ends it (at the end of the first stop word to appear), cut before the last stop word
 * (remove_last_block): a generation without any stop word (the token limit hit) gives nothing. A
 * model's answer (`ending` known) had the request's first stop words dropped by the endpoint, so
 * its text without a stop word is what came before one, unless the endpoint cut it at max_tokens
 * with no stop word in it: then it is one bigcode keeps nothing of. A completion from a file (no
 * `ending`) is read as the endpoint returned it, the stop word it ended on dropped: kept. A chat
 * answer is the fixed function; a saved generation (bigcode's generations.json) is already
 * post-processed.
 */
export function quixBugsSolution(problem: QuixBugsProblem, api: LlmApi | 'saved', code: string, ending?: AnswerEnding): string {
  if (api !== 'completions') return code;
  const { prompt } = problem.quixbugs;
  const stops = quixBugsStopWords(prompt);
  const generation = (prompt === 'prompt' ? 'def' : '') + truncateAtStopWords(code, stops, { keepStopWord: true });
  if (stops.some((s) => generation.includes(s))) return removeLastBlock(generation, stops);
  const cutWithoutStopWord = ending?.finishReason === FINISH_LENGTH && !stops.some((s) => ending.raw.includes(s));
  return cutWithoutStopWord ? '' : generation;
}

/** bigcode's compute_code_eval timeout for QuixBugs ("Levenshtein distance is slow"). */
export const QUIXBUGS_TIMEOUT_MS = 10_000;

export const quixBugsFamily: DefinedFamily<'quixbugs', typeof QuixBugsEntrySchema, z.output<typeof QuixBugsPayloadSchema>> = defineFamily({
  id: 'quixbugs',
  description: "QuixBugs (bigcode's quixbugs): fix a buggy Python function; its tests run after the fix (pass@k)",
  entrySchema: QuixBugsEntrySchema,
  payloadSchema: QuixBugsPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: quixBugsProblems(texts.rows!, entry.prompt, sources.rows!), notes: [] }),
  stopWords: (entry) => quixBugsStopWords(entry.prompt),
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `The Python function \`${problem.entry_point}\` below has a bug on one line. ` +
    'Reply with the whole fixed function (its signature and any imports it needs) in one ```python code block.',
  solution: quixBugsSolution,
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (_problem, solution) => solution,
  checking: (): TaskChecking => ({ kind: 'tests' }),
  // bigcode runs the candidate, a newline, then the tests (Python's assemble does the same).
  tests: (problem) => problem.test,
  limits: (_problem, _reference, timeoutMs): Partial<ExecutionLimits> => ({ timeoutMs: Math.max(timeoutMs, QUIXBUGS_TIMEOUT_MS) }),
  scoreKinds: [QUIXBUGS_SCORES],
  // A run's pass or fail, of the kind whose cell figures are bigcode's process_results (taskScores.ts).
  score: (problem, outcome): TaskScore => ({ ...statusScore(problem, outcome), kind: 'quixbugs' }),
  requirements: (): readonly Requirement[] => [],
  evaluate: readsProblemsFiles({
    bigcodeTasks: { names: 'quixbugs', read: (task) => (task === 'quixbugs' ? {} : null) },
    recognize: {
      rank: 30,
      test: (row) => 'buggy_program' in row && 'tests' in row && 'name' in row,
      fields: "QuixBugs's name, buggy_program, solution, tests",
    },
    options: QUIX_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => quixBugsProblems(text, options.prompt ?? 'prompt', source),
  }),
});
