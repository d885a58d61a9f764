/**
 * How a family says scripts/evaluate.ts reads its problems files, with its own options typed: the
 * family declares its options' schema (EvaluateOptionsSchema, each with `.meta(FlagMeta)`) and its
 * `problems` sees their parsed values. evaluate.ts parses them by that schema before asking.
 */
import { z } from 'zod';
import type { SweepProblem } from '../datasets/problems.js';
import type { EvaluateSupport, FlagMeta, SampleForm, ScopedProblems } from './types.js';

type Reads = Extract<EvaluateSupport, { kind: 'reads' }>;

export function readsProblemsFiles<Shape extends z.ZodRawShape = Record<never, never>>(support: {
  recognize?: Reads['recognize'];
  bigcodeTasks?: Reads['bigcodeTasks'];
  options?: z.ZodObject<Shape, z.core.$strict>;
  form: SampleForm;
  problems: (input: {
    text: string;
    source: string;
    options: z.output<z.ZodObject<Shape, z.core.$strict>>;
  }) => SweepProblem[] | ScopedProblems;
}): Reads {
  const { options, problems, ...rest } = support;
  return {
    kind: 'reads',
    ...rest,
    ...(options ? { options: options as unknown as NonNullable<Reads['options']> } : {}),
    // The values were parsed by `options` (loadEvaluateProblems): their type is its output.
    problems: ({ text, source, options: values }) =>
      problems({ text, source, options: values as z.output<z.ZodObject<Shape, z.core.$strict>> }),
  };
}

/** A flag's help, value name and kind, for `.meta()` of an option's schema. */
/** bigcode task names that are exactly these. */
export function bigcodeNames(...names: string[]): NonNullable<Reads['bigcodeTasks']> {
  return { names: names.join(', '), read: (task) => (names.includes(task) ? {} : null) };
}

export function flag(meta: FlagMeta): FlagMeta {
  return meta;
}

/**
 * `--subset`: the suffix of a bigcode task name that picks a part of its data, which each family
 * that reads it checks (code-to-text's language, text-to-text's language pair). One declaration,
 * since a flag several families read has one help line.
 */
export const bigcodeSubsetOption = z
  .string()
  .min(1)
  .optional()
  .meta(
    flag({
      description:
        "bigcode's task subset, the suffix of its task name (code-to-text: python, go, ruby, java, javascript, php or " +
        "python-left, default the rows' language; text-to-text: da_en, lv_en, no_en or zh_en, required)",
      value: 'subset',
    }),
  );
