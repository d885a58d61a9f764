/**
 * The scores of samples scored from their text (TaskChecking `text`): a sample's statistics, and
 * the fold of a cell's (or an evaluate.ts run's) statistics into its family's corpus metric, in
 * memory that does not grow with the samples. Shared by the sweep's cells and scripts/evaluate.ts.
 */
import { isStatementTask, type SweepProblem } from '../datasets/problems.js';
import { corpusMetricById, familyOf, languageOf } from '../families/registry.js';
import { stripThinking, type ExtractApi } from '../llm/extract.js';
import type { AnswerSanitizer } from '../llm/sanitizer.js';
import type { CorpusMetric, TaskChecking, TextScore, TextStats } from '../families/types.js';
import type { CorpusScore } from './corpusScore.js';

export type { CorpusScore };

export type TextChecking = Extract<TaskChecking, { kind: 'text' }>;

/**
 * The text checking of a problem, or null when its samples are run. Its metric must be one its
 * family declares (corpusMetrics): stored results name it by id, and a comparison finds it so.
 */
export function textCheckingOf(problem: SweepProblem): TextChecking | null {
  const checking = familyOf(problem).checking(problem);
  if (checking.kind !== 'text') return null;
  if (corpusMetricById(checking.metric.id) !== checking.metric)
    throw new Error(
      `task ${problem.task_id}: family ${problem.family} scores it by ${checking.metric.id}, a metric no family declares as that id (the family's corpusMetrics)`,
    );
  return checking;
}

/**
 * The text checking a run problem is also scored by (TaskChecking `tests` with `alsoText`: Spider's
 * BLEU beside its execution accuracy), or null when it has none. Its metric must be one its family
 * declares, as textCheckingOf's.
 */
export function alsoTextCheckingOf(problem: SweepProblem): TextChecking | null {
  const checking = familyOf(problem).checking(problem);
  if (checking.kind !== 'tests' || checking.alsoText === undefined) return null;
  if (corpusMetricById(checking.alsoText.metric.id) !== checking.alsoText.metric)
    throw new Error(
      `task ${problem.task_id}: family ${problem.family} also scores it by ${checking.alsoText.metric.id}, a metric no family declares as that id (the family's corpusMetrics)`,
    );
  return checking.alsoText;
}

/** A sample's text score. */
export function textScore(checking: TextChecking, solution: string): TextScore {
  return { kind: 'text', passed: false, success: false, stats: checking.stats(solution) };
}

/**
 * The one corpus metric of a set of problems (a cell's, an evaluate.ts run's), or null when none is
 * text-scored. A set mixing metrics, or text-scored problems with run ones, has no one score: refused.
 */
export function corpusMetricOf(problems: readonly SweepProblem[], what: string): CorpusMetric | null {
  let metric: CorpusMetric | null = null;
  let run: string | undefined;
  for (const p of problems) {
    const checking = textCheckingOf(p);
    if (checking === null) {
      run ??= p.task_id;
      continue;
    }
    if (metric !== null && metric.id !== checking.metric.id)
      throw new Error(`${what}: task ${p.task_id} is scored by ${checking.metric.id}, others by ${metric.id}; one metric per cell`);
    metric = checking.metric;
  }
  if (metric !== null && run !== undefined)
    throw new Error(`${what}: task ${run} is run in the sandbox, others are scored by ${metric.id} from their text; not in one cell`);
  return metric;
}

/**
 * The statistics of a set's text-scored samples, summed as the metric scores them: with `first`,
 * only each task's sample 0 (what bigcode's `gen[0]` is); with `all`, every one.
 */
export class CorpusFold {
  private readonly sums: TextStats = {};
  private count = 0;

  constructor(private readonly metric: CorpusMetric) {}

  /** Adds a sample's statistics; `first` says whether it is its task's first sample. */
  add(stats: Readonly<TextStats>, first: boolean): void {
    if (this.metric.samples === 'first' && !first) return;
    for (const [key, value] of Object.entries(stats)) this.sums[key] = (this.sums[key] ?? 0) + value;
    this.count++;
  }

  /** The figures so far; null before any sample is scored. */
  result(): CorpusScore | null {
    if (this.count === 0) return null;
    return {
      metric: this.metric.id,
      headline: this.metric.headline,
      samplesScored: this.metric.samples,
      samples: this.count,
      figures: this.metric.figures(this.sums, this.count),
    };
  }
}

/** Why a text-scored set has no pass@k: one line for results and reports. */
export function noPassAtKReason(metric: CorpusMetric): string {
  return `pass@k and success@k: the samples are scored from their text by ${metric.id}, not run; see scores`;
}

/**
 * The code a model's answer gives a task's `solution`: the language's extraction (completions cut
 * at the stop words, a chat reply's fenced block), or for a chat reply the model's sanitizer
 * (domain/llm/sanitizer.ts), else the family's own extraction (FamilySteps.chatCode); except that a text-scored family whose answers are prose
 * (`answer: 'reply'`) reads a chat reply whole, its thinking stripped.
 */
export function answerCode(
  problem: SweepProblem,
  api: ExtractApi,
  raw: string,
  stop: readonly string[],
  sanitize?: AnswerSanitizer,
): string {
  const checking = familyOf(problem).checking(problem);
  if (api === 'chat' && checking.kind === 'text' && checking.answer === 'reply') return stripThinking(raw);
  if (api === 'chat' && sanitize) return sanitize(raw, isStatementTask(problem) ? null : problem.entry_point);
  // A family without its own extraction answers undefined (defineFamily's steps are always functions).
  const own = api === 'chat' ? familyOf(problem).chatCode?.(problem, stripThinking(raw)) : undefined;
  if (own !== undefined) return own;
  return languageOf(problem).extractCode({ api, raw, entryPoint: problem.entry_point, stop });
}
