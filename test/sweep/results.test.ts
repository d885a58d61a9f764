/**
 * A cell's summary and results.json carry, beside pass@k and success@k, each one's standard error
 * over tasks and 95% interval; the terminal's results table shows the interval, and copes with
 * summaries stored before intervals existed.
 */
import { describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { CellAccumulator, type CellSummary } from '../../domain/sweep/results.js';
import { formatMetric, formatResultsTable } from '../../scripts/lib/sweep-view.js';

const problem = (i: number): SweepProblem => ({
  family: 'humaneval',
  task_id: `T/${i}`,
  prompt: `def f${i}(x):\n`,
  entry_point: `f${i}`,
  test: 'def check(candidate):\n    assert True\n',
  form: 'completion',
});

function record(task: number, sample: number, status: 'passed' | 'failed' | 'error'): SampleRecord {
  return {
    task_id: `T/${task}`,
    task_index: task,
    sample_index: sample,
    raw: '',
    code: '',
    solution: '',
    status,
    passed: status === 'passed',
    success: status !== 'error',
    duration_ms: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    calls: 1,
  };
}

/** Per task, the statuses of its 2 samples: pass@1 per task 1, 0, 0.5, 0.5; success@1 1, 0.5, 1, 1. */
const TABLE: Array<Array<'passed' | 'failed' | 'error'>> = [
  ['passed', 'passed'],
  ['failed', 'error'],
  ['passed', 'failed'],
  ['failed', 'passed'],
];
const input = { k: [1, 2], cell: { cell: 'ds.m.direct.t0.8' }, wallSeconds: 1, resultsKey: 'r' };

function summarize(table: typeof TABLE) {
  const acc = new CellAccumulator(table.map((_, i) => problem(i)));
  table.forEach((statuses, t) => statuses.forEach((s, i) => acc.add(record(t, i, s))));
  return acc.summary(input);
}

describe('a cell’s 95% intervals over tasks', () => {
  it('are in the summary and in results.json, per metric, beside the unchanged values', () => {
    const { summary, results } = summarize(TABLE);
    // pass@1: [1, 0, 0.5, 0.5] → mean 0.5, sd sqrt(1/6), SE 0.204124, 0.5 ± 0.400083.
    expect(summary.passAtK['pass@1']).toBe(0.5);
    expect(summary.passAtKCI!['pass@1']!.stderr).toBeCloseTo(0.204124, 6);
    expect(summary.passAtKCI!['pass@1']!.low).toBeCloseTo(0.099917, 6);
    expect(summary.passAtKCI!['pass@1']!.high).toBeCloseTo(0.900083, 6);
    // pass@2 of n = 2: 1 where any passed: [1, 0, 1, 1] → mean 0.75, SE 0.25, [0.26, 1] (clipped).
    expect(summary.passAtKCI!['pass@2']!.stderr).toBeCloseTo(0.25, 12);
    expect(summary.passAtKCI!['pass@2']!.low).toBeCloseTo(0.26, 12);
    expect(summary.passAtKCI!['pass@2']!.high).toBe(1);
    // success@1: [1, 0.5, 1, 1] → mean 0.875, SE 0.125.
    expect(summary.successAtK['success@1']).toBe(0.875);
    expect(summary.successAtKCI!['success@1']!.stderr).toBeCloseTo(0.125, 12);
    expect(Object.keys(summary.passAtKCI!)).toEqual(['pass@1', 'pass@2']);
    expect(Object.keys(summary.successAtKCI!)).toEqual(['success@1', 'success@2']);

    // results.json: the flat metrics as before, and one ci95 object keyed the same way.
    expect(results['pass@1']).toBe(0.5);
    expect(results['success@1']).toBe(0.875);
    expect(results.ci95).toEqual({ ...summary.passAtKCI, ...summary.successAtKCI });
    const keys = Object.keys(results);
    expect(keys.indexOf('ci95')).toBe(keys.indexOf('success@2') + 1);
    expect(JSON.parse(JSON.stringify(results)).ci95['pass@1']).toEqual(summary.passAtKCI!['pass@1']);
  });

  it('are null with one task, not 0', () => {
    const { summary, results } = summarize([['passed', 'failed']]);
    expect(summary.passAtK['pass@1']).toBe(0.5);
    expect(summary.passAtKCI).toEqual({
      'pass@1': { stderr: null, low: null, high: null },
      'pass@2': { stderr: null, low: null, high: null },
    });
    expect((results.ci95 as Record<string, unknown>)['success@1']).toEqual({ stderr: null, low: null, high: null });
  });
});

describe('formatResultsTable', () => {
  it('shows each metric with its interval, and says what the interval is', () => {
    const { summary } = summarize(TABLE);
    const table = formatResultsTable([summary]);
    const row = table.split('\n')[2]!;
    expect(row).toContain('0.5000 [0.100, 0.900]');
    expect(row).toContain('0.7500 [0.260, 1.000]');
    expect(row).toContain('0.8750 [');
    expect(table).toMatch(/95% interval over tasks/);
  });

  it('shows the value alone for one task, and for summaries stored before intervals existed', () => {
    expect(formatMetric(0.5, { stderr: null, low: null, high: null })).toBe('0.5000');
    expect(formatMetric(0.5, undefined)).toBe('0.5000');
    expect(formatMetric(undefined, undefined)).toBe('-');
    const { summary } = summarize(TABLE);
    const { passAtKCI: _p, successAtKCI: _s, ...old } = summary;
    const stored = JSON.parse(JSON.stringify(old)) as CellSummary;
    const table = formatResultsTable([stored]);
    expect(table.split('\n')[2]).toMatch(/0\.5000 +0\.7500 +0\.8750/);
    expect(table).not.toContain('[');
  });
});

describe('answers cut at max_tokens', () => {
  it('are counted per cell from the records’ finish reasons, in the summary, results.json and the table, with a warning', () => {
    const acc = new CellAccumulator(TABLE.map((_, i) => problem(i)));
    TABLE.forEach((statuses, t) =>
      statuses.forEach((s, i) => acc.add({ ...record(t, i, s), finish_reason: s === 'error' || (t === 2 && i === 1) ? 'length' : 'stop' })),
    );
    const { summary, results } = acc.summary(input);
    expect(summary.cutAtMaxTokens).toBe(2);
    expect(results.answers_cut_at_max_tokens).toBe(2);
    const table = formatResultsTable([summary]);
    const [header, , row] = table.split('\n');
    expect(header).toMatch(/\scut$/);
    expect(row).toMatch(/\s2$/);
    expect(table).toContain(
      'warning: ds.m.direct.t0.8: 2 of 8 answers were cut at max_tokens; they mostly fail as broken programs, so its pass@k measures max_tokens as much as the model',
    );
  });

  it('leave a cell without cut answers (or without finish reasons: loaded generations, older records) as it was', () => {
    const { summary, results } = summarize(TABLE);
    expect(summary).not.toHaveProperty('cutAtMaxTokens');
    expect(results).not.toHaveProperty('answers_cut_at_max_tokens');
    expect(formatResultsTable([summary])).not.toMatch(/warning/);
  });
});
