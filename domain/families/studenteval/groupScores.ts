/**
 * StudentEval's score kind, `studenteval`: a sample passes or fails as any run one (pass@k), and a
 * cell's figures are bigcode's process_results for StudentEval: the samples grouped by (problem,
 * prompt as written, subset), each group's pass@1 by the estimator (c and n summed over the group,
 * so that two rows with the same prompt, problem and subset count as one prompt, as pandas groups
 * them), then per subset the mean of its prompts' pass@1, the subsets in pandas' sorted order.
 * bigcode's evaluation_results.json holds that list of records, [{"group", "pass1"}, ...].
 */
import { z } from 'zod';
import { passAtK } from '../../metrics/passAtK.js';
import { declareScoreKind } from '../../scoring/scoreKind.js';

/** bigcode's four subsets (its _get_group's names), in pandas' sorted order. */
export const STUDENTEVAL_GROUPS = ['First Failure', 'First Success', 'Last Failure', 'Last Success'] as const;
export type StudentEvalGroup = (typeof STUDENTEVAL_GROUPS)[number];

const SampleSchema = z.object({ kind: z.literal('studenteval') });

const FiguresSchema = z.object({
  kind: z.literal('studenteval'),
  /** Per subset present, in bigcode's order: the mean of its prompts' pass@1, and how many prompts it has. */
  groups: z.array(z.object({ group: z.enum(STUDENTEVAL_GROUPS), pass1: z.number(), prompts: z.int() })),
});
export type StudentEvalFigures = z.output<typeof FiguresSchema>;

/** What bigcode groups a task's samples by. */
type StudentEvalTask = { problem: string; prompt: string; group: StudentEvalGroup };

/** The problem's payload as the family stores it (index.ts), read from the sample's problem. */
const TaskOfProblem = z.object({
  prompt: z.string(),
  studenteval: z.object({ problem: z.string(), group: z.enum(STUDENTEVAL_GROUPS), prompt_end: z.string() }),
});

/** bigcode's list of records: one {"group", "pass1"} per subset present. */
export function studentEvalResults(figures: StudentEvalFigures): Array<{ group: string; pass1: number }> {
  return figures.groups.map(({ group, pass1 }) => ({ group, pass1 }));
}

/**
 * The figures from the tasks' counts: c and n summed per (problem, prompt, subset), pass@1 of each
 * (bigcode's _estimator with k = 1), their mean per subset (pandas' mean: the sum over the count).
 */
export function studentEvalFigures(tasks: ReadonlyArray<{ n: number; c: number; task: StudentEvalTask }>): StudentEvalFigures | null {
  if (tasks.length === 0) return null;
  const prompts = new Map<string, { group: StudentEvalGroup; n: number; c: number }>();
  for (const { n, c, task } of tasks) {
    const key = JSON.stringify([task.problem, task.prompt, task.group]);
    const known = prompts.get(key) ?? { group: task.group, n: 0, c: 0 };
    known.n += n;
    known.c += c;
    prompts.set(key, known);
  }
  const groups = STUDENTEVAL_GROUPS.flatMap((group) => {
    const pass1s = [...prompts.values()].filter((p) => p.group === group).map((p) => passAtK(p.n, p.c, 1));
    return pass1s.length === 0 ? [] : [{ group, pass1: pass1s.reduce((sum, v) => sum + v, 0) / pass1s.length, prompts: pass1s.length }];
  });
  return { kind: 'studenteval', groups };
}

export const STUDENTEVAL_SCORES = declareScoreKind<z.output<typeof SampleSchema>, StudentEvalTask, null, StudentEvalFigures>({
  sampleKind: 'studenteval',
  sampleSchema: SampleSchema,
  recordScore: () => ({ kind: 'studenteval' }),
  rowFields: () => ({}),
  runs: true,
  newCell: () => null,
  add: (_cell, task, _sample, context) => {
    if (task) return task;
    const { prompt, studenteval } = TaskOfProblem.parse(context.problem);
    return { problem: studenteval.problem, prompt: prompt + studenteval.prompt_end, group: studenteval.group };
  },
  figures: (_cell, tasks) => studentEvalFigures(tasks.flatMap((t) => (t.state === undefined ? [] : [{ n: t.n, c: t.c, task: t.state }]))),
  cellKind: 'studenteval',
  cellSchema: FiguresSchema,
  perTaskJson: (task) => ({ subset: task.group }),
  perTaskShape: { subset: z.enum(STUDENTEVAL_GROUPS).optional() },
  resultsJson: (figures) => ({ groups: figures.groups, bigcode: studentEvalResults(figures) }),
  // bigcode's file holds process_results's list as the task's value (JSON, as its json.dump writes
  // it); evaluate.ts's line leads with explora's pass@k over prompts.
  metricsLine: (figures, parts) =>
    parts.style === 'bigcode'
      ? (studentEvalResults(figures) as unknown as Record<string, unknown>)
      : { ...parts.passAtK, ...parts.alsoText, studenteval: studentEvalResults(figures) },
  progressLine: (figures) => figures.groups.map((g) => `${g.group} ${g.pass1.toFixed(4)}`).join(', '),
  report: {
    order: 42,
    intro: "StudentEval as bigcode reports it: per subset of students' prompts, the mean over its prompts of each prompt's pass@1.",
    tableId: 'studenteval-scores-table',
    headers: () => ['subset', 'pass@1', 'prompts'],
    rows: (figures, _ks, f) =>
      figures.groups.map((g) => [{ html: f.esc(g.group) }, { num: true, html: f.pct(g.pass1) }, { num: true, html: f.int(g.prompts) }]),
  },
});
