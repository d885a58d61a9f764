/** The progress line's ETA (from the answer rate while answers come, from the execution rate after) and its spend line. */
import { describe, expect, it } from 'vitest';
import {
  cellLine,
  etaSeconds,
  finishedCellLines,
  gatheredLine,
  liveCutWarning,
  spendLines,
  type CellView,
} from '../../scripts/lib/sweep-view.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import type { SweepProgress } from '../../workflows/sweep.js';

const at = (seconds: number) => 1_000_000 + seconds * 1000;
const cell = (answered: number, samplesDone: number) => ({ answered, samplesDone, samplesTotal: 100, startedAtMs: at(0) });

describe('etaSeconds', () => {
  it('while generating: the answers left at the answer rate, executions not awaited', () => {
    // 20 answers in 10 s: 80 more take 40 s.
    expect(etaSeconds(cell(20, 0), at(10))).toBe(40);
  });

  it('once every sample is answered: the executions left at the execution rate', () => {
    // 100 answered, 50 executed in 25 s: 50 more take 25 s.
    expect(etaSeconds(cell(100, 50), at(25))).toBe(25);
  });

  it('unknown before the first answer; zero once all is executed', () => {
    expect(etaSeconds(cell(0, 0), at(5))).toBeNull();
    expect(etaSeconds(cell(100, 0), at(5))).toBeNull();
    expect(etaSeconds(cell(100, 100), at(5))).toBe(0);
  });
});

describe('spendLines', () => {
  const summary = { samples: 10, cost: { promptTokens: 1000, completionTokens: 500 } } as unknown as CellSummary;
  const sweep = (extra: Partial<SweepProgress>): SweepProgress => ({
    sweepId: 's',
    phase: 'cells',
    paused: false,
    resultsKey: null,
    reportKey: null,
    cells: [
      { id: 'done', workflowId: 'w1', state: 'done', summary, model: 'a', samplesTotal: 10 },
      { id: 'running', workflowId: 'w2', state: 'running', summary: null, model: 'a', samplesTotal: 10 },
      { id: 'pending', workflowId: 'w3', state: 'pending', summary: null, model: 'a', samplesTotal: 20 },
    ],
    ...extra,
  });
  // The running cell, as its live view: 5 of 10 answered for 750 tokens.
  const live = new Map([['running', { samplesTotal: 10, answered: 5, promptTokens: 500, completionTokens: 250 } as CellView]]);

  it('spend so far and the forecast, in tokens, then money with prices; a budget hold and how to lift it', () => {
    expect(spendLines(sweep({}), live)).toEqual(['spent 2,250 tokens; forecast remaining ~3,750 tokens']);
    const priced = sweep({
      prices: { a: { input_per_mtok: 3, output_per_mtok: 15, currency: 'USD' } },
      budget: { sweep: { tokens: 3000 }, models: {} },
      countsSpend: true,
      paused: true,
      pausedFor: 'budget: budget.tokens 2250 of 3000 spent (a task costs ~150)',
    });
    const [spend, paused] = spendLines(priced, live);
    expect(spend).toBe('spent 0.02 USD (2,250 tokens); forecast remaining ~0.03 USD (~3,750 tokens); budgets budget.tokens 3000');
    expect(paused).toMatch(/^paused for budget: budget\.tokens 2250 of 3000 spent \(a task costs ~150\): raise it in the config/);
  });
});

describe('cellLine and the cut warning', () => {
  const view = (extra: Partial<CellView>): CellView =>
    ({
      phase: 'running',
      answered: 37,
      samplesDone: 0,
      samplesTotal: 120,
      tasksAnswered: 5,
      tasksTotal: 6,
      cut: 0,
      passAt1SoFar: null,
      startedAtMs: at(0),
      calls: 37,
      promptTokens: 3700,
      completionTokens: 1000,
      ...extra,
    }) as CellView;

  it('counts samples as they are answered, the tasks whose answers are all in, and the cut answers', () => {
    expect(cellLine(view({ cut: 2 }), at(37))).toBe(
      'running samples answered 37/120 executed 0/120 tasks 5/6 cut 2 pass@1 - ETA 83s calls 37 tokens 4700',
    );
  });

  it('warns of a cell with cut answers only', () => {
    expect(liveCutWarning('c', view({}))).toBeNull();
    expect(liveCutWarning('c', view({ cut: 2 }))).toMatch(
      /^warning: c: 2 of 37 answers so far were cut at max_tokens; .*raise the model's max_tokens$/,
    );
  });
});

describe('finishedCellLines', () => {
  const summary = (cell: string) =>
    ({
      cell: { cell },
      tasks: 4,
      samples: 4,
      passAtK: { 'pass@1': 0.75 },
      successAtK: { 'success@1': 1 },
      droppedK: [],
      cost: { calls: 4, promptTokens: 400, completionTokens: 300, sandboxRuns: 4, wallSeconds: 12.5 },
    }) as unknown as CellSummary;
  const entry = (id: string, state: 'pending' | 'running' | 'done') => ({
    id,
    workflowId: `w-${id}`,
    state,
    summary: state === 'done' ? summary(id) : null,
  });

  it("shows a cell's results once, as soon as it ends while others run; none when all are done", () => {
    const shown = new Set<string>();
    expect(finishedCellLines({ cells: [entry('a', 'running'), entry('b', 'running')] }, shown)).toEqual([]);
    const [first] = finishedCellLines({ cells: [entry('a', 'done'), entry('b', 'running')] }, shown);
    expect(first).toMatch(/^finished while the sweep goes on:\ncell\s+tasks/);
    expect(first).toMatch(/\na\s+4\s+4\s+0\.7500\s/);
    expect(first).not.toMatch(/\nb\s/);
    expect(finishedCellLines({ cells: [entry('a', 'done'), entry('b', 'running')] }, shown)).toEqual([]);
    // The last cell's results come with the sweep's whole table.
    expect(finishedCellLines({ cells: [entry('a', 'done'), entry('b', 'done')] }, shown)).toEqual([]);
  });
});

describe('gatheredLine', () => {
  it("shows the batches a sweep gathered by model, each's state and counts; none without", () => {
    const batch = (batchId: string, status: string, completed: number) => ({ batchId, status, total: 8, completed, failed: 0 });
    expect(
      gatheredLine([
        { round: 1, batches: [batch('batch_a', 'in_progress', 3)], samplesAnswered: 0, samples: 8 },
        { round: 1, batches: [batch('batch_b', 'completed', 8)], samplesAnswered: 8, samples: 8 },
      ]),
    ).toBe('gathered batches: batch_a in_progress 3/8 done, batch_b completed 8/8 done');
    // Started, not yet submitted.
    expect(gatheredLine([{ round: 1, batches: [], samplesAnswered: 0, samples: 8 }])).toBe('gathered batches: submitting');
    expect(gatheredLine(undefined)).toBeNull();
  });
});
