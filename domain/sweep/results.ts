/**
 * A cell's results from its sample records: pass@k, success@k, per-task counts, outcomes, cost;
 * and the text of its bigcode/human-eval-compatible files, piece by piece, so a cell of any size is
 * finalized a batch of records at a time.
 */
import type { SweepProblem } from '../datasets/problems.js';
import { familyOf } from '../families/registry.js';
import { estimateAtK } from '../metrics/passAtK.js';
import { kindOfCell, kindOfSample } from '../scoring/scoreKinds.js';
import { corpusScoreJson } from '../scoring/textScoreKind.js';
import { namedIntervals, type AnyScoreKind, type AtKInterval, type CellKindScores } from '../scoring/scoreKind.js';
import { recordCost, type SampleRecord } from './records.js';
import { alsoTextCheckingOf, CorpusFold } from './textScores.js';
import type { CorpusScore } from './corpusScore.js';
import type { CorpusMetric } from '../families/types.js';

export { corpusScoreJson, namedIntervals, type AtKInterval };

/** What a cell cost: LLM calls and tokens, sandbox runs, wall time. */
/** The finish reason of an answer cut at max_tokens (OpenAI's API, vLLM, llama.cpp). */
export const FINISH_LENGTH = 'length';

export interface CellCost {
  /** Requests the endpoint answered (LlmRecord.calls): what was paid for. */
  calls: number;
  /**
   * Requests sent that brought no answer (time-outs, dropped connections, 429/5xx); absent from
   * summaries stored before it existed.
   */
  requestsUnanswered?: number;
  promptTokens: number;
  completionTokens: number;
  /**
   * Of the tokens, those answered through the provider's Batch API (batch mode): they cost the
   * batch price, the rest the live price. Absent: none (or summaries stored before it existed).
   */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
  sandboxRuns: number;
  wallSeconds: number;
}

/** A cell's scores and counts, as results.json and the report carry them. */
export interface CellScores {
  /** Tasks scored. */
  tasks: number;
  samples: number;
  /** Keyed `pass@<k>`. */
  passAtK: Record<string, number>;
  /** Keyed `success@<k>`. */
  successAtK: Record<string, number>;
  /**
   * Standard error and 95% interval over tasks of each pass@k, keyed `pass@<k>` (see meanInterval).
   * Absent from summaries stored before it existed: readers show no interval then.
   */
  passAtKCI?: Record<string, AtKInterval>;
  /** The same for success@k, keyed `success@<k>`. */
  successAtKCI?: Record<string, AtKInterval>;
  /** Requested k values that could not be scored (k > the smallest n), with why. */
  droppedK: string[];
  statusCounts: Record<string, number>;
  cost: CellCost;
  /**
   * Answers the endpoint cut at max_tokens (finish_reason `length`): a cut answer is usually a
   * broken program, so pass@k then measures max_tokens as much as the model. Absent when none were
   * (and from summaries stored before it existed).
   */
  cutAtMaxTokens?: number;
  /** The cell's scores beyond pass@k, for the families that have them (see CellExtraScores); absent otherwise. */
  scores?: CellExtraScores;
  /**
   * A run cell's samples also scored from their text (TaskChecking `tests` with `alsoText`: Spider's
   * BLEU beside execution accuracy, which is its pass@1): the metric's figures over them. Absent
   * otherwise, and from summaries stored before it existed.
   */
  alsoText?: CorpusScore;
}

/**
 * A cell's scores beyond pass@k and success@k: the figures of its samples' score kind (ScoreKind,
 * declared by the family that owns it: evalplus's `named`, APPS's `test_cases`, PAL's `voting`, the
 * shared `text`), tagged with the kind's `cellKind`.
 */
export type CellExtraScores = CellKindScores;

export interface CellSummary extends CellScores {
  cell: Record<string, unknown>;
  resultsKey: string;
}

export interface CellSummaryInput {
  k: number[];
  cell: Record<string, unknown>;
  wallSeconds: number;
  resultsKey: string;
}

/** The order of a cell's records in its files: by task, then by sample. */
export function compareRecords(
  a: Pick<SampleRecord, 'task_index' | 'sample_index'>,
  b: Pick<SampleRecord, 'task_index' | 'sample_index'>,
): number {
  return a.task_index - b.task_index || a.sample_index - b.sample_index;
}

/**
 * What a cell's results need from its records, folded one record at a time: per-task counts,
 * status counts and cost sums. Its size is the number of tasks, never the number of samples.
 * Records are added in file order (see compareRecords), so the status counts list their
 * statuses in the order they first appear there.
 */
