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
    tools?: string;
  }) => SweepProblem[] | ScopedProblems;
}): Reads {
  const { options, problems, ...rest } = support;
  return {
    kind: 'reads',
    ...rest,
    ...(options ? { options: options as unknown as NonNullable<Reads['options']> } : {}),
    // The values were parsed by `options` (loadEvaluateProblems): their type is its output.
    problems: ({ text, source, options: values, tools }) =>
      problems({
        text,
        source,
        options: values as z.output<z.ZodObject<Shape, z.core.$strict>>,
        ...(tools !== undefined ? { tools } : {}),
      }),
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
