/**
 * APPS's score kind, `test_cases`: per-sample credit for the test cases passed. A cell's figures are
 * APPS's two: strict accuracy (the mean over tasks of the share of samples passing every test case;
 * with one sample per task, APPS's strict accuracy) and average test-case accuracy (the mean over
 * tasks of the mean over samples of the share of test cases passed).
 */
import { z } from 'zod';
import { declareScoreKind } from '../../scoring/scoreKind.js';

const TestCasesSampleSchema = z.object({
  kind: z.literal('test_cases'),
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});

const TestCaseFiguresSchema = z.object({ kind: z.literal('test_cases'), strictAccuracy: z.number(), averageTestCaseAccuracy: z.number() });
type TestCaseFigures = z.output<typeof TestCaseFiguresSchema>;

/** A task's sum over samples of the share of test cases passed. */
type TestCaseTask = { credit: number };

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : 0);

export const TEST_CASE_SCORES = declareScoreKind<z.output<typeof TestCasesSampleSchema>, TestCaseTask, null, TestCaseFigures>({
  sampleKind: 'test_cases',
  sampleSchema: TestCasesSampleSchema,
  recordScore: (score) => ({ kind: 'test_cases', ...(score.testCases as { passed: number; total: number }) }),
  rowFields: (sample) => ({ test_cases: { passed: sample.passed, total: sample.total } }),
  runs: true,
  newCell: () => null,
  add: (_cell, task, sample) => {
    const t = task ?? { credit: 0 };
    t.credit += sample.total > 0 ? sample.passed / sample.total : 0;
    return t;
  },
  figures: (_cell, tasks) =>
    tasks.some((t) => t.state !== undefined)
      ? {
          kind: 'test_cases',
          strictAccuracy: mean(tasks.map((t) => t.c / t.n)),
          averageTestCaseAccuracy: mean(tasks.map((t) => (t.state?.credit ?? 0) / t.n)),
        }
      : null,
  cellKind: 'test_cases',
  cellSchema: TestCaseFiguresSchema,
  perTaskJson: (task, n) => ({ test_case_accuracy: n ? task.credit / n : 0 }),
  perTaskShape: { test_case_accuracy: z.number().min(0).max(1).optional() },
  resultsJson: (figures) => ({ strict_accuracy: figures.strictAccuracy, average_test_case_accuracy: figures.averageTestCaseAccuracy }),
  // APPS in bigcode reports these two beside pass@k (the second as avg_accuracy; evaluate.ts by its long name).
  metricsLine: (figures, parts) => ({
    ...parts.passAtK,
    strict_accuracy: figures.strictAccuracy,
    [parts.style === 'bigcode' ? 'avg_accuracy' : 'average_test_case_accuracy']: figures.averageTestCaseAccuracy,
    ...parts.alsoText,
  }),
  progressLine: (figures) =>
    `strict accuracy ${figures.strictAccuracy.toFixed(4)}; average test-case accuracy ${figures.averageTestCaseAccuracy.toFixed(4)}`,
  report: {
    order: 30,
    intro:
      "APPS's two figures: <b>strict accuracy</b>, the share of samples passing every test case (averaged over tasks); <b>average test-case accuracy</b>, the share of test cases passed (averaged over samples, then tasks).",
    tableId: 'test-case-scores-table',
    headers: () => ['strict accuracy', 'test-case accuracy'],
    rows: (figures, _ks, f) => [
      [
        { num: true, html: f.pct(figures.strictAccuracy) },
        { num: true, html: f.pct(figures.averageTestCaseAccuracy) },
      ],
    ],
  },
  compare: (a, b) =>
    [...a, ...b].every((t) => t.test_case_accuracy !== undefined)
      ? [['test-case accuracy', (t) => t.test_case_accuracy as number] as const]
      : [],
});