export class CellAccumulator {
  private readonly perTask: Array<{
    task_id: string;
    n: number;
    c: number;
    s: number;
    pipeline_length: number | undefined;
    /** The task's state of the cell's score kind (absent: none of its samples had a score). */
    kind?: unknown;
  }>;
  /** Samples saved but not executed (generation-only): a cell holding any is not scored at all. */
  private unexecuted = 0;
  private readonly statusCounts: Record<string, number> = {};
  /** Answers the endpoint cut at max_tokens (finish_reason `length`). */
  private cutAtMaxTokens = 0;
  private samples = 0;
  private calls = 0;
  private requestsUnanswered = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private batchPromptTokens = 0;
  private batchCompletionTokens = 0;
  private sandboxRuns = 0;
  /** The kind of the cell's scores, and the cell's state of it, from its first record with a score (one kind per cell). */
  private kind: { kind: AnyScoreKind; cell: unknown } | null = null;
  /** The metric its run samples are also scored by from their text, and its fold, from its first record with `text_stats`. */
  private alsoText: { metric: CorpusMetric; fold: CorpusFold } | null = null;

  constructor(private readonly problems: readonly SweepProblem[]) {
    this.perTask = problems.map((p) => ({ task_id: p.task_id, n: 0, c: 0, s: 0, pipeline_length: familyOf(p).pipelineLength(p) }));
  }

  add(r: SampleRecord): void {
    const t = this.perTask[r.task_index];
    if (!t)
      throw new RangeError(`record of task ${r.task_id} has task index ${r.task_index}, beyond the cell's ${this.perTask.length} tasks`);
    // A sample saved but not executed (generation-only) is no evidence either way; its cell's other
    // samples (failed generations, a subset executed by an earlier run) alone would score it wrongly.
    if (r.status === 'not_executed') this.unexecuted++;
    else {
      t.n++;
      if (r.passed) t.c++;
      if (r.success) t.s++;
      if (r.score) {
        const kind = this.kindOf(r);
        t.kind = kind.kind.add(kind.cell, t.kind, r.score, {
          problem: this.problems[r.task_index]!,
          taskId: r.task_id,
          sampleIndex: r.sample_index,
          passed: r.passed,
        });
      }
      if (r.text_stats) this.alsoTextFold(r).add(r.text_stats, r.sample_index === 0);
    }
    this.statusCounts[r.status] = (this.statusCounts[r.status] ?? 0) + 1;
    if (r.finish_reason === FINISH_LENGTH) this.cutAtMaxTokens++;
    this.samples++;
    const cost = recordCost(r);
    this.calls += cost.calls;
    this.requestsUnanswered += cost.requests_unanswered ?? 0;
    this.promptTokens += cost.prompt_tokens;
    this.completionTokens += cost.completion_tokens;
    this.batchPromptTokens += cost.batch_prompt_tokens ?? 0;
    this.batchCompletionTokens += cost.batch_completion_tokens ?? 0;
    this.sandboxRuns += cost.sandbox_runs;
  }

  /** The cell's score kind, from its first record with a score: its records' scores are all of it. */
  private kindOf(r: SampleRecord): { kind: AnyScoreKind; cell: unknown } {
    const kind = kindOfSample(r.score!);
    this.kind ??= { kind, cell: kind.newCell() };
    if (this.kind.kind !== kind)
      throw new Error(`record of task ${r.task_id} has a score of kind ${kind.sampleKind}, the cell's others ${this.kind.kind.sampleKind}`);
    return this.kind;
  }

  /** The fold of the cell's run samples also scored from their text: its tasks' metric (the family's; one per cell). */
  private alsoTextFold(r: SampleRecord): CorpusFold {
    const checking = alsoTextCheckingOf(this.problems[r.task_index]!);
    if (checking === null)
      throw new Error(`record of task ${r.task_id} has text statistics, but its task is not also scored from its text`);
    this.alsoText ??= { metric: checking.metric, fold: new CorpusFold(checking.metric) };
    if (this.alsoText.metric.id !== checking.metric.id)
      throw new Error(`task ${r.task_id} is also scored by ${checking.metric.id}, the cell's others by ${this.alsoText.metric.id}`);
    return this.alsoText.fold;
  }

