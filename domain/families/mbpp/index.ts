/**
 * MBPP (Austin et al. 2021, "Program Synthesis with Large Language Models"): Google's release in
 * either of its two files, the full `mbpp.jsonl` (text, code, task_id, test_setup_code, test_list,
 * challenge_test_list) or the hand-verified `sanitized-mbpp.json` (a JSON array of prompt, code,
 * task_id, test_imports, test_list), recognised from the rows.
 *
 * Prompts:
 * - `bigcode` (default), as bigcode-evaluation-harness's MBPP task builds it (after InCoder): the
 *   description and the first test inside a docstring; the model writes the whole function after
 *   it, and the solution is the prompt and the completion (a docstring, then the code);
 * - `three-shot`, the MBPP paper's: tasks 2, 3 and 4 as worked examples between `[BEGIN]` and
 *   `[DONE]`, then the task, each stated with its three tests; the solution is the completion.
 * The tests are the row's `test_list` asserts (not its challenge tests, as bigcode), after its
 * setup code or imports (bigcode leaves those out; without them the two tasks that have setup code
 * fail whatever the model writes).
 */
import { z } from 'zod';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { parseJsonArray, parseJsonl, type Sourced } from '../../datasets/jsonl.js';
import type { SweepProblem } from '../../datasets/problems.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { DatasetEntryNameSchema, localOrS3File } from '../entry.js';
import { canonicalSolution, selfChecking } from '../humanevalStyle.js';
import { defineFamily } from '../define.js';
import type { DefinedFamily } from '../types.js';

/** The task-id ranges of MBPP's README: 1-10 for prompting, 11-510 test, 511-600 validation, 601-974 train. */
export const MBPP_SPLITS = { prompt: [1, 10], test: [11, 510], validation: [511, 600], train: [601, 974] } as const;
export type MbppSplit = keyof typeof MBPP_SPLITS | 'all';
/** Every split's name: what `split` and `--split` take. */
const MBPP_SPLIT_NAMES = ['test', 'validation', 'train', 'prompt', 'all'] as const satisfies readonly MbppSplit[];

/** bigcode-evaluation-harness's MBPP stop words. */
export const MBPP_BIGCODE_STOP_WORDS: readonly string[] = Object.freeze([
  '\nclass',
  '\nassert',
  '\n"""',
  '\nprint',
  '\nif',
  '\n<|/',
  '\n```',
]);
/** The three-shot prompt's answers end with this marker. */
export const MBPP_THREE_SHOT_STOP_WORDS: readonly string[] = Object.freeze(['[DONE]']);
/** The paper's worked examples. */
export const MBPP_THREE_SHOT_TASKS = [2, 3, 4] as const;

/** The entry's `split` and evaluate.ts's `--split`. */
const MBPP_OPTIONS = familyOptions({
  /** Which tasks, by MBPP's id ranges; absent: `test` (11-510) for the full file, `all` for the sanitized one. */
  split: option(z.enum(MBPP_SPLIT_NAMES).optional(), {
    help: "the tasks of one of MBPP's splits (test, validation, train, prompt, all; evaluate.ts's default all, a sweep's test for mbpp.jsonl)",
    value: 'split',
  }),
});

export const MbppEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('mbpp'),
  /** mbpp.jsonl (or .jsonl.gz) or sanitized-mbpp.json, local or s3://. */
  path: localOrS3File('.jsonl, .jsonl.gz or .json', /\.(jsonl(\.gz)?|json)$/),
  ...MBPP_OPTIONS.entry,
  prompt: z.enum(['bigcode', 'three-shot']).default('bigcode'),
});
export type MbppEntry = z.output<typeof MbppEntrySchema>;

const Tests = z.array(z.string().min(1)).min(1, 'must have at least one test');
/** A row of the full file. */
const FullRowSchema = z.looseObject({
  task_id: z.int(),
  text: z.string().min(1),
  code: z.string(),
  test_setup_code: z.string().default(''),
  test_list: Tests,
});
/** A row of the sanitized file. */
const SanitizedRowSchema = z.looseObject({
  task_id: z.int(),
  prompt: z.string().min(1),
  code: z.string(),
  test_imports: z.array(z.string()).default([]),
  test_list: Tests,
});

/** A task of either file, as the prompts and tests use it. */
interface MbppTask {
  taskId: number;
  description: string;
  code: string;
  setup: string;
  tests: string[];
}

/** The rows of the file as tasks, in file order; errors name the file, the line (or index) and the field. */
export function readMbppTasks(text: string, source: string): MbppTask[] {
  const trimmed = text.trimStart();
  const tasks: Array<Sourced<MbppTask>> = trimmed.startsWith('[')
    ? parseJsonArray(trimmed, SanitizedRowSchema, source, 'a JSON array of tasks').map(({ line, row }) => ({
        line,
        row: { taskId: row.task_id, description: row.prompt, code: lf(row.code), setup: row.test_imports.join('\n'), tests: row.test_list },
      }))
    : parseJsonl(text, FullRowSchema, source).map(({ line, row }) => ({
        line,
        row: { taskId: row.task_id, description: row.text, code: lf(row.code), setup: lf(row.test_setup_code), tests: row.test_list },
      }));
  const problem = datasetRowsProblem(
    tasks.map(({ line, row }) => ({ line, row: { task_id: String(row.taskId) } })),
    source,
  );
  if (problem) throw new Error(problem);
  return tasks.map(({ row }) => row);
}

