/**
 * Python Bugs (He et al. 2022, CarperAI's preprocessing), as bigcode-evaluation-harness's
 * `python_bugs` task runs it: the rows of Hugging Face's Muennighoff/python-bugs (train split; fields
 * read: prompt_code, correct_code, task: bin-op or var-misuse), a buggy function to fix in one of
 * bigcode's prompt formats (`--prompt`: prompt, prompt_carper, edit), the answer cut to the
 * correct code's length, and bigcode's score: exact match with the correct code, averaged over
 * every sample ("mean exact match"). Scored from the text; nothing runs.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import type { LlmApi } from '../../llm/request.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { codePointLength, codePointPrefix } from '../repairText.js';
import { familyOptions, option } from '../familyOptions.js';
import { TEXT_SCORED_STEPS } from '../textScored.js';
import type { CorpusMetric, DefinedFamily, ProblemOf } from '../types.js';

/**
 * bigcode's prompt formats that build a prompt. Its table also has `prompt_present`, which its
 * mutate_code refuses (no template for it).
 */
export const PYTHON_BUGS_PROMPTS = ['prompt', 'prompt_carper', 'edit'] as const;
export type PythonBugsPrompt = (typeof PYTHON_BUGS_PROMPTS)[number];
const PROMPT_PRESENT = '; prompt_present is refused by its mutate_code: no template for it';

export const PYTHON_BUGS_TASKS = ['bin-op', 'var-misuse'] as const;
type PythonBugsTask = (typeof PYTHON_BUGS_TASKS)[number];

/** bigcode's MUTATE_TO_TASK_TO_PROMPT for the formats that build a prompt. */
const INSTRUCTIONS: Record<PythonBugsPrompt, Record<PythonBugsTask, string>> = {
  prompt_carper: { 'bin-op': '# Fixed binary operator', 'var-misuse': '# Fixed incorrect variable name' },
  prompt: { 'bin-op': '# Fixed binary operator', 'var-misuse': '# Fixed incorrect variable name' },
  edit: { 'bin-op': 'Fix binary operator', 'var-misuse': 'Fix incorrect variable name' },
};

/** bigcode's stop words for Python Bugs, whatever the prompt. */
export const PYTHON_BUGS_STOP_WORDS = [
  '\nclass',
  '\n#',
  '\ndef',
  '\nassert',
  '\n"',
  '\nprint',
  '\nif',
  '<commit_before>',
  '<commit_msg>',
  '<commit_after>',
  '<|endoftext|>',
] as const;

/** bigcode's mutate_code(input_code, task, prompt). */
export function pythonBugsPrompt(code: string, task: PythonBugsTask, prompt: PythonBugsPrompt): string {
  const instruction = INSTRUCTIONS[prompt][task];
  switch (prompt) {
    case 'prompt_carper':
      return `# A buggy implementation\n#!/usr/bin/python3\n${code}\n${instruction}\ndef`;
    case 'prompt':
      return `#!/usr/bin/python3\n# A buggy implementation\n${code}\n${instruction}\ndef`;
    case 'edit':
      return `<commit_before>${code}<commit_msg>${instruction}<commit_after>`;
  }
}

const PromptSchema = z
  .string()
  .refine((p) => p !== 'prompt_present', { message: `prompt_present is not a Python Bugs prompt bigcode runs${PROMPT_PRESENT}` })
  .pipe(z.enum(PYTHON_BUGS_PROMPTS, { error: `must be one of bigcode's Python Bugs prompts: ${PYTHON_BUGS_PROMPTS.join(', ')}` }));

/** bigcode's `--prompt` for the task: the entry's `prompt` and evaluate.ts's `--prompt`. */
const PYTHON_BUGS_OPTIONS = familyOptions({
  prompt: option(PromptSchema.default('prompt'), {
    help: "bigcode's --prompt: prompt, prompt_carper or edit (default prompt)",
    value: 'format',
  }),
});

export const PythonBugsEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('python-bugs'),
  /** The train split's rows: Parquet, or JSON Lines of the same rows; local or s3://. */
  path: RowsFileSchema,
  ...PYTHON_BUGS_OPTIONS.entry,
});

const RowSchema = z.looseObject({
  prompt_code: z.string(),
  correct_code: z.string(),
  task: z.enum(PYTHON_BUGS_TASKS, { error: `must be one of ${PYTHON_BUGS_TASKS.join(', ')}` }),
});

