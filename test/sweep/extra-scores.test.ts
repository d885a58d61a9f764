/**
 * Families with several scores: a cell's summary and results.json carry pass@k per named score
 * (evalplus's base and plus) or APPS's strict and average test-case accuracy, per task too; the
 * results table adds a line per such cell; a status-scored cell's results are as before (no key).
 */
import { describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { CellAccumulator } from '../../domain/sweep/results.js';
import { formatResultsTable } from '../../scripts/lib/sweep-view.js';

const problem = (i: number): SweepProblem => ({
  family: 'evalplus',
  task_id: `HumanEval/${i}`,
  prompt: '',
  entry_point: 'f',
  test: '',
  form: 'completion',
});

function record(task: number, sample: number, score: SampleRecord['score'], passed: boolean): SampleRecord {
  return {
    task_id: `HumanEval/${task}`,
    task_index: task,
    sample_index: sample,
    raw: '',
    code: '',
    solution: '',
    status: passed ? 'passed' : 'failed',
    passed,
    success: true,
    ...(score ? { score } : {}),
    duration_ms: 1,
    prompt_tokens: 0,
    completion_tokens: 0,
    calls: 0,
  };
}

const summaryOf = (records: SampleRecord[]) => {
  const acc = new CellAccumulator([problem(0), problem(1)]);
  for (const r of records) acc.add(r);
  return acc.summary({ k: [1], cell: { cell: 'c1' }, wallSeconds: 1, resultsKey: 'k' });
};

describe('named and test-case scores in a cell', () => {
  it('evalplus: pass@1 of base and of plus, over tasks and per task', () => {
    const named = (base: boolean, plus: boolean) => ({ kind: 'named' as const, scores: { base, plus } });
    // Task 0: base 2/2, plus 1/2; task 1: base 1/2, plus 0/2.
    const { summary, results } = summaryOf([
      record(0, 0, named(true, true), true),
      record(0, 1, named(true, false), false),
      record(1, 0, named(true, false), false),
      record(1, 1, named(false, false), false),
    ]);
    expect(summary.scores?.kind).toBe('named');
    if (summary.scores?.kind !== 'named') return;
    const byName = summary.scores.byName as Record<string, { passAtK: Record<string, number> }>;
    expect(byName.base!.passAtK['pass@1']).toBeCloseTo(0.75, 12);
    expect(byName.plus!.passAtK['pass@1']).toBeCloseTo(0.25, 12);
    expect(summary.passAtK['pass@1']).toBeCloseTo(0.25, 12);
    expect(results.scores).toMatchObject({ base: { 'pass@1': 0.75 }, plus: { 'pass@1': 0.25 } });
    expect((results.per_task as Array<{ scores: unknown }>).map((t) => t.scores)).toEqual([
      { base: 2, plus: 1 },
      { base: 1, plus: 0 },
    ]);
    expect(formatResultsTable([summary])).toContain('c1: base pass@1 0.7500 [');
  });

  it('APPS: strict accuracy and average test-case accuracy', () => {
    const cases = (passed: number, total: number) => ({ kind: 'test_cases' as const, passed, total });
    // Task 0: 3/3 and 1/3; task 1: 0/2 and 1/2. Strict: (0.5 + 0) / 2; average: ((1 + 1/3) / 2 + (0 + 0.5) / 2) / 2.
    const { summary, results } = summaryOf([
      record(0, 0, cases(3, 3), true),
      record(0, 1, cases(1, 3), false),
      record(1, 0, cases(0, 2), false),
      record(1, 1, cases(1, 2), false),
    ]);
    expect(summary.scores).toEqual({
      kind: 'test_cases',
      strictAccuracy: 0.25,
      averageTestCaseAccuracy: expect.closeTo(((1 + 1 / 3) / 2 + 0.25) / 2, 12),
    });
    expect(results.scores).toEqual({ strict_accuracy: 0.25, average_test_case_accuracy: expect.closeTo(((1 + 1 / 3) / 2 + 0.25) / 2, 12) });
    expect((results.per_task as Array<{ test_case_accuracy: number }>).map((t) => t.test_case_accuracy)).toEqual([
      expect.closeTo(2 / 3, 12),
      0.25,
    ]);
    expect(formatResultsTable([summary])).toContain('c1: strict accuracy 0.2500; average test-case accuracy 0.4583');
  });

  it('a status-scored cell has no scores key, in its summary, results or per task', () => {
    const { summary, results } = summaryOf([record(0, 0, undefined, true), record(1, 0, undefined, false)]);
    expect(summary.scores).toBeUndefined();
    expect(results).not.toHaveProperty('scores');
    expect(Object.keys((results.per_task as object[])[0]!)).toEqual(['task_id', 'n', 'c', 's']);
  });
});
