/**
 * ReCode's perturbed HumanEval, as bigcode-evaluation-harness's `perturbed-humaneval-<category>-num_seeds_<n>`
 * tasks run it (bigcode_eval/tasks/recode.py): the rows of Hugging Face's RaymondLi/perturbed_humaneval
 * (one config per category: format, func_name, natgen, nlaugmenter; split `test`), each a HumanEval
 * task under one perturbation and seed (task_id, prompt, entry_point, canonical_solution, test, seed,
 * perturbation_name), the rows of seed < num_seeds kept in file order. A completion model continues
 * the stripped prompt, the continuation is cut at bigcode's stop words, and the row's `check` runs
 * after it. Each row is a task here (pass@k over the variants); the cell's robust figures are
 * bigcode's process_results (robustScores.ts): per perturbation, a HumanEval task counts only when
 * the completions of all its seeds pass.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import type { LlmApi } from '../../llm/request.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { pyRstrip } from '../repairText.js';
import { familyOptions, option } from '../familyOptions.js';
import { chatTaskInstruction, selfChecking, solutionFromGeneration, statusScore } from '../humanevalStyle.js';
import type { DefinedFamily, ProblemOf, ScopedProblems, TaskScore } from '../types.js';
import { RecodePayloadSchema, type RecodePayload } from './payload.js';
import { RECODE_SCORES } from './robustScores.js';

/** bigcode's TRANSFORMATION_CATEGORIES: the dataset's configs, and the middle of its task names. */
export const RECODE_CATEGORIES = ['format', 'func_name', 'natgen', 'nlaugmenter'] as const;

/** bigcode's stop words for the task (GeneralPerturbedHumanEval.__init__). */
export const RECODE_STOP_WORDS: readonly string[] = Object.freeze(['\nclass', '\ndef', '\n#', '\n@', '\nprint', '\nif']);

/** bigcode's task names: perturbed-humaneval-<category>-num_seeds_<1..10> (create_all_tasks). */
const TASK_NAME = new RegExp(`^perturbed-humaneval-(${RECODE_CATEGORIES.join('|')})-num_seeds_([1-9]|10)$`);

/** Every seed the release has (0 to 9): what a file is scored with when no task name or flag says. */
export const RECODE_ALL_SEEDS = 10;

const RECODE_OPTIONS = familyOptions({
  num_seeds: option(z.int().min(1, 'must be at least 1').default(RECODE_ALL_SEEDS), {
    help: "bigcode's num_seeds: only the rows of seed < n are scored (default 10, every seed of the release)",
    value: 'n',
    text: 'number',
  }),
});

export const RecodeEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('recode'),
  /** One category's rows (its Parquet, or JSON Lines of its rows); local or s3://. */
  path: RowsFileSchema,
  ...RECODE_OPTIONS.entry,
});
export type RecodeEntry = z.output<typeof RecodeEntrySchema>;

const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.string().optional(),
  seed: z.int().min(0),
  perturbation_name: z.string().min(1),
});

type RecodeProblem = ProblemOf<RecodePayload>;

/** A variant's task id: the HumanEval task, the perturbation and the seed (bigcode's reference fields). */
export const recodeTaskId = (row: { task_id: string; perturbation_name: string; seed: number }): string =>
  `${row.task_id}/${row.perturbation_name}/s${row.seed}`;

/**
 * The rows of seed < numSeeds as problems, in file order (bigcode's filtered dataset, which its
 * generations follow), and the others' task ids. A (task, perturbation, seed) given twice is refused,
 * as bigcode's process_results asserts.
 */
