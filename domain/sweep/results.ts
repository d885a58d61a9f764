/** A cell's results from its sample records: pass@k, success@k, per-task counts, outcomes, cost. */
import type { SweepProblem } from '../datasets/problems.js';
import { estimateAtK } from '../metrics/passAtK.js';
import { recordCost, type SampleRecord } from './records.js';

export interface CellSummary {
  cell: Record<string, unknown>;
  tasks: number;
  samples: number;
  passAtK: Record<string, number>;
  successAtK: Record<string, number>;
  /** Requested k values that could not be scored (k > the smallest n), with why. */
  droppedK: string[];
  statusCounts: Record<string, number>;
  cost: { calls: number; promptTokens: number; completionTokens: number; sandboxRuns: number; wallSeconds: number };
  resultsKey: string;
}

export function summarizeCell(input: {
  problems: SweepProblem[];
  records: SampleRecord[];
  k: number[];
  cell: Record<string, unknown>;
  wallSeconds: number;
  resultsKey: string;
}): { summary: CellSummary; results: Record<string, unknown> } {
  const perTask = input.problems.map((p) => ({ task_id: p.task_id, n: 0, c: 0, s: 0, pipeline_length: p.pipeline_length }));
  const statusCounts: Record<string, number> = {};
  for (const r of input.records) {
    const t = perTask[r.task_index]!;
    t.n++;
    if (r.passed) t.c++;
    if (r.success) t.s++;
    statusCounts[r.status] = (statusCounts[r.status] ?? 0) + 1;
  }
  const scored = perTask.filter((t) => t.n > 0);
  const pass = estimateAtK(scored.map((t) => ({ n: t.n, c: t.c })), input.k);
  const success = estimateAtK(scored.map((t) => ({ n: t.n, c: t.s })), input.k);
  const costs = input.records.map(recordCost);
  const cost = {
    calls: costs.reduce((a, c) => a + c.calls, 0),
    promptTokens: costs.reduce((a, c) => a + c.prompt_tokens, 0),
    completionTokens: costs.reduce((a, c) => a + c.completion_tokens, 0),
    sandboxRuns: costs.reduce((a, c) => a + c.sandbox_runs, 0),
    wallSeconds: input.wallSeconds,
  };
  const byLength: Record<string, { tasks: number; pass_rate: number }> = {};
  for (const t of scored) {
    if (t.pipeline_length === undefined) continue;
    const b = (byLength[t.pipeline_length] ??= { tasks: 0, pass_rate: 0 });
    b.pass_rate = (b.pass_rate * b.tasks + t.c / t.n) / (b.tasks + 1);
    b.tasks++;
  }
  const named = (prefix: string, averages: Record<string, number>) =>
    Object.fromEntries(Object.entries(averages).map(([k, v]) => [`${prefix}@${k}`, v]));
  const summary: CellSummary = {
    cell: input.cell,
    tasks: scored.length,
    samples: input.records.length,
    passAtK: named('pass', pass.averages),
    successAtK: named('success', success.averages),
    droppedK: pass.dropped,
    statusCounts,
    cost,
    resultsKey: input.resultsKey,
  };
  const summaryMetrics = () => ({ ...summary.passAtK, ...summary.successAtK });
  const results = {
    ...input.cell,
    tasks: scored.length,
    samples: input.records.length,
    ...summaryMetrics(),
    dropped_k: pass.dropped,
    status_counts: statusCounts,
    cost: {
      calls: cost.calls,
      prompt_tokens: cost.promptTokens,
      completion_tokens: cost.completionTokens,
      sandbox_runs: cost.sandboxRuns,
      wall_seconds: cost.wallSeconds,
      // Per task, as the paper's cost table gives them.
      calls_per_task: scored.length ? cost.calls / scored.length : 0,
      tokens_per_task: scored.length ? (cost.promptTokens + cost.completionTokens) / scored.length : 0,
    },
    ...(Object.keys(byLength).length ? { pass_rate_by_pipeline_length: byLength } : {}),
    per_task: perTask.map(({ pipeline_length, ...t }) => ({ ...t, ...(pipeline_length !== undefined ? { pipeline_length } : {}) })),
  };
  return { summary, results };
}
