/**
 * defineFamily: a family's folder defines its entry schema, its payload schema and its steps; this
 * makes the TaskFamily every step dispatches to. The entry's keys (for "unknown key" messages) come
 * from the entry schema, and each step is handed the problem with the family's payload parsed from
 * the stored object, so that no caller needs to know the payload and no step casts.
 */
import type { SweepProblem } from '../datasets/problems.js';
import { issuesLine } from '../datasets/issues.js';
import type { DefinedFamily, EntrySchema, FamilyDefinition, ProblemOf, TaskFamily } from './types.js';

/** The steps that take a problem first, each handed the problem with its payload. */
const PROBLEM_STEPS = [
  'language',
  'completionPrompt',
  'infill',
  'chatInstruction',
  'nextStep',
  'chatMessage',
  'chatSystem',
  'chatCode',
  'solution',
  'referenceSolution',
  'embedSolution',
  'checking',
  'tests',
  'limits',
  'score',
  'requirements',
  'pipelineLength',
] as const;

/** The steps TaskFamily marks optional: absent when the family has none. */
const OPTIONAL_STEPS: ReadonlySet<(typeof PROBLEM_STEPS)[number]> = new Set([
  'infill',
  'chatCode',
  'nextStep',
  'chatMessage',
  'chatSystem',
]);

export function defineFamily<const Id extends string, Schema extends EntrySchema, Payload extends object = Record<never, never>>(
  definition: FamilyDefinition<Id, Schema, Payload>,
): DefinedFamily<Id, Schema, Payload> {
  const { payloadSchema } = definition;
  // A problem is read many times per sweep (prompt, program, score): its payload is parsed once.
  const read = new WeakMap<SweepProblem, ProblemOf<Payload>>();
  const withPayload = (problem: SweepProblem): ProblemOf<Payload> => {
    if (!payloadSchema) return problem as ProblemOf<Payload>;
    let full = read.get(problem);
    if (!full) {
      const parsed = payloadSchema.safeParse(problem);
      if (!parsed.success) {
        const issues = issuesLine(parsed.error, { root: '(problem)' });
        throw new Error(`task ${problem.task_id}: not a ${definition.id} problem (${issues}); a problem stored by another family?`);
      }
      full = { ...problem, ...parsed.data };
      read.set(problem, full);
    }
    return full;
  };
  const steps = Object.fromEntries(
    PROBLEM_STEPS.flatMap((name) => {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- a family's steps use no `this` (defineFamily's contract)
      const step = definition[name] as ((problem: ProblemOf<Payload>, ...rest: never[]) => unknown) | undefined;
      if (step) return [[name, (problem: SweepProblem, ...rest: never[]) => step(withPayload(problem), ...rest)]];
      // An optional step the family does not have stays absent, so that `family.chatCode ?` means
      // what it says (a stand-in answering undefined once made every family look as if it had one).
      return OPTIONAL_STEPS.has(name) ? [] : [[name, () => undefined]];
    }),
  ) as Pick<TaskFamily<Id, unknown>, (typeof PROBLEM_STEPS)[number]>;
  return {
    ...definition,
    ...steps,
    entryKeys: Object.keys(definition.entrySchema.shape),
    read: withPayload,
  };
}