function lf(code: string): string {
  return code.replace(/\r\n?/g, '\n');
}

/** The function the tests call: the solution's function whose name the first test calls, else its first. */
function entryPointOf(task: MbppTask): string {
  const defined = [...task.code.matchAll(/^def\s+([A-Za-z_]\w*)\s*\(/gm)].map((m) => m[1]!);
  return (
    defined.find((name) => new RegExp(`\\b${name}\\s*\\(`).test(task.tests[0]!)) ??
    defined[0] ??
    /assert\s+(?:not\s+)?\(?\s*([A-Za-z_]\w*)\s*\(/.exec(task.tests[0]!)?.[1] ??
    'solution'
  );
}

export function bigcodePrompt(task: Pick<MbppTask, 'description' | 'tests'>): string {
  return `"""\n${task.description}\n${task.tests[0]}\n"""\n`;
}

function threeShotTask(task: Pick<MbppTask, 'description' | 'tests'>): string {
  return `You are an expert Python programmer, and here is your task: ${task.description} Your code should pass these tests:\n\n${task.tests.join('\n')}\n`;
}

export function threeShotPrompt(task: MbppTask, shots: readonly MbppTask[]): string {
  const examples = shots.map((s) => `${threeShotTask(s)}[BEGIN]\n${s.code}\n[DONE]\n`).join('');
  return `${examples}${threeShotTask(task)}[BEGIN]\n`;
}

function inSplit(taskId: number, split: MbppSplit): boolean {
  if (split === 'all') return true;
  const [lo, hi] = MBPP_SPLITS[split];
  return taskId >= lo && taskId <= hi;
}

// Typed here: its evaluate step loads through it.
export const mbppFamily: DefinedFamily<'mbpp', typeof MbppEntrySchema> = defineFamily({
  id: 'mbpp',
  description: "MBPP, either file of Google's release: the model writes a function from its description and a test",
  entrySchema: MbppEntrySchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const tasks = readMbppTasks(texts.rows!, sources.rows!);
    const sanitized = texts.rows!.trimStart().startsWith('[');
    const split = entry.split ?? (sanitized ? 'all' : 'test');
    let shots: MbppTask[] = [];
    if (entry.prompt === 'three-shot') {
      shots = MBPP_THREE_SHOT_TASKS.map((id) => tasks.find((t) => t.taskId === id)).filter((t): t is MbppTask => t !== undefined);
      if (shots.length < MBPP_THREE_SHOT_TASKS.length) {
        throw new Error(
          `${sources.rows}: prompt: three-shot needs tasks ${MBPP_THREE_SHOT_TASKS.join(', ')} as its examples, and the file lacks some of them`,
        );
      }
    }
    const chosen = tasks.filter((t) => inSplit(t.taskId, split));
    if (chosen.length === 0) throw new Error(`${sources.rows}: split ${split} holds no task of this file`);
    return {
      problems: chosen.map((t): SweepProblem => ({
        family: 'mbpp',
        task_id: String(t.taskId),
        prompt: entry.prompt === 'three-shot' ? threeShotPrompt(t, shots) : bigcodePrompt(t),
        entry_point: entryPointOf(t),
        test: [t.setup, ...t.tests].filter((s) => s.trim() !== '').join('\n') + '\n',
        canonical_solution: t.code,
        // bigcode's prompt is Python the completion continues; the three-shot prompt is not.
        form: entry.prompt === 'three-shot' ? 'full' : 'completion',
      })),
      notes: [],
    };
  },
  stopWords: (entry) => (entry.prompt === 'three-shot' ? MBPP_THREE_SHOT_STOP_WORDS : MBPP_BIGCODE_STOP_WORDS),
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `Write the Python function \`${problem.entry_point}\` that the task below asks for; it must pass the tests shown. ` +
    'Reply with the complete function (with the imports it needs) in one ```python code block.',
  solution: (problem, api, code) => (api === 'completions' && problem.form === 'completion' ? problem.prompt + code : code),
  referenceSolution: canonicalSolution,
  tests: (problem) => problem.test.replace(/\n$/, ''),
  ...selfChecking,
  // bigcode saves the whole program (its docstring prompt and the generation): the completion is the solution as it stands.
  evaluate: readsProblemsFiles({
    // bigcode scores MBPP's test split (tasks 11-510).
    bigcodeTasks: { names: 'mbpp', read: (task) => (task === 'mbpp' ? { options: { split: 'test' } } : null) },
    recognize: {
      rank: 50,
      test: (row) => 'test_list' in row || ('text' in row && !('entry_point' in row)),
      fields: "MBPP's task_id, text (or prompt), test_list",
    },
    options: MBPP_OPTIONS.evaluate,
    form: 'full',
    problems: ({ text, source, options }) => {
      const entry = { name: 'evaluate', family: 'mbpp' as const, path: source, split: options.split ?? 'all', prompt: 'bigcode' as const };
      return mbppFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  }),
});
