/**
 * The numbers a sweep report shows beyond what results.json holds: pass@k curves over every k,
 * which tasks which cells solved, and which tasks and samples the drill-down shows when a sweep is
 * too large to show them all. Pure; used by the renderer and by the loader (to read only what is shown).
 */
import { estimateAtK } from '../metrics/passAtK.js';
import type { PerTaskCounts, ReportCell, ReportSample } from './model.js';

/** How a cell is named where its dataset is already clear: `model · method · t0.2`. */
export function cellLabel(cell: Pick<ReportCell, 'model' | 'method' | 'temperature' | 'promptName'>): string {
  return `${cell.model} · ${cell.method} · t${cell.temperature}${cell.promptName === undefined ? '' : ` · ${cell.promptName}`}`;
}

/** Datasets in the order their first cell appears. */
export function datasetsOf(cells: readonly ReportCell[]): string[] {
  return [...new Set(cells.map((c) => c.dataset))];
}

/** Requested k values that were scored, ascending (from the `pass@k` keys). */
export function scoredKs(cells: readonly ReportCell[]): number[] {
  const ks = new Set<number>();
  for (const c of cells) for (const key of Object.keys(c.passAtK)) ks.add(Number(key.slice(key.indexOf('@') + 1)));
  return [...ks].filter((k) => Number.isInteger(k) && k > 0).sort((a, b) => a - b);
}

/**
 * The k of a pass@k-versus-k curve for tasks of at least `maxK` samples: every k up to 40, beyond
 * that 1..10 then about 30 log-spaced values, always with `maxK` and the requested k.
 */
export function curveKs(maxK: number, requested: readonly number[] = []): number[] {
  if (maxK < 1) return [];
  const ks = new Set<number>();
  if (maxK <= 40) {
    for (let k = 1; k <= maxK; k++) ks.add(k);
  } else {
    for (let k = 1; k <= 10; k++) ks.add(k);
    const steps = 30;
    for (let i = 0; i <= steps; i++) ks.add(Math.round(10 * Math.pow(maxK / 10, i / steps)));
    ks.add(maxK);
  }
  for (const k of requested) if (Number.isInteger(k) && k >= 1 && k <= maxK) ks.add(k);
  return [...ks].sort((a, b) => a - b);
}

export interface CurvePoint {
  k: number;
  value: number;
  /** 95% interval over tasks (normal approximation, see meanInterval); null with one task. */
  low: number | null;
  high: number | null;
}

/** pass@k (`c`) or success@k (`s`) of a cell for every k its tasks support. */
export function atKCurve(perTask: readonly PerTaskCounts[], field: 'c' | 's', requested: readonly number[] = []): CurvePoint[] {
  const scored = perTask.filter((t) => t.n > 0);
  if (!scored.length) return [];
  const minN = Math.min(...scored.map((t) => t.n));
  const ks = curveKs(minN, requested);
  const est = estimateAtK(
    scored.map((t) => ({ n: t.n, c: t[field] })),
    ks,
  );
  return est.ks.map((k) => {
    const ci = est.intervals[String(k)]!;
    return { k, value: est.averages[String(k)]!, low: ci.low, high: ci.high };
  });
}

export type OutcomeCategory = 'all' | 'none' | 'one' | 'some';

export interface TaskOutcome {
  taskIndex: number;
  taskId: string;
  /** Ids of the cells with at least one passing sample for the task. */
  solvedBy: string[];
  category: OutcomeCategory;
}

export interface DatasetOutcomes {
  dataset: string;
  cellIds: string[];
  tasks: TaskOutcome[];
  counts: Record<OutcomeCategory, number>;
  /** Per cell: tasks that it alone solved. */
  uniqueSolves: Record<string, number>;
}

/**
 * Which cells of one dataset solved which tasks. A task is solved by a cell when at least one of its
 * samples passed (c > 0). Tasks a cell did not score (n = 0) count as unsolved by it.
 */
