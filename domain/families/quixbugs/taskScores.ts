/**
 * QuixBugs's score kind, `quixbugs`: a sample passes or fails as any run one (pass@k), and a cell's
 * figures are bigcode's process_results for QuixBugs: per program name its pass@k
 * (compute_code_eval on that task's samples alone, k = 1, 10, 100 where it has that many), `all`
 * their mean (over the keys of the first task's results), and `num_correct`, all's pass@1 times
 * the number of programs. bigcode's evaluation_results.json holds just these keys.
 */
import { z } from 'zod';
import { declareScoreKind } from '../../scoring/scoreKind.js';
import { bigcodeTaskPassAtK } from '../repairScores.js';

const QuixBugsSampleSchema = z.object({ kind: z.literal('quixbugs') });

const PassAtKSchema = z.record(z.string(), z.number());
const QuixBugsFiguresSchema = z.object({
  kind: z.literal('quixbugs'),
  /** Per program name, in task order. */
  byName: z.array(z.tuple([z.string(), PassAtKSchema])),
  all: PassAtKSchema,
  numCorrect: z.number(),
});
type QuixBugsFigures = z.output<typeof QuixBugsFiguresSchema>;

/** A task's program name (bigcode's key): its task id without `quixbugs/`. */
type QuixBugsTask = { name: string };

/** bigcode's results dict for QuixBugs, its keys in its order: the names, `all`, `num_correct`. */
export function quixBugsResults(figures: QuixBugsFigures): Record<string, unknown> {
  return { ...Object.fromEntries(figures.byName), all: figures.all, num_correct: figures.numCorrect };
}

export const QUIXBUGS_SCORES = declareScoreKind<z.output<typeof QuixBugsSampleSchema>, QuixBugsTask, null, QuixBugsFigures>({
  sampleKind: 'quixbugs',
  sampleSchema: QuixBugsSampleSchema,
  recordScore: () => ({ kind: 'quixbugs' }),
  rowFields: () => ({}),
  runs: true,
  newCell: () => null,
  add: (_cell, task, _sample, context) => task ?? { name: context.taskId.replace(/^quixbugs\//, '') },
  figures: (_cell, tasks) => {
    const named = tasks.filter((t) => t.state !== undefined);
    if (named.length === 0) return null;
    const byName = named.map((t) => [t.state!.name, bigcodeTaskPassAtK(t.n, t.c)] as [string, Record<string, number>]);
    const keys = Object.keys(byName[0]![1]);
    const all = Object.fromEntries(keys.map((k) => [k, byName.reduce((sum, [, r]) => sum + (r[k] ?? Number.NaN), 0) / byName.length]));
    return { kind: 'quixbugs', byName, all, numCorrect: all['pass@1']! * byName.length };
  },
  cellKind: 'quixbugs',
  cellSchema: QuixBugsFiguresSchema,
  perTaskJson: () => ({}),
  perTaskShape: {},
  resultsJson: (figures) => ({ bigcode: quixBugsResults(figures) }),
  // bigcode's file holds its keys alone; evaluate.ts's line leads with explora's pass@k.
  metricsLine: (figures, parts) =>
    parts.style === 'bigcode' ? quixBugsResults(figures) : { ...parts.passAtK, ...parts.alsoText, ...quixBugsResults(figures) },
  progressLine: (figures) => `bigcode all pass@1 ${figures.all['pass@1']!.toFixed(4)}, num_correct ${figures.numCorrect.toFixed(2)}`,
  report: {
    order: 40,
    intro:
      "QuixBugs as bigcode reports it: <b>all</b>, the mean over programs of each program's pass@1, and <b>num_correct</b>, that mean times the number of programs.",
    tableId: 'quixbugs-scores-table',
    headers: () => ['all pass@1', 'num_correct', 'programs'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.pct(figures.all['pass@1']) },
        { num: true, html: f.dec(figures.numCorrect, 2) },
        { num: true, html: f.int(figures.byName.length) },
      ],
    ],
  },
});
