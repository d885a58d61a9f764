/**
 * A score of a kind no product file knows, declared where a family's folder would declare it: the
 * throwaway Words family (words-family.ts) with a second score, the length of the answer over the
 * length of the reference's (`transform(word)` against what the method makes of the word), averaged
 * per task and then over tasks. Its tests print both lengths before they assert; its score reads
 * them. test/families/throwaway-score.e2e.test.ts plugs it in with the registry line and shows it in
 * results, the peer files, the progress view, the report, compare and evaluate.ts's output.
 */
import { z } from 'zod';
import { defineFamily } from '../../domain/families/define.js';
import { isSuccess } from '../../domain/execution/types.js';
import { declareScoreKind, plainMetricsLine, type PerTaskRow } from '../../domain/scoring/scoreKind.js';
import { wordsFamily, WordsPayloadSchema } from './words-family.js';

/** What the tests print before they assert: the marker, the answer's length and the reference's. */
const LENGTHS_MARKER = 'WORDS_LENGTHS';

const LengthSampleSchema = z.object({ kind: z.literal('length'), ratio: z.number().nonnegative().nullable() });

const LengthFiguresSchema = z.object({ kind: z.literal('length_ratio'), meanRatio: z.number(), tasks: z.number().int().nonnegative() });
type LengthFigures = z.output<typeof LengthFiguresSchema>;

/** A task's ratios summed, and how many samples gave one. */
type LengthTask = { sum: number; count: number };

const taskMean = (t: LengthTask) => (t.count ? t.sum / t.count : 0);

export const LENGTH_RATIO = declareScoreKind<z.output<typeof LengthSampleSchema>, LengthTask, null, LengthFigures>({
  sampleKind: 'length',
  sampleSchema: LengthSampleSchema,
  recordScore: (score) => ({ kind: 'length', ratio: score.ratio as number | null }),
  rowFields: (sample) => ({ length_ratio: sample.ratio }),
  runs: true,
  newCell: () => null,
  add: (_cell, task, sample) => {
    const t = task ?? { sum: 0, count: 0 };
    if (sample.ratio !== null) {
      t.sum += sample.ratio;
      t.count++;
    }
    return t;
  },
  figures: (_cell, tasks) => {
    const measured = tasks.filter((t) => t.state !== undefined && t.state.count > 0);
    if (!measured.length) return null;
    return {
      kind: 'length_ratio',
      meanRatio: measured.reduce((a, t) => a + taskMean(t.state!), 0) / measured.length,
      tasks: measured.length,
    };
  },
  cellKind: 'length_ratio',
  cellSchema: LengthFiguresSchema,
  perTaskJson: (task) => ({ length_ratio: taskMean(task) }),
  perTaskShape: { length_ratio: z.number().nonnegative().optional() },
  resultsJson: (figures) => ({ mean_length_ratio: figures.meanRatio, tasks_measured: figures.tasks }),
  metricsLine: (figures, parts) => plainMetricsLine(parts, { length_ratio: figures.meanRatio }),
  progressLine: (figures) => `length ratio ${figures.meanRatio.toFixed(4)} over ${figures.tasks} tasks`,
  report: {
    order: 100,
    intro: "Words' answers' length over the reference's (1: as long), averaged per task, then over tasks.",
    tableId: 'length-ratio-table',
    headers: () => ['length ratio', 'tasks'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.dec(figures.meanRatio, 3) },
        { num: true, html: f.int(figures.tasks) },
      ],
    ],
  },
  compare: (a, b) => {
    const has = (t: PerTaskRow) => typeof t.length_ratio === 'number';
    return a.every(has) && b.every(has) ? [['length ratio', (t) => t.length_ratio as number] as const] : [];
  },
  // A ratio of 0 or 1 on every task is still a ratio, not a pass: never McNemar's test.
  statistic: 'permutation',
});

/** The answer's length over the reference's, from the line the tests print; null when none was printed (the answer raised). */
function lengthRatio(stdout: string): number | null {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(`${LENGTHS_MARKER} `));
  if (line === undefined) return null;
  const [got, want] = line.split(' ').slice(1).map(Number) as [number, number];
  return want > 0 ? got / want : null;
}

/** Words, its tests printing the lengths, its score of the new kind. */
export const wordsWithLengthRatio = defineFamily({
  ...wordsFamily,
  payloadSchema: WordsPayloadSchema,
  load: (input) => {
    const loaded = wordsFamily.load(input);
    return { ...loaded, problems: loaded.problems.map((p) => wordsFamily.read(p)) };
  },
  tests: (problem) => {
    const word = JSON.stringify(problem.word);
    const want = `(${word} * ${problem.repeat}).${problem.method}()`;
    return `got = transform(${word})\nprint(${JSON.stringify(LENGTHS_MARKER)}, len(got), len(${want}))\nassert got == ${want}, got\n`;
  },
  score: (_problem, outcome) => ({
    kind: 'length',
    passed: outcome.status === 'passed',
    success: isSuccess(outcome),
    ratio: lengthRatio(outcome.stdout),
  }),
  scoreKinds: [LENGTH_RATIO],
});
