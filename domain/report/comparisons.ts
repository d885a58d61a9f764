/**
 * The report's pairwise comparisons: within each dataset, every pair of its cells compared task by
 * task (domain/compare), p-values Holm-adjusted over that dataset's pairs.
 */
import { compareCells, comparedBy, type ComparedCell, type Comparison } from '../compare/compare.js';
import { datasetsOf } from './analysis.js';
import type { ReportCell } from './model.js';

/** Fewer resamples than the CLI's 10,000: a grid of many cells has many pairs, and the page is built in one activity. */
export const REPORT_BOOTSTRAP_RESAMPLES = 2_000;
/**
 * Random sign patterns of a permutation test beyond the exact ones (the CLI's: 100,000). Its smallest
 * p, 2 / 20,001, stays below Holm's smallest threshold for MAX_REPORT_PAIRS pairs (0.05 / 100).
 */
export const REPORT_PERMUTATIONS = 20_000;
/** Beyond this many pairs in a dataset, the section says so and compares none (compare.ts does any chosen few). */
export const MAX_REPORT_PAIRS = 100;

export type DatasetComparison =
  | { dataset: string; kind: 'compared'; comparison: Comparison; labels: Record<string, string> }
  | { dataset: string; kind: 'skipped'; reason: string };

function asCompared(sweepId: string, c: ReportCell): ComparedCell {
  return {
    ref: `${sweepId}/${c.id}`,
    dataset: c.dataset,
    model: c.model,
    method: c.method,
    temperature: c.temperature,
    nSamples: c.nSamples,
    ...(c.promptName !== undefined ? { prompt: c.promptName } : {}),
    k: Object.keys(c.passAtK).map((k) => Number(k.split('@')[1])),
    tasks: comparedTasks(c),
    ...(c.provenance ? { provenance: c.provenance } : {}),
    ...comparedBy(c.scores),
  };
}

/** The tasks a cell is compared on: a text-scored cell's statistics, else its counts. */
const comparedTasks = (c: ReportCell) => c.textPerTask ?? c.perTask;

/** Each dataset with at least two cells that have per-task counts. */
export function reportComparisons(sweepId: string, cells: readonly ReportCell[], label: (c: ReportCell) => string): DatasetComparison[] {
  const out: DatasetComparison[] = [];
  for (const dataset of datasetsOf(cells)) {
    const mine = cells.filter((c) => c.dataset === dataset && comparedTasks(c).some((t) => t.n > 0));
    if (mine.length < 2) continue;
    const pairs = (mine.length * (mine.length - 1)) / 2;
    if (pairs > MAX_REPORT_PAIRS) {
      out.push({
        dataset,
        kind: 'skipped',
        reason: `${mine.length} cells make ${pairs} pairs, more than the report compares (${MAX_REPORT_PAIRS}); compare chosen cells with scripts/compare.ts`,
      });
      continue;
    }
    try {
      const comparison = compareCells(
        mine.map((c) => asCompared(sweepId, c)),
        {
          sharedOnly: true,
          bootstrap: { resamples: REPORT_BOOTSTRAP_RESAMPLES },
          permutation: { permutations: REPORT_PERMUTATIONS },
        },
      );
      out.push({ dataset, kind: 'compared', comparison, labels: Object.fromEntries(mine.map((c) => [`${sweepId}/${c.id}`, label(c)])) });
    } catch (err) {
      out.push({ dataset, kind: 'skipped', reason: (err as Error).message });
    }
  }
  return out;
}
