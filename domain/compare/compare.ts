/**
 * Comparing cells task by task: which tasks they share, every pair's paired differences of each score
 * with intervals and a test, Holm's adjustment over the pairs, and the tasks that flip. Pure: the
 * cells' per-task counts come in (from results.json, read by activities/storage/compare.ts).
 */
import { z } from 'zod';
import { corpusMetricById } from '../families/registry.js';
import { kindOfCell, perTaskShape, scoreKinds } from '../scoring/scoreKinds.js';
import { DEFAULT_PAIRED_STATISTIC, type CellKindScores, type PairedStatistic, type PerTaskRow } from '../scoring/scoreKind.js';
import { passAtK } from '../metrics/passAtK.js';
import { headlineFigure, pairedCorpusBootstrap, type CorpusFigure, type TaskStats } from './corpus.js';
import { unexplainedDifferences, type CellProvenance } from '../sweep/provenance.js';
import {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_SEED,
  mcnemarExact,
  pairedBootstrapInterval,
  pairedNormalInterval,
  pairedPermutationTest,
  holmAdjust,
  type BootstrapOptions,
  type Interval,
  type NormalInterval,
  type PermutationOptions,
} from './stats.js';

/** A task's counts as a cell's results.json keeps them (`per_task`). */
export const ComparedTaskSchema = z.object({
  task_id: z.string(),
  n: z.number().int().nonnegative(),
  c: z.number().int().nonnegative(),
  /** Samples that ran without a runtime error (success@k, the ExploraCoder paper's second metric); absent from text-scored cells. */
  s: z.number().int().nonnegative().optional(),
  /** The fields of the cell's score kind (ScoreKind.perTaskShape: evalplus's `scores`, APPS's `test_case_accuracy`, PAL's `answers`, a text-scored task's `text`). */
  ...perTaskShape(),
});
export type ComparedTask = z.infer<typeof ComparedTaskSchema> & PerTaskRow & { text?: TaskStats };

/** One cell as a comparison sees it: where it comes from, its factors, and its per-task counts. */
export interface ComparedCell {
  /** `<sweep>/<cell>`. */
  ref: string;
  dataset: string;
  model: string;
  method: string;
  temperature: number;
  nSamples: number;
  prompt?: string;
  /** The k the cell's sweep asked for. */
  k: number[];
  tasks: ComparedTask[];
  /** From the cell's results.json; absent from results stored before it was recorded. */
  provenance?: CellProvenance;
  /**
   * The corpus metric's id for a cell whose score kind is compared by `corpus-bootstrap` (a cell
   * scored from its samples' text): it has no pass@k and is compared on that metric only (comparedBy).
   */
  corpusMetric?: string;
}

/**
 * What a cell's score kind (its summary's `scores`) says it is compared by: its corpus metric when
 * the kind's statistic is `corpus-bootstrap`, else its per-task values (none: nothing to add).
 */
export function comparedBy(scores: CellKindScores | undefined): { corpusMetric?: string } {
  if (scores === undefined) return {};
  const kind = kindOfCell(scores);
  if ((kind.statistic ?? DEFAULT_PAIRED_STATISTIC) !== 'corpus-bootstrap') return {};
  if (!kind.corpusMetric) {
    throw new IncomparableCellsError(
      `score kind ${kind.cellKind} is compared by corpus-bootstrap but names no corpus metric (ScoreKind.corpusMetric)`,
    );
  }
  return { corpusMetric: kind.corpusMetric(scores) };
}

/** The factors two compared cells may differ in; a pair differing in more than one is confounded. */
const FACTORS = ['dataset', 'model', 'method', 'temperature', 'nSamples', 'prompt'] as const;

export type CompareSelection =
  { kind: 'same'; taskIds: string[] } | { kind: 'shared'; taskIds: string[]; dropped: Array<{ ref: string; tasks: string[] }> };

/** Why cells cannot be compared; the message names the tasks. */
export class TaskMismatchError extends Error {}

/** Why two cells have no score in common (one is run and one scored from its text, two corpus metrics...). */
export class IncomparableCellsError extends Error {}

/** A cell's scored tasks: those with samples (a task without any is no evidence either way). */
const scoredIds = (c: ComparedCell) => c.tasks.filter((t) => t.n > 0).map((t) => t.task_id);