  /** The cell's summary and its results.json content, from the records added so far. */
  summary(input: CellSummaryInput): { summary: CellSummary; results: Record<string, unknown> } {
    const perTask = this.perTask;
    const statusCounts = { ...this.statusCounts };
    const scored = this.unexecuted > 0 ? [] : perTask.filter((t) => t.n > 0);
    const pass = estimateAtK(
      scored.map((t) => ({ n: t.n, c: t.c })),
      input.k,
    );
    const success = estimateAtK(
      scored.map((t) => ({ n: t.n, c: t.s })),
      input.k,
    );
    if (this.unexecuted > 0)
      pass.dropped = [`pass@k and success@k: ${this.unexecuted} samples were not executed (generation-only), nothing is scored`];
    else if (this.kind && !this.kind.kind.runs) {
      // Nothing ran: a pass@k of zeros would read as a score.
      pass.averages = {};
      pass.intervals = {};
      success.averages = {};
      success.intervals = {};
      pass.dropped = [
        this.kind.kind.noPassAtK?.(this.kind.cell) ?? `pass@k and success@k: the samples' ${this.kind.kind.cellKind} scores are not runs`,
      ];
    }
    const cost = {
      calls: this.calls,
      // Only when some request went unanswered: cells of sweeps without an outage store what they did before.
      ...(this.requestsUnanswered > 0 ? { requestsUnanswered: this.requestsUnanswered } : {}),
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      ...(this.batchPromptTokens > 0 || this.batchCompletionTokens > 0
        ? { batchPromptTokens: this.batchPromptTokens, batchCompletionTokens: this.batchCompletionTokens }
        : {}),
      sandboxRuns: this.sandboxRuns,
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
      samples: this.samples,
      passAtK: named('pass', pass.averages),
      successAtK: named('success', success.averages),
      passAtKCI: namedIntervals('pass', pass.intervals),
      successAtKCI: namedIntervals('success', success.intervals),
      droppedK: pass.dropped,
      statusCounts,
      cost,
      resultsKey: input.resultsKey,
    };
    const kind = this.unexecuted > 0 ? null : this.kind;
    const extra = kind?.kind.figures(
      kind.cell,
      scored.map((t) => ({ n: t.n, c: t.c, state: t.kind })),
      input.k,
    );
    if (extra) summary.scores = extra;
    const alsoText = this.unexecuted > 0 ? null : (this.alsoText?.fold.result() ?? null);
    if (alsoText) summary.alsoText = alsoText;
    // Only when some were: cells whose answers all ended on their own store what they did before.
    if (this.cutAtMaxTokens > 0) summary.cutAtMaxTokens = this.cutAtMaxTokens;
    const summaryMetrics = () => ({ ...summary.passAtK, ...summary.successAtK });
    const results = {
      ...input.cell,
      tasks: scored.length,
      samples: this.samples,
      ...summaryMetrics(),
      // Per metric (`pass@1`, `success@1`, ...): standard error over tasks and 95% interval.
      ci95: { ...summary.passAtKCI, ...summary.successAtKCI },
      dropped_k: pass.dropped,
      status_counts: statusCounts,
      ...(this.cutAtMaxTokens > 0 ? { answers_cut_at_max_tokens: this.cutAtMaxTokens } : {}),
      cost: {
        calls: cost.calls,
        ...(cost.requestsUnanswered ? { requests_unanswered: cost.requestsUnanswered } : {}),
        prompt_tokens: cost.promptTokens,
        completion_tokens: cost.completionTokens,
        ...(cost.batchPromptTokens !== undefined
          ? { batch_prompt_tokens: cost.batchPromptTokens, batch_completion_tokens: cost.batchCompletionTokens }
          : {}),
        sandbox_runs: cost.sandboxRuns,
        wall_seconds: cost.wallSeconds,
        // Per task, as the paper's cost table gives them.
        calls_per_task: scored.length ? cost.calls / scored.length : 0,
        tokens_per_task: scored.length ? (cost.promptTokens + cost.completionTokens) / scored.length : 0,
      },
      ...(Object.keys(byLength).length ? { pass_rate_by_pipeline_length: byLength } : {}),
      ...(extra ? { scores: extraScoresJson(extra) } : {}),
      // Beside pass@k (Spider's execution accuracy): the same samples' text metric (bigcode's BLEU).
      ...(alsoText ? { also_text: corpusScoreJson(alsoText) } : {}),
      per_task: perTask.map(({ pipeline_length, kind, ...t }) => ({
        ...t,
        ...(pipeline_length !== undefined ? { pipeline_length } : {}),
        ...(kind !== undefined && this.kind ? this.kind.kind.perTaskJson(kind, t.n) : {}),
      })),
    };
    return { summary, results };
  }
}

