/**
 * evaluate.ts for problems scored from their text (TaskChecking `text`: CoNaLa's BLEU, ...): each
 * sample's completion becomes its solution as the family post-processes it, its statistics are
 * taken against the task's reference, and the family's corpus metric folds them (its `first`
 * samples: each task's first sample in the file, bigcode's `gen[0]`). Nothing runs.
 */
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { CorpusMetric, MetricFigures, SampleForm, TextStats } from '../../domain/families/types.js';
import { CorpusFold, textCheckingOf, textScore } from '../../domain/sweep/textScores.js';
import { familyOf } from '../../domain/families/registry.js';
import { sampleSolution } from './evaluate-problems.js';
import type { Sample } from './evaluate-samples.js';

export interface TextEvaluation {
  /** The sample rows, in the input's order, each with `result: "scored"` and its `stats`. */
  rows: Array<Record<string, unknown> & { result: 'scored'; stats: TextStats }>;
  /** The metric's figures (the metrics line); null when no sample was scored. */
  figures: MetricFigures | null;
  /** Samples the figures are computed from. */
  scored: number;
}

export function evaluateText(
  samples: readonly Sample[],
  problems: ReadonlyMap<string, SweepProblem>,
  form: SampleForm,
  metric: CorpusMetric,
): TextEvaluation {
  const fold = new CorpusFold(metric);
  const seen = new Set<string>();
  const rows = samples.map(({ where, row }) => {
    const taskId = String(row.task_id);
    const problem = problems.get(taskId)!;
    const checking = textCheckingOf(problem);
    if (checking === null) throw new Error(`${where}: task ${taskId} is run, not scored from its text`);
    // A `solution` is taken whole, as for run families.
    const solution =
      row.solution !== undefined ? sampleSolution(problem, 'full', row.solution) : sampleSolution(problem, form, row.completion!);
    const { stats } = textScore(checking, solution);
    fold.add(stats, !seen.has(taskId));
    seen.add(taskId);
    return { ...row, result: 'scored' as const, stats };
  });
  const result = fold.result();
  return { rows, figures: result?.figures ?? null, scored: result?.samples ?? 0 };
}

/**
 * The metric run problems are also scored by from their text (TaskChecking `tests` with `alsoText`:
 * Spider's BLEU beside its execution accuracy): each sample's statistics, in the input's order, and
 * the metric's figures; null when no problem has one.
 */
export function alsoTextScores(
  samples: readonly Sample[],
  problems: ReadonlyMap<string, SweepProblem>,
  form: SampleForm,
): { metric: CorpusMetric; stats: TextStats[]; figures: MetricFigures; scored: number } | null {
  const checkings = samples.map(({ row }) => {
    const problem = problems.get(String(row.task_id))!;
    const checking = familyOf(problem).checking(problem);
    return checking.kind === 'tests' ? checking.alsoText : undefined;
  });
  const metric = checkings.find((c) => c !== undefined)?.metric;
  if (metric === undefined) return null;
  const fold = new CorpusFold(metric);
  const seen = new Set<string>();
  const stats = samples.map(({ where, row }, i) => {
    const taskId = String(row.task_id);
    const checking = checkings[i];
    if (checking?.metric.id !== metric.id)
      throw new Error(`${where}: task ${taskId} is not also scored by ${metric.id}, as the others are`);
    const problem = problems.get(taskId)!;
    const solution =
      row.solution !== undefined ? sampleSolution(problem, 'full', row.solution) : sampleSolution(problem, form, row.completion!);
    const { stats: sampleStats } = textScore(checking, solution);
    fold.add(sampleStats, !seen.has(taskId));
    seen.add(taskId);
    return sampleStats;
  });
  const result = fold.result()!;
  return { metric, stats, figures: result.figures, scored: result.samples };
}