function listed(ids: readonly string[], max = 20): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`;
}

/**
 * The tasks every cell is compared on. The same set in every cell, or (with `sharedOnly`) the tasks
 * all cells have, each cell's others listed as dropped. Throws TaskMismatchError naming, per cell,
 * the tasks the others lack.
 */
export function matchTasks(cells: readonly ComparedCell[], sharedOnly: boolean): CompareSelection {
  const sets = cells.map((c) => new Set(scoredIds(c)));
  const first = scoredIds(cells[0]!);
  const shared = first.filter((id) => sets.every((s) => s.has(id)));
  const extra = cells.map((c, i) => ({ ref: c.ref, tasks: scoredIds(c).filter((id) => !sets.every((s, j) => j === i || s.has(id))) }));
  const differs = extra.some((e) => e.tasks.length > 0);
  if (!differs) return { kind: 'same', taskIds: shared };
  if (!sharedOnly) {
    const lines = extra
      .filter((e) => e.tasks.length)
      .map((e) => `  ${e.ref} has ${e.tasks.length} task(s) the others lack: ${listed(e.tasks)}`);
    throw new TaskMismatchError(
      `the cells are not scored on the same tasks (shared: ${shared.length}):\n${lines.join('\n')}\n` +
        'compare them on the shared tasks only with --shared-tasks',
    );
  }
  if (shared.length === 0) throw new TaskMismatchError(`the cells share no scored task: ${cells.map((c) => c.ref).join(', ')}`);
  return { kind: 'shared', taskIds: shared, dropped: extra.filter((e) => e.tasks.length) };
}

/** One score compared on one pair: A minus B. */
export interface MetricComparison {
  /** `pass@1`, `base pass@1`, `test-case accuracy`, ... */
  metric: string;
  a: number;
  b: number;
  /** Mean over tasks of a_i - b_i (= a - b). */
  diff: number;
  normal: NormalInterval | null;
  bootstrap: Interval | null;
  /**
   * By the statistic the score's kind names (ScoreKind.statistic; pass@k's: McNemar exact when every
   * value is 0 or 1, one sample per task, else the paired permutation test); a corpus metric (BLEU...),
   * which is no mean of per-task values: the paired bootstrap's p (corpus.ts).
   */
  test: 'mcnemar-exact' | 'permutation-exact' | 'permutation-monte-carlo' | 'paired-bootstrap';
  p: number;
  /** p adjusted by Holm over all pairs compared, for this metric. */
  pHolm: number;
}

export interface TaskFlip {
  task_id: string;
  /** Passing samples of A and B over their samples. */
  a: string;
  b: string;
}

export interface PairComparison {
  a: string;
  b: string;
  tasks: number;
  metrics: MetricComparison[];
  /** Tasks A solved (a passing sample) and B did not, and the reverse. */
  flips: { aOnly: TaskFlip[]; bOnly: TaskFlip[] };
  /** Factors besides the compared one the two cells differ in (e.g. model and method both). */
  confounded: string[];
  /**
   * Provenance the factors they differ in do not explain (another explora commit, Python version,
   * dataset file, endpoint...): the difference may come from those too.
   */
  provenance: Array<{ field: string; a: string; b: string }>;
}

export interface Comparison {
  cells: string[];
  selection: CompareSelection;
  pairs: PairComparison[];
  /** The level significance is marked at (Holm-adjusted p below it). */
  alpha: number;
  bootstrap: Required<BootstrapOptions>;
}

export interface CompareOptions {
  sharedOnly?: boolean;
  alpha?: number;
  bootstrap?: BootstrapOptions;
  permutation?: PermutationOptions;
}

/** A score's per-task values in each cell, and the statistic that tests their differences. */
interface PairedValues {
  a: number[];
  b: number[];
  statistic: PairedStatistic;
}

/** Per-task values of each score both cells have, keyed by metric name. */
function metricValues(a: ComparedTask[], b: ComparedTask[], ks: number[]): Map<string, PairedValues> {
  const out = new Map<string, PairedValues>();
  const put = (name: string, f: (t: ComparedTask) => number, statistic = DEFAULT_PAIRED_STATISTIC) =>
    out.set(name, { a: a.map(f), b: b.map(f), statistic });
  for (const k of ks) put(`pass@${k}`, (t) => passAtK(t.n, t.c, k));
  // A method that makes programs run without error more often can differ here where pass@k ties.
  if ([...a, ...b].every((t) => t.s !== undefined)) for (const k of ks) put(`success@${k}`, (t) => passAtK(t.n, t.s!, k));
  // Each score kind's own per-task scores both cells have (ScoreKind.compare: evalplus's named pass@k, APPS's test-case accuracy, PAL's votes), by its statistic.
  for (const kind of scoreKinds()) {
    const rows = kind.compare?.(a, b, ks) ?? [];
    if (rows.length && kind.statistic === 'corpus-bootstrap') {
      throw new IncomparableCellsError(
        `score kind ${kind.cellKind} is compared by corpus-bootstrap, which tests no per-task rows (ScoreKind.compare)`,
      );
    }
    for (const row of rows) {
      if ('unitOf' in row) {
        const units = unitsOf(a, row.unitOf);
        const of = (tasks: ComparedTask[]) => units.map((at) => row.value(at.map((x) => tasks[x]!)));
        out.set(row.name, { a: of(a), b: of(b), statistic: kind.statistic ?? DEFAULT_PAIRED_STATISTIC });
      } else put(row[0], row[1], kind.statistic);
    }
  }
  return out;
}

/** The positions of the tasks of each unit (in order of first appearance), the tasks of no unit left out; a and b list the same task ids. */
function unitsOf(tasks: readonly ComparedTask[], unitOf: (task: PerTaskRow) => string | null): number[][] {
  const units = new Map<string, number[]>();
  tasks.forEach((t, x) => {
    const unit = unitOf(t);
    if (unit === null) return;
    const at = units.get(unit);
    if (at) at.push(x);
    else units.set(unit, [x]);
  });
  return [...units.values()];
}

/** A text-scored cell's corpus figure, or why it cannot be compared. */
function corpusOf(cell: ComparedCell): { id: string; headline: string; figure: CorpusFigure } {
  const metric = corpusMetricById(cell.corpusMetric!);
  if (!metric) throw new IncomparableCellsError(`cell ${cell.ref} is scored by ${cell.corpusMetric}, a metric no family has`);
  if (!cell.tasks.some((t) => t.text !== undefined)) {
    throw new IncomparableCellsError(
      `cell ${cell.ref} is scored by ${metric.id} but its results.json has no per-task statistics ` +
        '(stored before comparisons of text-scored cells existed); finalize the cell again to compare it',
    );
  }
  return { id: metric.id, headline: metric.headline, figure: headlineFigure((s, n) => metric.figures(s, n), metric.headline) };
}

/** The one row of two text-scored cells: their corpus metric's headline, by the paired bootstrap over tasks. */
function compareCorpus(
  cellA: ComparedCell,
  cellB: ComparedCell,
  a: ComparedTask[],
  b: ComparedTask[],
  opts: CompareOptions,
): Omit<MetricComparison, 'pHolm'> {
  const [ma, mb] = [corpusOf(cellA), corpusOf(cellB)];
  if (ma.id !== mb.id) {
    throw new IncomparableCellsError(`cell ${cellA.ref} is scored by ${ma.id}, ${cellB.ref} by ${mb.id}: no score in common`);
  }
  // A task none of whose scored samples has statistics (its generation failed) adds nothing to the corpus.
  const statsOf = (t: ComparedTask): TaskStats => t.text ?? { samples: 0, stats: {} };
  const r = pairedCorpusBootstrap(a.map(statsOf), b.map(statsOf), ma.figure, opts.bootstrap);
  return { metric: ma.headline, a: r.a, b: r.b, diff: r.diff, normal: null, bootstrap: r.interval, test: 'paired-bootstrap', p: r.p };
}

/** How a cell is scored, for messages: by its corpus metric or by running its samples. */
const scoredBy = (c: ComparedCell) => (c.corpusMetric ? `scored by ${c.corpusMetric} from its text` : 'run (pass@k)');

const isBinary = (xs: number[]) => xs.every((x) => x === 0 || x === 1);

function compareMetric(metric: string, { a: av, b: bv, statistic }: PairedValues, opts: CompareOptions): Omit<MetricComparison, 'pHolm'> {
  const diffs = av.map((x, i) => x - bv[i]!);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const base = {
    metric,
    a: mean(av),
    b: mean(bv),
    diff: mean(diffs),
    normal: pairedNormalInterval(diffs),
    bootstrap: pairedBootstrapInterval(diffs, opts.bootstrap),
  };
  if (statistic === 'mcnemar-or-permutation' && isBinary(av) && isBinary(bv)) {
    const onlyA = diffs.filter((d) => d > 0).length;
    const onlyB = diffs.filter((d) => d < 0).length;
    return { ...base, test: 'mcnemar-exact', p: mcnemarExact(onlyA, onlyB) };
  }
  const perm = pairedPermutationTest(diffs, opts.permutation);
  return { ...base, test: perm.method === 'exact' ? 'permutation-exact' : 'permutation-monte-carlo', p: perm.p };
}

/**
 * Every pair of `cells` (in the order given, A before B), compared on the matched tasks: each score
 * both have, at every k both can score (k <= every task's n); two text-scored cells on their corpus
 * metric's headline instead (never their pass@k, zeros by design). Throws IncomparableCellsError when
 * a pair has no score in common (a run cell and a text-scored one, two corpus metrics), TaskMismatchError when the task
 * sets differ (see matchTasks).
 */
export function compareCells(cells: readonly ComparedCell[], opts: CompareOptions = {}): Comparison {
  if (cells.length < 2) throw new RangeError(`compare needs at least two cells, got ${cells.length}`);
  const refs = cells.map((c) => c.ref);
  const dup = refs.find((r, i) => refs.indexOf(r) !== i);
  if (dup) throw new RangeError(`cell ${dup} is named twice`);
  const selection = matchTasks(cells, opts.sharedOnly ?? false);
  const byId = cells.map((c) => new Map(c.tasks.map((t) => [t.task_id, t])));
  const tasksOf = (i: number) => selection.taskIds.map((id) => byId[i]!.get(id)!);
  const pairs: Array<Omit<PairComparison, 'metrics'> & { metrics: Array<Omit<MetricComparison, 'pHolm'>> }> = [];
  for (let i = 0; i < cells.length; i++) {
    for (let j = i + 1; j < cells.length; j++) {
      const [a, b] = [tasksOf(i), tasksOf(j)];
      if ((cells[i]!.corpusMetric === undefined) !== (cells[j]!.corpusMetric === undefined)) {
        throw new IncomparableCellsError(
          `cell ${cells[i]!.ref} is ${scoredBy(cells[i]!)}, ${cells[j]!.ref} is ${scoredBy(cells[j]!)}: no score in common`,
        );
      }
      const text = cells[i]!.corpusMetric !== undefined;
      const minN = Math.min(...a.map((t) => t.n), ...b.map((t) => t.n));
      const ks = [...new Set([...cells[i]!.k, ...cells[j]!.k])].filter((k) => k <= minN).sort((x, y) => x - y);
      const values = metricValues(a, b, ks.length ? ks : [1]);
      const flip = (t: ComparedTask, u: ComparedTask): TaskFlip => ({ task_id: t.task_id, a: `${t.c}/${t.n}`, b: `${u.c}/${u.n}` });
      pairs.push({
        a: cells[i]!.ref,
        b: cells[j]!.ref,
        tasks: a.length,
        // A text-scored cell passes nothing by design: its pass@k of zeros would compare as a tie.
        metrics: text
          ? [compareCorpus(cells[i]!, cells[j]!, a, b, opts)]
          : [...values].map(([metric, paired]) => compareMetric(metric, paired, opts)),
        flips: {
          aOnly: a.flatMap((t, x) => (t.c > 0 && b[x]!.c === 0 ? [flip(t, b[x]!)] : [])),
          bOnly: a.flatMap((t, x) => (t.c === 0 && b[x]!.c > 0 ? [flip(t, b[x]!)] : [])),
        },
        confounded: confounded(cells[i]!, cells[j]!),
        provenance: unexplainedDifferences(cells[i]!.provenance, cells[j]!.provenance, differingFactors(cells[i]!, cells[j]!)),
      });
    }
  }
  // Holm over the pairs, one family of comparisons per metric (a metric some pairs lack is adjusted over those that have it).
  const metrics = [...new Set(pairs.flatMap((p) => p.metrics.map((m) => m.metric)))];
  const adjusted = new Map<string, Map<number, number>>();
  for (const metric of metrics) {
    const having = pairs.flatMap((p, i) => p.metrics.filter((m) => m.metric === metric).map((m) => ({ i, p: m.p })));
    const holm = holmAdjust(having.map((h) => h.p));
    adjusted.set(metric, new Map(having.map((h, x) => [h.i, holm[x]!])));
  }
  return {
    cells: refs,
    selection,
    pairs: pairs.map((p, i) => ({ ...p, metrics: p.metrics.map((m) => ({ ...m, pHolm: adjusted.get(m.metric)!.get(i)! })) })),
    alpha: opts.alpha ?? 0.05,
    bootstrap: { resamples: opts.bootstrap?.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES, seed: opts.bootstrap?.seed ?? DEFAULT_SEED },
  };
}

/** The factors two cells differ in. */
function differingFactors(a: ComparedCell, b: ComparedCell): string[] {
  return FACTORS.filter((f) => (a[f] ?? null) !== (b[f] ?? null));
}

/** The factors two cells differ in, when more than one: their difference is not the effect of any one factor. */
function confounded(a: ComparedCell, b: ComparedCell): string[] {
  const differ = differingFactors(a, b);
  return differ.length > 1 ? differ : [];
}

/** Whether a pair's metric is significant at the comparison's level, after Holm. */
export const isSignificant = (m: MetricComparison, alpha: number) => m.pHolm < alpha;