export function datasetOutcomes(dataset: string, cells: readonly ReportCell[]): DatasetOutcomes {
  const mine = cells.filter((c) => c.dataset === dataset);
  const taskCount = Math.max(0, ...mine.map((c) => c.perTask.length));
  const tasks: TaskOutcome[] = [];
  const counts: Record<OutcomeCategory, number> = { all: 0, none: 0, one: 0, some: 0 };
  const uniqueSolves: Record<string, number> = Object.fromEntries(mine.map((c) => [c.id, 0]));
  for (let i = 0; i < taskCount; i++) {
    const taskId = mine.map((c) => c.perTask[i]?.task_id).find((t) => t !== undefined) ?? `#${i}`;
    const solvedBy = mine.filter((c) => (c.perTask[i]?.c ?? 0) > 0).map((c) => c.id);
    let category: OutcomeCategory;
    if (solvedBy.length === 0) category = 'none';
    else if (solvedBy.length === mine.length) category = 'all';
    else if (solvedBy.length === 1) category = 'one';
    else category = 'some';
    counts[category]++;
    if (category === 'one') uniqueSolves[solvedBy[0]!]!++;
    tasks.push({ taskIndex: i, taskId, solvedBy, category });
  }
  return { dataset, cellIds: mine.map((c) => c.id), tasks, counts, uniqueSolves };
}

export interface DrillSelection {
  /** Task indices to show, ascending. */
  taskIndices: number[];
  /** Empty when every task is shown; else how the shown ones were chosen. */
  note: string;
}

const CATEGORY_ORDER: OutcomeCategory[] = ['one', 'none', 'some', 'all'];

/**
 * The tasks of a dataset the drill-down shows: all of them up to `max`; beyond, a stratified sample
 * by outcome (the budget dealt round-robin over: solved by only one cell, by none, by some, by all),
 * evenly spaced by task index within each outcome. Deterministic.
 */
export function selectDrillTasks(outcomes: DatasetOutcomes, max: number): DrillSelection {
  const total = outcomes.tasks.length;
  if (total <= max) return { taskIndices: outcomes.tasks.map((t) => t.taskIndex), note: '' };
  const groups = CATEGORY_ORDER.map((cat) => outcomes.tasks.filter((t) => t.category === cat).map((t) => t.taskIndex));
  const quota = groups.map(() => 0);
  let budget = Math.max(0, max);
  while (budget > 0) {
    let gave = false;
    for (let g = 0; g < groups.length && budget > 0; g++) {
      if (quota[g]! < groups[g]!.length) {
        quota[g]!++;
        budget--;
        gave = true;
      }
    }
    if (!gave) break;
  }
  const picked: number[] = [];
  groups.forEach((list, g) => {
    const q = quota[g]!;
    for (let i = 0; i < q; i++) picked.push(list[Math.floor((i * list.length) / q)]!);
  });
  picked.sort((a, b) => a - b);
  const names: Record<OutcomeCategory, string> = {
    one: 'solved by only one cell',
    none: 'solved by none',
    some: 'solved by some',
    all: 'solved by all',
  };
  const parts = CATEGORY_ORDER.map((cat, g) => (quota[g] ? `${quota[g]} ${names[cat]}` : '')).filter(Boolean);
  return {
    taskIndices: picked,
    note: `Showing ${picked.length} of ${total} tasks: a sample stratified by outcome (${parts.join(', ')}), evenly spaced by task index within each outcome. Every task's counts are in the outcomes table above.`,
  };
}

/**
 * The samples of one task and cell the drill-down shows: all up to `max`; beyond, the first sample
 * of each status seen (so a failure is shown even among many passes), then the rest in order.
 */
export function selectSamples<T extends Pick<ReportSample, 'sample_index' | 'status'>>(samples: readonly T[], max: number): T[] {
  const ordered = [...samples].sort((a, b) => a.sample_index - b.sample_index);
  if (ordered.length <= max) return ordered;
  const chosen = new Set<T>();
  const seen = new Set<string>();
  for (const s of ordered) {
    if (chosen.size >= max) break;
    if (!seen.has(s.status)) {
      seen.add(s.status);
      chosen.add(s);
    }
  }
  for (const s of ordered) {
    if (chosen.size >= max) break;
    chosen.add(s);
  }
  return ordered.filter((s) => chosen.has(s));
}
