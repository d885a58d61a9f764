/**
 * Parity's score kind, `parity`: a sample passes or fails as any run one (pass@k), and a cell's
 * figures are bigcode's process_results for Parity: per bug count, `"<n> bugs"`, the pass@1 of its
 * generations each scored alone (compute_code_eval over one-sample tasks: the share passing; its
 * pass@10 and pass@100 need 10 and 100 samples a task, never there). bigcode's key is `idx+1`, the
 * dataset's index, which is the bug count on its dataset [1, 2, 3, 4, 5]; here the task's bug count,
 * so that a file of other counts keeps them. bigcode's evaluation_results.json holds just these keys.
 */
import { z } from 'zod';
import { declareScoreKind } from '../../scoring/scoreKind.js';

const ParitySampleSchema = z.object({ kind: z.literal('parity') });

const ParityFiguresSchema = z.object({
  kind: z.literal('parity'),
  /** Per bug count (bigcode's `"<n> bugs"`), in task order: its pass@1. */
  byBugs: z.array(z.tuple([z.string(), z.object({ 'pass@1': z.number() })])),
});
type ParityFigures = z.output<typeof ParityFiguresSchema>;

/** A task's key in bigcode's results: `"<n> bugs"`. */
type ParityTask = { key: string };

/** bigcode's results dict for Parity, in task order. */
export function parityResults(figures: ParityFigures): Record<string, unknown> {
  return Object.fromEntries(figures.byBugs);
}

export const PARITY_SCORES = declareScoreKind<z.output<typeof ParitySampleSchema>, ParityTask, null, ParityFigures>({
  sampleKind: 'parity',
  sampleSchema: ParitySampleSchema,
  recordScore: () => ({ kind: 'parity' }),
  rowFields: () => ({}),
  runs: true,
  newCell: () => null,
  add: (_cell, task, _sample, context) => task ?? { key: `${/^parity\/(\d+)-bugs$/.exec(context.taskId)?.[1] ?? context.taskId} bugs` },
  figures: (_cell, tasks) => {
    const counted = tasks.filter((t) => t.state !== undefined);
    if (counted.length === 0) return null;
    // Each generation a task of one sample: pass@1 is 1 or 0, and their mean the share passing.
    return { kind: 'parity', byBugs: counted.map((t) => [t.state!.key, { 'pass@1': t.c / t.n }] as [string, { 'pass@1': number }]) };
  },
  cellKind: 'parity',
  cellSchema: ParityFiguresSchema,
  perTaskJson: () => ({}),
  perTaskShape: {},
  resultsJson: (figures) => ({ bigcode: parityResults(figures) }),
  // bigcode's file holds its keys alone; evaluate.ts's line leads with explora's pass@k.
  metricsLine: (figures, parts) =>
    parts.style === 'bigcode' ? parityResults(figures) : { ...parts.passAtK, ...parts.alsoText, ...parityResults(figures) },
  progressLine: (figures) => figures.byBugs.map(([key, s]) => `${key} ${s['pass@1'].toFixed(4)}`).join(', '),
  report: {
    order: 41,
    intro: "Parity as bigcode reports it: the pass@1 of each bug count's generations (each scored alone).",
    tableId: 'parity-scores-table',
    headers: () => ['bug count', 'pass@1'],
    rows: (figures, _ks, f) => figures.byBugs.map(([key, s]) => [{ html: f.esc(key) }, { num: true, html: f.pct(s['pass@1']) }]),
  },
});
