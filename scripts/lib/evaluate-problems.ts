/**
 * The problems file of `scripts/evaluate.ts`: its family, recognised from the first row (or named
 * with `--family`), reads it through its `evaluate` member (EvaluateSupport in
 * domain/families/types.ts; each family's says which rows it recognises, which family flags it
 * reads and how its samples' completions become solutions by default); then every step asks the
 * problem's family, as a sweep does. What each family's files look like: docs/datasets.md.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { firstRow } from '../../domain/datasets/jsonl.js';
import { allFamilies, familyOf, recognizingFamilies, type AnyFamily, type FamilyId } from '../../domain/families/registry.js';
import type { EvaluateOptions, SampleForm } from '../../domain/families/types.js';

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
  subset: '--subset',
  ds1000Mode: '--ds1000-mode',
  spiderDatabases: '--spider-databases',
};

/** The problems of the file through its family's `evaluate` step; errors name the file, the line and the field. */
export function loadEvaluateProblems(input: {
  text: string;
  source: string;
  family?: FamilyId;
  form?: SampleForm;
  options?: EvaluateOptions;
}): EvaluateProblems {
  const { text, source } = input;
  const family = input.family ?? recognizeFamily(text, source);
  const support = familyOf({ family }).evaluate;
  if (support.kind === 'refused') throw new Error(`--family: ${support.why}`);
  const options = input.options ?? {};
  const given = (Object.keys(options) as Array<keyof EvaluateOptions>).filter((o) => options[o] !== undefined);
  const unread = given.filter((o) => !support.options.includes(o));
  if (unread.length > 0) {
    const readOptions = (f: AnyFamily) => (f.evaluate.kind === 'reads' ? f.evaluate.options : []);
    const readers = allFamilies()
      .filter((f) => unread.some((o) => readOptions(f).includes(o)))
      .map((f) => f.id);
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