const PythonBugsPayloadSchema = z.object({ python_bugs: z.object({ prompt: z.enum(PYTHON_BUGS_PROMPTS), correct_code: z.string() }) });
type PythonBugsProblem = ProblemOf<z.output<typeof PythonBugsPayloadSchema>>;

/**
 * bigcode's score: a sample counts 1 when its post-processed generation is the correct code; the
 * figure is their sum over the tasks' samples, divided by the tasks and the samples per task
 * (process_results' num_correct / len(references) / len(generations[0])): the mean over every sample.
 */
export const PYTHON_BUGS_EXACT_MATCH: CorpusMetric = {
  id: 'mean-exact-match',
  samples: 'all',
  headline: 'mean exact match',
  figures: (sums, count) => ({ 'mean exact match': (sums.match ?? 0) / count }),
};

/** The rows as problems: task id `python_bugs/<row index>` (bigcode's index into the split), bigcode's prompt. */
export function pythonBugsProblems(text: string, prompt: PythonBugsPrompt, source: string): PythonBugsProblem[] {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  return rows.map(({ row }, index) => ({
    family: 'python-bugs' as const,
    task_id: `python_bugs/${index}`,
    prompt: pythonBugsPrompt(row.prompt_code, row.task, prompt),
    // No function is called: the entry point names the function to fix.
    entry_point: /^\s*def\s+([A-Za-z_]\w*)/.exec(row.correct_code)?.[1] ?? '(unnamed)',
    test: '',
    form: 'completion' as const,
    python_bugs: { prompt, correct_code: row.correct_code },
  }));
}

/**
 * The answer a generation stands for, as bigcode's postprocess_generation makes it: the text after
 * the prompt (`def` put back for the prompt* formats), its first len(correct_code) characters
 * (Python's: code points). bigcode cuts a generation after its first stop word, keeping the stop
 * word, and the cut to the correct code's length may keep part of it: so the request carries no
 * stop words (PYTHON_BUGS_REQUEST_STOP_WORDS) and a completion is ended here as bigcode's
 * stopping criterion ends it. A chat answer is the fixed function, cut the same; a saved
 * generation (bigcode's generations.json) is already post-processed.
 */
export function pythonBugsSolution(problem: PythonBugsProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'saved') return code;
  const { prompt, correct_code } = problem.python_bugs;
  const output =
    api === 'completions'
      ? (prompt.startsWith('prompt') ? 'def' : '') + truncateAtStopWords(code, PYTHON_BUGS_STOP_WORDS, { keepStopWord: true })
      : code;
  return codePointPrefix(output, codePointLength(correct_code));
}

/** What the request carries: nothing (pythonBugsSolution ends the text as bigcode's stopping criterion does). */
export const PYTHON_BUGS_REQUEST_STOP_WORDS: readonly string[] = [];

export const pythonBugsFamily: DefinedFamily<
  'python-bugs',
  typeof PythonBugsEntrySchema,
  z.output<typeof PythonBugsPayloadSchema>
> = defineFamily({
  id: 'python-bugs',
  description: "Python Bugs (bigcode's python_bugs): fix a binary operator or a variable name; exact match with the fix",
  entrySchema: PythonBugsEntrySchema,
  payloadSchema: PythonBugsPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: pythonBugsProblems(texts.rows!, entry.prompt, sources.rows!), notes: [] }),
  stopWords: () => PYTHON_BUGS_REQUEST_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () =>
    'The Python function below has one bug: a wrong binary operator or a wrong variable name. ' +
    'Reply with the whole fixed function, otherwise unchanged, in one ```python code block.',
  solution: pythonBugsSolution,
  // The correct code is what the samples are compared with (references.json), not a program to run.
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: (problem) => ({
    kind: 'text',
    metric: PYTHON_BUGS_EXACT_MATCH,
    reference: problem.python_bugs.correct_code,
    stats: (solution) => ({ match: solution === problem.python_bugs.correct_code ? 1 : 0 }),
  }),
  corpusMetrics: [PYTHON_BUGS_EXACT_MATCH],
  evaluate: readsProblemsFiles({
    bigcodeTasks: { names: 'python_bugs', read: (task) => (task === 'python_bugs' ? {} : null) },
    recognize: {
      rank: 30,
      test: (row) => 'prompt_code' in row && 'correct_code' in row,
      fields: "Python Bugs's prompt_code, correct_code, task",
    },
    options: PYTHON_BUGS_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => pythonBugsProblems(text, options.prompt ?? 'prompt', source),
  }),
});
