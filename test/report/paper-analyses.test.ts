import { describe, expect, it } from 'vitest';
import {
  costTable,
  coaeVsPass,
  debugShares,
  formatPaperAnalyses,
  paperAnalyses,
  type TaskEvidence,
} from '../../domain/report/paperAnalyses.js';
import { ExplorationTraceSchema, type ExplorationTrace } from '../../domain/report/trace.js';

/** A subtask as an ExploraCoder* trace records it: first-generation success, after-debug success, debug cost. */
function subtask(index: number, explored_ok: boolean, ok_after_debug: boolean, debug_requests = 0, debug_rounds = 0) {
  return {
    index,
    description: `step ${index}`,
    attempts: [],
    outcome: ok_after_debug ? 'solved' : 'unsolved',
    explored_ok,
    ok_after_debug,
    debug_requests,
    debug_rounds,
  };
}

const cost = (requests: number, answers: number, prompt_tokens: number, completion_tokens: number) => ({
  requests,
  answers,
  prompt_tokens,
  completion_tokens,
});

// Task 0: all three subtasks work in the first generation.
const traceA: ExplorationTrace = ExplorationTraceSchema.parse({
  method: 'exploracoder-debug',
  subtasks: [subtask(0, true, true), subtask(1, true, true), subtask(2, true, true)],
  stages: { plan: cost(1, 1, 100, 20), explore: cost(3, 6, 900, 300), final: cost(1, 2, 400, 80) },
});
// Task 1: subtask 1 needed debug and was fixed (2 requests, 1 round); subtask 2 needed debug and
// still failed (3 requests, 1 round); a skipped subtask is not counted.
const traceB: ExplorationTrace = ExplorationTraceSchema.parse({
  method: 'exploracoder-debug',
  subtasks: [
    subtask(0, true, true),
    subtask(1, false, true, 2, 1),
    subtask(2, false, false, 3, 1),
    { index: 3, description: 'skipped', attempts: [], outcome: 'skipped' },
  ],
  stages: { plan: cost(1, 1, 120, 40), explore: cost(3, 6, 1000, 360), debug: cost(5, 5, 700, 150), final: cost(1, 2, 500, 100) },
});

describe('paper analyses', () => {
  it('means each stage over traced tasks, in Table 6 units, with totals', () => {
    const table = costTable([traceA, traceB]);
    expect(table.tasks).toBe(2);
    expect(table.mean_subtasks).toBe((3 + 4) / 2);
    expect(table.rows.map((r) => r.stage)).toEqual(['plan', 'explore', 'debug', 'final', 'total']);
    expect(table.rows[0]).toEqual({ stage: 'plan', requests: 1, answers: 1, prompt_tokens: 110, completion_tokens: 30 });
    expect(table.rows[1]).toEqual({ stage: 'explore', requests: 3, answers: 6, prompt_tokens: 950, completion_tokens: 330 });
    // debug only in task B: its sum over both tasks' count.
    expect(table.rows[2]).toEqual({ stage: 'debug', requests: 2.5, answers: 2.5, prompt_tokens: 350, completion_tokens: 75 });
    const totalRequests = (1 + 3 + 1 + 1 + 3 + 5 + 1) / 2;
    const totalPrompt = (100 + 900 + 400 + 120 + 1000 + 700 + 500) / 2;
    expect(table.rows[4]).toEqual({
      stage: 'total',
      requests: totalRequests,
      answers: (1 + 6 + 2 + 1 + 6 + 5 + 2) / 2,
      prompt_tokens: totalPrompt,
      completion_tokens: (20 + 300 + 80 + 40 + 360 + 150 + 100) / 2,
    });
  });

  it('p1 is the share of explored subtasks needing debug, p2 the share of those still failing', () => {
    const d = debugShares([traceA, traceB]);
    expect(d.explored_subtasks).toBe(6);
    expect(d.needed_debug).toBe(2);
    expect(d.still_failing).toBe(1);
    expect(d.p1).toBeCloseTo(2 / 6);
    expect(d.p2).toBeCloseTo(1 / 2);
    expect(d.mean_debug_requests).toBe((2 + 3) / 2);
    expect(d.mean_debug_rounds).toBe(1);
    expect(debugShares([traceA]).p2).toBeNull();
  });

  it('splits tasks by CoAE success and compares their final pass rates', () => {
    const tasks: TaskEvidence[] = [
      { task_index: 0, trace: traceA, n: 4, c: 3 },
      { task_index: 1, trace: traceB, n: 4, c: 1 },
      { task_index: 2, trace: traceA, n: 2, c: 2 },
      { task_index: 3, trace: null, n: 4, c: 0 },
    ];
    const g = coaeVsPass(tasks);
    expect(g.all_subtasks_ok).toEqual({ tasks: 2, share: 2 / 3, pass_rate: (3 / 4 + 2 / 2) / 2 });
    expect(g.some_subtask_failed).toEqual({ tasks: 1, share: 1 / 3, pass_rate: 1 / 4 });
    expect(g.unexplored_tasks).toBe(1);
    const all = paperAnalyses(tasks);
    expect(all.cost.tasks).toBe(3);
    const text = formatPaperAnalyses('pbe.m.exploracoder-debug.t0.8', all);
    // traceA appears twice here: 2 of 3 + 3 + 3 explored subtasks needed debug.
    expect(text).toContain('p1 22.2%');
    expect(text).toContain('p2 50.0%');
  });

  it('uses first-generation success where the method does not debug', () => {
    const noDebug = ExplorationTraceSchema.parse({
      subtasks: [{ index: 0, description: 'x', attempts: [], outcome: 'unsolved', explored_ok: false }],
    });
    const g = coaeVsPass([{ task_index: 0, trace: noDebug, n: 1, c: 1 }]);
    expect(g.some_subtask_failed.tasks).toBe(1);
    expect(debugShares([noDebug]).p2).toBe(1);
  });
});

