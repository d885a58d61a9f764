/**
 * A run cell also scored from its text (TaskChecking `tests` with `alsoText`: Spider with its
 * databases, execution accuracy and bigcode's BLEU of the same samples): the cell folds its run
 * records' `text_stats` into the family's declared metric over each task's first sample, beside
 * pass@k, which stays execution accuracy's; results.json, bigcode's metric file and the results
 * table carry both; a record with text statistics of a task that has none is refused.
 */
import { describe, expect, it } from 'vitest';
import { spiderFamily } from '../../domain/families/spider/index.js';
import { bigcodeBleu } from '../../domain/metrics/bleu.js';
import { corpusMetricById } from '../../domain/families/registry.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { CellAccumulator } from '../../domain/sweep/results.js';
import { alsoTextCheckingOf } from '../../domain/sweep/textScores.js';
import { bigcodeMetricsJson } from '../../domain/sweep/peerFiles.js';
import { formatResultsTable } from '../../scripts/lib/sweep-view.js';

const ROWS = [
  { db_id: 'concert_singer', query: 'SELECT count(*) FROM singer', question: 'How many singers?' },
  { db_id: 'concert_singer', query: 'SELECT name FROM singer ORDER BY age', question: 'Names by age?' },
];
const rowsText = ROWS.map((r) => JSON.stringify(r) + '\n').join('');

function load(databases?: string): SweepProblem[] {
  return spiderFamily.load({
    entry: { name: 'spider', family: 'spider', path: 'dev.jsonl', ...(databases ? { databases } : {}) } as never,
    texts: { rows: rowsText },
    sources: { rows: 'dev.jsonl' },
  }).problems as SweepProblem[];
}

// Per task, its samples' queries (sample 0 is what bigcode's BLEU scores) and whether each ran right.
const SAMPLES: Array<Array<{ query: string; passed: boolean }>> = [
  [
    { query: 'SELECT COUNT(*) FROM singer', passed: true },
    { query: 'SELECT 1', passed: false },
  ],
  [
    { query: 'SELECT name FROM singer', passed: false },
    { query: 'SELECT name FROM singer ORDER BY age', passed: true },
  ],
];

/** The record executeShard makes of a run sample of a task also scored from its text. */
function record(problems: readonly SweepProblem[], task: number, sample: number): SampleRecord {
  const { query, passed } = SAMPLES[task]![sample]!;
  const also = alsoTextCheckingOf(problems[task]!);
  return {
    task_id: problems[task]!.task_id,
    task_index: task,
    sample_index: sample,
    raw: query,
    code: query,
    solution: query,
    status: passed ? 'passed' : 'failed',
    passed,
    success: true,
    ...(also ? { text_stats: also.stats(query) } : {}),
    duration_ms: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    calls: 1,
  };
}

const CELL = { cell: 'spider.base.direct.t0.2', dataset: 'spider', model: 'base', method: 'direct', temperature: 0.2, n_samples: 2 };

function summarize(problems: readonly SweepProblem[], records: readonly SampleRecord[]) {
  const acc = new CellAccumulator(problems);
  for (const r of records) acc.add(r);
  return acc.summary({ k: [1], cell: CELL, wallSeconds: 1, resultsKey: 'k' });
}

describe('Spider with its databases in a cell', () => {
  const problems = load('/db/spider/database');
  const records = [record(problems, 0, 0), record(problems, 0, 1), record(problems, 1, 0), record(problems, 1, 1)];

  it("its checking names the metric the family declares: bigcode's BLEU", () => {
    const also = alsoTextCheckingOf(problems[0]!)!;
    expect(also.metric.id).toBe('bleu');
    expect(corpusMetricById('bleu')).toBe(also.metric);
    // Without the databases the task is text-scored, not run: no `alsoText`.
    expect(alsoTextCheckingOf(load()[0]!)).toBeNull();
  });

  it("folds each task's first sample into BLEU beside pass@k, which stays execution accuracy", () => {
    const { summary, results } = summarize(problems, records);
    expect(summary.passAtK).toEqual({ 'pass@1': 0.5 });
    expect(summary.scores).toBeUndefined();
    const expected = bigcodeBleu(
      SAMPLES.map((s) => s[0]!.query),
      ROWS.map((r) => r.query),
    );
    expect(expected.bleu).toBeGreaterThan(0);
    expect(expected.bleu).toBeLessThan(1);
    expect(summary.alsoText).toMatchObject({ metric: 'bleu', headline: 'bleu', samplesScored: 'first', samples: 2 });
    expect(summary.alsoText!.figures.bleu).toBeCloseTo(expected.bleu, 12);
    // Sample order does not matter: the fold takes sample 0 of each task.
    expect(summarize(problems, [...records].reverse()).summary.alsoText).toEqual(summary.alsoText);
    expect(results['pass@1']).toBe(0.5);
    expect(results.also_text).toEqual({ metric: 'bleu', samples_scored: 'first', samples: 2, ...summary.alsoText!.figures });
    expect(JSON.parse(bigcodeMetricsJson(summary)).spider).toEqual({ 'pass@1': 0.5, ...summary.alsoText!.figures });
    expect(formatResultsTable([summary])).toContain(
      `spider.base.direct.t0.2: also from the text: bleu ${(summary.alsoText!.figures.bleu as number).toFixed(4)}; precisions`,
    );
  });

  it('a cell of generation-only records has no BLEU either, as it has no pass@k', () => {
    const saved = records.map((r) => ({ ...r, status: 'not_executed' as const, passed: false }));
    expect(summarize(problems, saved).summary.alsoText).toBeUndefined();
  });

  it('a record with text statistics of a task not also scored from its text is refused by name', () => {
    const plain = load('/db/spider/database').map((p) => ({ ...p, family: 'humaneval' }) as SweepProblem);
    expect(() => summarize(plain, records)).toThrow(/record of task Spider\/0 has text statistics/);
  });
});
