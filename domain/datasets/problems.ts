/**
 * The problems a sweep runs on, as its families load them: one object per task, the common core
 * every step reads (below) and, flat in the same object, the fields its family adds (its payload:
 * evalplus's and APPS's `oracle`, MultiPL-E's `language` and `stop_tokens`, PBE World's
 * `pipeline_length`), which only the family parses (its payloadSchema, domain/families/). A sweep's
 * copy lives in S3 (one JSON object a line, as the family made it) and activities read it by key.
 */
import { z } from 'zod';
import { FamilyIdSchema } from '../families/ids.js';

export const ProgramFormSchema = z.enum(['completion', 'full']);

const ProblemCoreShape = {
  /**
   * The task family that loaded it (domain/families/). Problems stored before families existed have
   * none: the three families of then treat such rows alike, as `humaneval` does.
   */
  family: FamilyIdSchema.default('humaneval'),
  task_id: z.string().min(1),
  prompt: z.string(),
  /** The function the tests call (`None` for statement tasks; DS-1000 keeps its library here, APPS `__main__` for standard-input tasks). */
  entry_point: z.string().min(1),
  test: z.string(),
  canonical_solution: z.string().optional(),
  /** completion: prompt + completion + test (HumanEval); full: completion is the whole function (PBE World). */
  form: ProgramFormSchema,
  /**
   * Shown input/output examples as Python literals (PBE World's `examples`): what exploring and
   * repairing methods may run, never the hidden tests.
   */
  examples: z.array(z.object({ input: z.string(), output: z.string() })).optional(),
};

/** The common core of a problem, what every step may read. */
export type SweepProblem = z.output<z.ZodObject<typeof ProblemCoreShape>>;

/** A stored problem: its core validated, its family's payload kept as stored for the family to parse. */
export const SweepProblemSchema: z.ZodType<SweepProblem, unknown> = z.looseObject(ProblemCoreShape);

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
