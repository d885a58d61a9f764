/**
 * evalplus's score kind, `named`: several pass/fail scores per sample, each with its own pass@k
 * (`base`, the original tests; `plus`, base and the added ones; the record's `passed` is plus).
 * A cell keeps per task the passes of each name; its figures are each name's pass@k and interval;
 * its peer file is evalplus's eval_results.json.
 */
import { z } from 'zod';
import { estimateAtK, passAtK } from '../../metrics/passAtK.js';
import { samplesWithSolutions } from '../../scoring/sampleSolutions.js';
import { declareScoreKind, namedIntervals, plainMetricsLine, type AtKInterval, type PerTaskRow } from '../../scoring/scoreKind.js';

const IntervalSchema = z.object({ stderr: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() });

const NamedSampleSchema = z.object({ kind: z.literal('named'), scores: z.record(z.string(), z.boolean()) });

export const NamedFiguresSchema = z.object({
  kind: z.literal('named'),
  byName: z.record(z.string(), z.object({ passAtK: z.record(z.string(), z.number()), passAtKCI: z.record(z.string(), IntervalSchema) })),
});
export type NamedFigures = z.output<typeof NamedFiguresSchema>;

/** Passes per name of a task's samples. */
type NamedTask = Record<string, number>;

/** The progress view's figure: 4 decimals and the interval's 3. */
function figure(value: number | undefined, ci: AtKInterval | undefined): string {
  if (value === undefined) return '-';
  const interval = ci && ci.low !== null && ci.high !== null ? ` [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]` : '';
  return value.toFixed(4) + interval;
}

/** evalplus's statuses. */
const status = (passed: boolean | undefined) => (passed ? 'pass' : 'fail');

export const NAMED_SCORES = declareScoreKind<z.output<typeof NamedSampleSchema>, NamedTask, null, NamedFigures>({
  sampleKind: 'named',
  sampleSchema: NamedSampleSchema,
  recordScore: (score) => ({ kind: 'named', scores: score.scores as Record<string, boolean> }),
  rowFields: (sample) => ({ scores: sample.scores }),
  runs: true,
  newCell: () => null,
  add: (_cell, task, sample) => {
    const named = task ?? {};
    for (const [name, passed] of Object.entries(sample.scores)) named[name] = (named[name] ?? 0) + (passed ? 1 : 0);
    return named;
  },
  figures: (_cell, tasks, k) => {
    const names = [...new Set(tasks.flatMap((t) => Object.keys(t.state ?? {})))];
    if (names.length === 0) return null;
    const byName: NamedFigures['byName'] = {};
    for (const name of names) {
      const estimate = estimateAtK(
        tasks.map((t) => ({ n: t.n, c: t.state?.[name] ?? 0 })),
        k,
      );
      byName[name] = {
        passAtK: Object.fromEntries(Object.entries(estimate.averages).map(([kk, v]) => [`pass@${kk}`, v])),
        passAtKCI: namedIntervals('pass', estimate.intervals),
      };
    }
    return { kind: 'named', byName };
  },
  cellKind: 'named',
  cellSchema: NamedFiguresSchema,
  perTaskJson: (task) => ({ scores: task }),
  perTaskShape: { scores: z.record(z.string(), z.number().int().nonnegative()).optional() },
  resultsJson: (figures) =>
    Object.fromEntries(Object.entries(figures.byName).map(([name, s]) => [name, { ...s.passAtK, ci95: s.passAtKCI }])),
  // evaluate.ts prints each name's pass@k as evalplus does ({"base": {...}, "plus": {...}}).
  metricsLine: (figures, parts) =>
    parts.style === 'evaluate'
      ? Object.fromEntries(Object.entries(figures.byName).map(([name, s]) => [name, s.passAtK]))
      : plainMetricsLine(parts, {}),
  peerFiles: (figures, cell) => {
    const evalResults = evalplusEvalResults(figures, cell.generations, cell.samples, cell.date);
    return evalResults === null ? {} : ({ 'eval_results.json': evalResults } as Record<string, string>);
  },
  // evalplus writes it in a samples folder, else beside the samples file.
  besideSamples: (samples, directory) => ({
    'eval_results.json': directory
      ? `${samples.replace(/\/+$/, '')}/eval_results.json`
      : samples.replace(/(\.jsonl)?$/, '.eval_results.json'),
  }),
  peerName: 'evalplus',
  progressLine: (figures) =>
    Object.entries(figures.byName)
      .map(
        ([name, s]) =>
          `${name} ${Object.entries(s.passAtK)
            .map(([k, v]) => `${k} ${figure(v, s.passAtKCI[k])}`)
            .join(', ')}`,
      )
      .join('; '),
  report: {
    order: 20,
    intro:
      "pass@k of each score the dataset defines (evalplus: <b>base</b>, the original tests' inputs; <b>plus</b>, base and evalplus's added inputs, the pass@k of the table above).",
    tableId: 'named-scores-table',
    headers: (ks) => ['score', ...ks.map((k) => `pass@${k}`)],
    rows: (figures, ks, f) =>
      Object.entries(figures.byName).map(([name, s]) => [
        { html: f.esc(name) },
        ...ks.map((k) => ({ num: true, html: f.pct(s.passAtK[`pass@${k}`]) + f.ci(s.passAtKCI[`pass@${k}`]) })),
      ]),
  },
  compare: (a, b, ks) => {
    const scoresOf = (t: PerTaskRow) => t.scores as Record<string, number> | undefined;
    const names = (ts: readonly PerTaskRow[]) => new Set(ts.flatMap((t) => Object.keys(scoresOf(t) ?? {})));
    const bNames = names(b);
    return [...names(a)]
      .filter((n) => bNames.has(n))
      .sort()
      .flatMap((name) => ks.map((k) => [`${name} pass@${k}`, (t) => passAtK(t.n, scoresOf(t)?.[name] ?? 0, k)] as const));
  },
});

/**
 * evalplus's eval_results.json for a cell with `base` and `plus` scores, or null: `generations` is
 * the cell's generations.json (a list of solutions per task, `[]` for a task without samples) and
 * `samples` its samples.jsonl rows, both in task then sample order. The failing inputs evalplus
 * lists (`*_fail_tests`) are not kept by explora's harness: they are empty lists here.
 */
function evalplusEvalResults(
  figures: NamedFigures,
  generations: readonly string[][],
  samples: readonly { task_id: string; score?: { kind: string; scores?: unknown } }[],
  date: string,
): string | null {
  if (!('base' in figures.byName) || !('plus' in figures.byName)) return null;
  const eval_: Record<string, Array<Record<string, unknown>>> = {};
  for (const { sample, solution } of samplesWithSolutions(samples, generations)) {
    const scores = sample.score?.kind === 'named' ? (sample.score.scores as Record<string, boolean>) : undefined;
    (eval_[sample.task_id] ??= []).push({
      task_id: sample.task_id,
      solution,
      base_status: status(scores?.base),
      plus_status: status(scores?.plus),
      base_fail_tests: [],
      plus_fail_tests: [],
    });
  }
  const byName = figures.byName;
  return JSON.stringify({ date, hash: null, eval: eval_, pass_at_k: { base: byName.base!.passAtK, plus: byName.plus!.passAtK } }) + '\n';
}
