/**
 * LiveCodeBench's contamination window per model (`release_after: model_cutoff`): the sweep config
 * expands the entry into one dataset per training cut-off, each run with the models of that
 * cut-off (expandGrid), each cell's window what its results record (the family's cellScope); the
 * settings that conflict with it are refused naming the field.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../domain/families/registry.js';
import { parseSweepConfig, SweepConfigError, sweepConfigHash } from '../../domain/sweep/config.js';
import { expandGrid } from '../../domain/sweep/plan.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { sha } from '../support/stored-pins.js';
import { LCB_TASKS, lcbJsonl } from '../support/livecodebench-rows.js';

const model = (id: string, cutoff?: string) => ({
  id,
  base_url: 'http://127.0.0.1:1/v1',
  model: 'm',
  ...(cutoff ? { training_cutoff: cutoff } : {}),
});

const config = (lcb: Record<string, unknown>, models: unknown[], more: unknown[] = []) => ({
  datasets: [{ name: 'lcb', family: 'livecodebench', path: 'test5.jsonl', ...lcb }, ...more],
  models,
  methods: ['direct'],
  temperatures: [0.2],
  n_samples: 1,
  k: [1],
});

const issues = (value: unknown) => {
  try {
    parseSweepConfig(value);
    return [];
  } catch (error) {
    if (!(error instanceof SweepConfigError)) throw error;
    return error.issues.map((i) => `${i.path}: ${i.message}`);
  }
};

describe('a window per model: release_after: model_cutoff', () => {
  const MODELS = [model('a', '2024-04-30'), model('b', '2024-06-30'), model('c', '2024-04-30')];
  const HE = { name: 'he', family: 'humaneval', path: 'HumanEval.jsonl.gz' };

  it('one dataset per cut-off, run with its models only; other datasets with every model', () => {
    const parsed = parseSweepConfig(config({ release_after: 'model_cutoff', release_before: '2024-09-01' }, MODELS, [HE]));
    expect(parsed.datasets.map((d) => [d.name, 'release_after' in d ? d.release_after : null, 'models' in d ? d.models : null])).toEqual([
      ['lcb-from-2024-05-01', '2024-05-01', ['a', 'c']],
      ['lcb-from-2024-07-01', '2024-07-01', ['b']],
      ['he', null, null],
    ]);
    expect(expandGrid(parsed).map((c) => c.id)).toEqual([
      'lcb-from-2024-05-01.a.direct.t0.2',
      'lcb-from-2024-05-01.c.direct.t0.2',
      'lcb-from-2024-07-01.b.direct.t0.2',
      'he.a.direct.t0.2',
      'he.b.direct.t0.2',
      'he.c.direct.t0.2',
    ]);
    // Each cell's window, as its results record it (SweepCellInput.scope); none for HumanEval.
    expect(expandGrid(parsed).map((c) => familyOf(c.dataset).cellScope?.(c.dataset) ?? {})).toEqual([
      { release_window: 'released from 2024-05-01 to 2024-09-01 00:00', release_after: '2024-05-01', release_before: '2024-09-01' },
      { release_window: 'released from 2024-05-01 to 2024-09-01 00:00', release_after: '2024-05-01', release_before: '2024-09-01' },
      { release_window: 'released from 2024-07-01 to 2024-09-01 00:00', release_after: '2024-07-01', release_before: '2024-09-01' },
      {},
      {},
      {},
    ]);
    // A parsed config parses to itself (an expanded entry is one dataset with its models): the same hash.
    const again = parseSweepConfig(JSON.parse(JSON.stringify(parsed)));
    expect(again.datasets).toEqual(parsed.datasets);
    expect(sweepConfigHash(again, sha)).toBe(sweepConfigHash(parsed, sha));
  });

  it("each expanded dataset loads the problems of its models' window", () => {
    const parsed = parseSweepConfig(config({ release_after: 'model_cutoff' }, MODELS));
    const loaded = parsed.datasets.map(
      (d) =>
        familyOf(d)
          .load({ entry: d, texts: { rows: lcbJsonl(LCB_TASKS) }, sources: { rows: 'test5.jsonl' } })
          .problems.map((p) => p.task_id).length,
    );
    const after = (day: string) => LCB_TASKS.filter((t) => t.contest_date >= day).length;
    expect(loaded).toEqual([after('2024-05-01'), after('2024-07-01')]);
    expect(loaded[0]).toBeGreaterThan(loaded[1]!);
  });

  it('refuses what conflicts with it, naming the field', () => {
    expect(issues(config({ release_after: 'model_cutoff' }, [model('a', '2024-04-30'), model('b')]))).toEqual([
      'models[1].training_cutoff: dataset lcb has release_after: model_cutoff (a window per model): model b needs its training_cutoff (YYYY-MM-DD), or list it in another sweep',
    ]);
    expect(issues(config({ release_after: 'model_cutoff', release_before: '2024-06-01' }, MODELS))).toEqual([
      'datasets[0].release_before: dataset lcb has release_after: model_cutoff (a window per model): model b (models[1]) has training_cutoff 2024-06-30, so its window from 2024-07-01 to release_before 2024-06-01 is empty',
    ]);
    expect(issues(config({ release_after: 'model_cutoff', models: ['a'] }, MODELS))).toEqual([
      'datasets[0].models: dataset lcb has release_after: model_cutoff (a window per model), which runs each model on the problems after its own cut-off: leave models out',
    ]);
    expect(issues(config({ release_after: 'model_cutoff' }, MODELS, [{ ...HE, name: 'lcb-from-2024-07-01' }]))).toEqual([
      'datasets[0].name: its window per model makes dataset lcb-from-2024-07-01, the name of datasets[1]: rename one',
    ]);
    expect(issues(config({ release_after: 'model-cutoff' }, MODELS))[0]).toMatch(/^datasets\[0\]\.release_after: /);
  });

  it("a dataset's models: only those, each of the sweep; its window checked against their cut-offs alone", () => {
    const parsed = parseSweepConfig(config({ release_after: '2024-05-01', models: ['a', 'c'] }, MODELS));
    expect(expandGrid(parsed).map((c) => c.id)).toEqual(['lcb.a.direct.t0.2', 'lcb.c.direct.t0.2']);
    expect(issues(config({ release_after: '2024-05-01', models: ['a', 'x'] }, MODELS))).toEqual([
      'datasets[0].models[1]: no model of the sweep has id "x" (models: a, b, c)',
    ]);
    // Model b (cut-off 2024-06-30) meets the dataset: its window is too early for b.
    expect(issues(config({ release_after: '2024-05-01', models: ['b'] }, MODELS))).toEqual([
      "datasets[0].release_after: model b (models[1]) has training_cutoff 2024-06-30: problems released up to it may be in its training data; set release_after: '2024-07-01' or later, or list the model in another sweep",
    ]);
  });

  it('evaluate.ts refuses --release-after model_cutoff: one set of answers has no model', () => {
    expect(() =>
      loadEvaluateProblems({
        text: lcbJsonl(LCB_TASKS),
        source: 'test5.jsonl',
        family: 'livecodebench',
        options: { release_after: 'model_cutoff' },
      }),
    ).toThrow('--release-after: model_cutoff is a window per model of a sweep');
  });
});
