/**
 * The problems a sweep runs on, normalized from any HumanEval-format JSONL (PBE World included):
 * one row per task, with how its programs are assembled. A sweep's copy lives in S3 and activities
 * read it by key.
 */
import { z } from 'zod';
import { FamilyIdSchema, type FamilyId } from '../families/ids.js';
import { pyRepr } from '../pbe/pyrepr.js';

export const ProgramFormSchema = z.enum(['completion', 'full']);

export const SweepProblemSchema = z.object({
  /**
   * The task family that loaded it (domain/families/). Problems stored before families existed have
   * none: the three families of then treat such rows alike, as `humaneval` does.
   */
  family: FamilyIdSchema.default('humaneval'),
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.string().optional(),
  /** completion: prompt + completion + test (HumanEval); full: completion is the whole function (PBE World). */
  form: ProgramFormSchema,
  /** PBE World only: the hidden pipeline's length, for pass rate by length. */
  pipeline_length: z.number().int().optional(),
  /**
   * Shown input/output examples as Python literals (PBE World's `examples`): what exploring and
   * repairing methods may run, never the hidden tests.
   */
  examples: z.array(z.object({ input: z.string(), output: z.string() })).optional(),
  /**
   * How the task's samples are judged beyond the tests the program carries; absent when those tests
   * decide (every family but these):
   * - `evalplus`: differential testing against the canonical solution's outputs on the row's base
   *   and plus inputs (kept as the row's raw JSON text: Python reads NaN, Infinity and big integers
   *   exactly), with evalplus's tolerance and time limits;
   * - `apps`: APPS's test cases (call-based or standard input), each scored.
   */
  oracle: z
    .discriminatedUnion('kind', [
      z.object({
        kind: z.literal('evalplus'),
        dataset: z.enum(['humaneval', 'mbpp']),
        base_input: z.string(),
        plus_input: z.string(),
        atol: z.number().nonnegative(),
        /** Per-input limit: max(min_time_limit, time_limit_factor * the reference's time), seconds. */
        min_time_limit: z.number().positive(),
        time_limit_factor: z.number().positive(),
        /** A phase's (base's, plus's) whole time: min(task_time_limit, sum of its limits) + 1 s. */
        task_time_limit: z.number().positive(),
      }),
      z.object({
        kind: z.literal('apps'),
        /** The row's `input_output` as written (inputs, outputs, fn_name), read by Python. */
        input_output: z.string(),
        /** Seconds each test case may take (APPS: 4). */
        test_time_limit: z.number().positive(),
        /** Seconds the whole sample may take (apps_metric: 10 + 1); beyond it every test case is -1. */
        program_time_limit: z.number().positive(),
        /**
         * How a standard-input program runs (AppsEntry.stdin_form). Problems stored before the
         * choice existed ran as written.
         */
        stdin_form: z.enum(['testing-util', 'as-written']).default('as-written'),
      }),
    ])
    .optional(),
  /** MultiPL-E: the row's language id (js, ts, go_test.go, rs, java, cpp, py). */
  language: z.string().min(1).optional(),
  /** MultiPL-E: the row's stop tokens, where its completions are cut. */
  stop_tokens: z.array(z.string()).optional(),
});
export type SweepProblem = z.infer<typeof SweepProblemSchema>;

/** What a dataset row must have to be run; extra fields are ignored. */
export const DatasetRowSchema = z.looseObject({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.union([z.string(), z.array(z.string())]).optional(),
  canonical_pipeline: z.array(z.unknown()).optional(),
  examples: z.unknown().optional(),
});

/** PBE World's examples are plain strings: {input: 'ab', output: 'b'}. Other shapes are ignored. */
const StringExamplesSchema = z.array(z.object({ input: z.string(), output: z.string() }));

export function normalizeRow(row: z.infer<typeof DatasetRowSchema>, form: 'completion' | 'full', family: FamilyId): SweepProblem {
  const canonical = Array.isArray(row.canonical_solution) ? row.canonical_solution[0] : row.canonical_solution;
  return {
    family,
    task_id: row.task_id,
    prompt: row.prompt,
    entry_point: row.entry_point,
    test: row.test,
    ...(canonical !== undefined ? { canonical_solution: canonical } : {}),
    form,
    ...(row.canonical_pipeline ? { pipeline_length: row.canonical_pipeline.length } : {}),
    ...examplesOf(row.examples),
  };
}

function examplesOf(value: unknown): { examples?: Array<{ input: string; output: string }> } {
  const parsed = StringExamplesSchema.safeParse(value);
  if (!parsed.success || parsed.data.length === 0) return {};
  return { examples: parsed.data.map((e) => ({ input: pyRepr(e.input), output: pyRepr(e.output) })) };
}

/**
 * A statement task (MonkeyEval / BeatNumEval's script completions): no function to call; the
 * prompt is a script whose last line is unfinished and the test checks the variables it leaves.
 * The private-library loader marks them with entry point `None` (the test calls `check(None)`).
 */
export function isStatementTask(problem: Pick<SweepProblem, 'entry_point'>): boolean {
  return problem.entry_point === 'None';
}

/**
 * How a PyCodeGPT-style row (MonkeyEval, BeatNumEval, TorchDataEval) is checked, read off its
 * entry point and its test's `def check(...)`:
 * - `no-check`: the test defines no check(...): every program fails with a NameError;
 * - `statement`: entry point "none" and `def check():`: a statement completion; `test` is the
 *   test with `check(_candidate=None)`, so that `check(None)` (entry point `None`) runs it;
 * - `none-with-parameter`: entry point "none" but check takes a parameter: called as check(None);
 * - `function`: a function task; `checkTakesNoCandidate` when its check() takes none (a TypeError
 *   for every program).
 */
export type PyCodeGptCheck =
  | { kind: 'no-check' }
  | { kind: 'statement'; test: string }
  | { kind: 'none-with-parameter'; parameters: string }
  | { kind: 'function'; checkTakesNoCandidate: boolean };

const CHECK_DEF = /^def\s+check\s*\(([^)]*)\)\s*:/m;

export function pyCodeGptCheck(row: { entry_point: string; test: string }): PyCodeGptCheck {
  const check = CHECK_DEF.exec(row.test);
  if (!check) return { kind: 'no-check' };
  const parameters = check[1]!.trim();
  if (row.entry_point !== 'none') return { kind: 'function', checkTakesNoCandidate: parameters === '' };
  if (parameters !== '') return { kind: 'none-with-parameter', parameters };
  return { kind: 'statement', test: row.test.replace(CHECK_DEF, 'def check(_candidate=None):') };
}

/**
 * What makes a dataset's rows unusable as a whole (each row being valid): none at all, or a task_id
 * given twice (its samples and results would mix). Null when the rows are fine.
 */
export function datasetRowsProblem(rows: ReadonlyArray<{ line: number; row: { task_id: string } }>, source: string): string | null {
  if (rows.length === 0) return `${source} has no tasks`;
  const seen = new Map<string, number>();
  for (const { row, line } of rows) {
    const first = seen.get(row.task_id);
    if (first !== undefined) return `${source}:${line}: duplicate task_id ${row.task_id} (first on line ${first})`;
    seen.set(row.task_id, line);
  }
  return null;
}