/** The extra scores as results.json writes them (their kind's resultsJson). */
export function extraScoresJson(extra: CellExtraScores): Record<string, unknown> {
  return kindOfCell(extra).resultsJson(extra);
}

export function summarizeCell(input: CellSummaryInput & { problems: SweepProblem[]; records: SampleRecord[] }): {
  summary: CellSummary;
  results: Record<string, unknown>;
} {
  const acc = new CellAccumulator(input.problems);
  for (const r of input.records) acc.add(r);
  return acc.summary(input);
}

/** results.json: the results, indented, with a final newline. */
export function resultsJson(results: Record<string, unknown>): string {
  return JSON.stringify(results, null, 2) + '\n';
}

/** A task's entry of references.json (bigcode's reference: its test and the call that runs it). */
/** The reference bigcode's references.json holds for a task: what runs after the solution. */
export function referenceOf(p: SweepProblem): string {
  const checking = familyOf(p).checking(p);
  switch (checking.kind) {
    case 'tests':
      return `${familyOf(p).tests(p, null)}\n`;
    // A task checked against its reference's outputs: the reference program (solution and inputs) is what decides.
    case 'reference-outputs':
      return `${checking.program}\n`;
    // A text-scored task's reference is the text its samples are compared with, as is (bigcode's get_reference).
    case 'text':
      return checking.reference;
  }
}

/**
 * A record's line of samples.jsonl (human-eval's format). Its `completion` continues the prompt:
 * the raw continuation where the code is one, else the whole solution (a full function after the
 * prompt's stub is still valid Python).
 */
export function sampleLine(p: SweepProblem, r: SampleRecord): string {
  const completion = p.form === 'completion' && r.solution.startsWith(p.prompt) ? r.solution.slice(p.prompt.length) : r.solution;
  return (
    JSON.stringify({ task_id: r.task_id, completion, result: r.status, passed: r.passed, ...(r.score ? { score: r.score } : {}) }) + '\n'
  );
}

/**
 * generations.json (bigcode's format: one list of solutions per task, in task order, `[]` for a
 * task without records), written piece by piece: `start()`, then `add()` per record in file order
 * (see compareRecords), then `end()`. The pieces joined are JSON.stringify of the whole list.
 */
export class GenerationsJson {
  private current = -1;

  constructor(private readonly tasks: number) {}

  start(): string {
    return '[';
  }

  add(taskIndex: number, solution: string): string {
    if (taskIndex === this.current) return ',' + JSON.stringify(solution);
    if (taskIndex < this.current || taskIndex >= this.tasks || !Number.isInteger(taskIndex)) {
      throw new RangeError(`generation of task index ${taskIndex} out of order (after ${this.current}, of ${this.tasks} tasks)`);
    }
    let out = this.closeUpTo(taskIndex);
    out += taskIndex > 0 ? ',[' : '[';
    this.current = taskIndex;
    return out + JSON.stringify(solution);
  }

  end(): string {
    const out = this.closeUpTo(this.tasks) + ']';
    this.current = this.tasks;
    return out;
  }

  /** Closes the current task's list and writes `[]` for the tasks before `taskIndex`. */
  private closeUpTo(taskIndex: number): string {
    const parts: string[] = this.current >= 0 && this.current < this.tasks ? [']'] : [];
    for (let t = this.current + 1; t < taskIndex; t++) parts.push(t > 0 ? ',[]' : '[]');
    return parts.join('');
  }
}

/**
 * A cell's own files from all its records at once (sorted here, compareRecords): generations.json,
 * references.json and samples.jsonl, the text finalizeCell streams a shard at a time; for a set of
 * records that fits in memory (scripts/evaluate.ts's).
 */
export function cellFileTexts(
  problems: readonly SweepProblem[],
  records: readonly SampleRecord[],
): { 'generations.json': string; 'references.json': string; 'samples.jsonl': string } {
  const sorted = [...records].sort(compareRecords);
  const generations = new GenerationsJson(problems.length);
  return {
    'generations.json': generations.start() + sorted.map((r) => generations.add(r.task_index, r.solution)).join('') + generations.end(),
    'references.json': JSON.stringify(problems.map(referenceOf)),
    'samples.jsonl': sorted.map((r) => sampleLine(problems[r.task_index]!, r)).join(''),
  };
}
