/**
 * The problems file of `scripts/evaluate.ts`: its family, recognised from the first row (or named
 * with `--family`), reads it through its `evaluate` member (EvaluateSupport in
 * domain/families/types.ts; each family's says which rows it recognises, which family flags it
 * reads and how its samples' completions become solutions by default); then every step asks the
 * problem's family, as a sweep does. What each family's files look like: docs/datasets.md and its pages.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { firstRow } from '../../domain/datasets/jsonl.js';
import { z } from 'zod';
import { evaluateFlags, familyOf, recognizingFamilies, type FamilyId } from '../../domain/families/registry.js';
import type { EvaluateOptionValues, SampleForm, ScopedProblems } from '../../domain/families/types.js';
import { flagIssues } from '../../domain/families/familyOptions.js';
import { toolsDir } from '../../infra/sandbox/python.js';

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
  /** The file's rows the family leaves out (LiveCodeBench's window), whose samples are skipped; absent: none. */
  leftOut?: ScopedProblems['leftOut'];
  /** Settings saying which part of the file is scored, for results.json's `cell`; absent: the whole file. */
  cell?: ScopedProblems['cell'];
}

/** The problems of the file through its family's `evaluate` step; errors name the file, the line and the field. */
export function loadEvaluateProblems(input: {
  text: string;
  source: string;
  family?: FamilyId;
  form?: SampleForm;
  /** The family options given (EvaluateOptionsSchema keys), as flags' text or values. */
  options?: EvaluateOptionValues;
}): EvaluateProblems {
  const { text, source } = input;
  const family = input.family ?? recognizeFamily(text, source);
  const support = familyOf({ family }).evaluate;
  if (support.kind === 'refused') throw new Error(`--family: ${support.why}`);
  const options = input.options ?? {};
  const given = Object.keys(options).filter((o) => options[o] !== undefined);
  const flags = new Map(evaluateFlags().map((f) => [f.key, f]));
  const unknown = given.filter((o) => !flags.has(o));
  if (unknown.length > 0) throw new Error(`${unknown.join(', ')}: no family has such an option`);
  const unread = given.filter((o) => !(o in (support.options?.shape ?? {})));
  if (unread.length > 0) {
    const readers = [...new Set(unread.flatMap((o) => flags.get(o)!.families))];
    throw new Error(
      `${unread.map((o) => flags.get(o)!.flag).join(', ')}: only ${readers.length > 1 ? `${readers.slice(0, -1).join(', ')} and ${readers.at(-1)}` : readers[0]} problems read ${unread.length > 1 ? 'them' : 'it'}, and ${source} is read as ${family}`,
    );
  }
  const values = Object.fromEntries(given.map((o) => [o, options[o]]));
  const parsed = (support.options ?? z.strictObject({})).safeParse(values);
  if (!parsed.success) throw new Error(flagIssues(parsed.error, values, (key) => flags.get(key)?.flag ?? key));
  const read = support.problems({ text, source, options: parsed.data, tools: toolsDir() });
  const form = input.form ?? support.form;
  if (Array.isArray(read)) return { family, problems: read, form };
  return { family, problems: read.problems, form, leftOut: read.leftOut, cell: read.cell };
}

/**
 * The solution a sample's completion stands for: `completion` continues the family's prompt (the
 * completions API's solution), `full` is the solution as it stands (a saved generation).
 */
export function sampleSolution(problem: SweepProblem, form: SampleForm, completion: string): string {
  return familyOf(problem).solution(problem, form === 'completion' ? 'completions' : 'saved', completion);
}