describe('configs/exploracoder-reproduction.yaml', () => {
  it('runs the issue grid: unseen libraries, the baselines, ExploraCoder(*) and the ablations', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const { loadSweepConfig } = await import('../../domain/sweep/config.js');
    const file = new URL('../../configs/exploracoder-reproduction.yaml', import.meta.url);
    const config = loadSweepConfig(readFileSync(file, 'utf8'), 'exploracoder-reproduction.yaml');
    expect(config.datasets.map((d) => d.name)).toEqual(['pbe-private', 'monkey', 'beatnum']);
    // CoAE's m candidates in one request of n = m, as the paper's Table 6 counts them.
    expect(config.models[0]!.samples_per_request).toBe(config.method_options.candidates);
    for (const m of [
      'direct',
      'rag',
      'capir',
      'capir-self-repair',
      'exploracoder',
      'exploracoder-debug',
      'exploracoder-debug-no-summary',
      'exploracoder-debug-no-exploration',
      'exploracoder-debug-random-selection',
    ]) {
      expect(config.methods).toContain(m);
    }
    // The renamed libraries' files are relative to the config file and must exist beside the repo.
    const text = readFileSync(file, 'utf8');
    const paths = [...text.matchAll(/(?:path|keywords|mapping): (\S+)/g)].map((m) => m[1]!);
    expect(paths.length).toBe(6);
    for (const p of paths) expect(existsSync(new URL(p, file)), p).toBe(true);
  });
});

describe('formatPaperAnalyses', () => {
  it('says a method that explores nothing has no debug or CoAE figures', () => {
    const capir = ExplorationTraceSchema.parse({
      method: 'capir',
      subtasks: [{ index: 0, description: 'x', attempts: [], outcome: 'skipped' }],
      stages: { plan: cost(1, 1, 10, 2), final: cost(1, 1, 20, 4) },
    });
    const text = formatPaperAnalyses('c', paperAnalyses([{ task_index: 0, trace: capir, n: 1, c: 0 }]));
    expect(text).toContain('no explored subtask');
    expect(text).not.toContain('p1');
    expect(text).toMatch(/total\s+2\.00\s+2\.00\s+30\s+6/);
  });
});