export function recodeProblems(text: string, numSeeds: number, source: string): { problems: RecodeProblem[]; leftOut: string[] } {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  const seen = new Map<string, number>();
  const problems: RecodeProblem[] = [];
  const leftOut: string[] = [];
  for (const { line, row } of rows) {
    const id = recodeTaskId(row);
    const first = seen.get(id);
    if (first !== undefined)
      throw new Error(
        `${source}:${line}: ${row.task_id} under ${row.perturbation_name} with seed ${row.seed} is given twice (first on line ${first})`,
      );
    seen.set(id, line);
    if (row.seed >= numSeeds) {
      leftOut.push(id);
      continue;
    }
    const prompt = pyStrip(row.prompt);
    problems.push({
      family: 'recode',
      task_id: id,
      prompt,
      entry_point: row.entry_point,
      test: row.test,
      ...(row.canonical_solution !== undefined ? { canonical_solution: row.canonical_solution } : {}),
      form: 'completion',
      recode: {
        task_id: row.task_id,
        perturbation_name: row.perturbation_name,
        seed: row.seed,
        prompt_end: row.prompt.slice(pyRstrip(row.prompt).length),
      },
    });
  }
  if (problems.length === 0) throw new Error(`${source}: no row has a seed below num_seeds ${numSeeds}; nothing to score`);
  return { problems, leftOut };
}

/**
 * The solution a generation stands for. A completion is bigcode's postprocess_generation: the
 * stripped prompt, then the continuation cut before the first stop word (the request carries them;
 * a model's own `stop` may not). A chat answer as the HumanEval-style families read it; a saved
 * generation (bigcode's generations.json) is already post-processed.
 */
export function recodeSolution(problem: RecodeProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'completions') return problem.prompt + truncateAtStopWords(code, RECODE_STOP_WORDS);
  return solutionFromGeneration(problem, api, code);
}

/** bigcode's get_reference: a newline, the row's test, a newline, check(<entry point>); run after the solution and a newline. */
export const recodeTests = (problem: Pick<RecodeProblem, 'test' | 'entry_point'>): string =>
  `\n${problem.test}\ncheck(${problem.entry_point})`;

/** The rows a file's problems are as evaluate.ts scores them: those of seed < num_seeds, the others' samples skipped. */
function scopedProblems(text: string, numSeeds: number, source: string): ScopedProblems {
  const { problems, leftOut } = recodeProblems(text, numSeeds, source);
  return {
    problems,
    leftOut: { taskIds: leftOut, why: `their seeds are not below num_seeds ${numSeeds}` },
    // None: a sweep's cell of the same rows has none (its dataset's name, or bigcode's task name, says num_seeds).
    cell: {},
  };
}

export const recodeFamily: DefinedFamily<'recode', typeof RecodeEntrySchema, RecodePayload> = defineFamily({
  id: 'recode',
  description:
    "ReCode's perturbed HumanEval (bigcode's perturbed-humaneval-<category>-num_seeds_<n>): robust pass@1 per perturbation over its seeds",
  entrySchema: RecodeEntrySchema,
  payloadSchema: RecodePayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const { problems, leftOut } = recodeProblems(texts.rows!, entry.num_seeds, sources.rows!);
    const notes = leftOut.length
      ? [`${sources.rows}: ${leftOut.length} rows of seed >= num_seeds ${entry.num_seeds} left out, ${problems.length} kept`]
      : [];
    return { problems, notes };
  },
  stopWords: () => RECODE_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: chatTaskInstruction,
  solution: recodeSolution,
  // The dataset's solution continues the prompt as written, its trailing whitespace included.
  referenceSolution: (problem) =>
    problem.canonical_solution === undefined ? null : problem.prompt + problem.recode.prompt_end + problem.canonical_solution,
  ...selfChecking,
  tests: recodeTests,
  scoreKinds: [RECODE_SCORES],
  // A run's pass or fail, of the kind whose cell figures are bigcode's robust metrics (robustScores.ts).
  score: (problem, outcome): TaskScore => ({ ...statusScore(problem, outcome), kind: 'recode' }),
  evaluate: readsProblemsFiles({
    bigcodeTasks: {
      names: `perturbed-humaneval-{${RECODE_CATEGORIES.join(',')}}-num_seeds_{1..10}`,
      read: (task) => {
        const match = TASK_NAME.exec(task);
        return match ? { options: { num_seeds: Number(match[2]) } } : null;
      },
    },
    recognize: {
      rank: 5,
      test: (row) => 'perturbation_name' in row && 'seed' in row && 'entry_point' in row,
      fields: "ReCode's task_id, prompt, entry_point, test, seed, perturbation_name",
    },
    options: RECODE_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => scopedProblems(text, options.num_seeds ?? RECODE_ALL_SEEDS, source),
  }),
});
