/** The per-sample record a sweep keeps, and the per-task counts pass@k is computed from. */
import { z } from 'zod';
import { ExceptionInfoSchema, ExecutionStatusSchema, type ExceptionInfo, type ExecutionStatus } from '../execution/types.js';
import type { StatusScore, TaskScore } from '../families/types.js';
import { kindOfSample, SampleScoreSchema, scoreRuns } from '../scoring/scoreKinds.js';
import type { KindTaskScore } from '../scoring/scoreKind.js';
import { FINISH_LENGTH } from '../llm/request.js';
import { MethodCostSchema, type MethodCost } from '../methods/artifacts.js';

/**
 * How a sample ended: a run's status; `llm_error` (no answer); `not_executed` (saved, not run:
 * generation-only); `scored` (a task scored from its text, TaskChecking `text`: nothing ran, and
 * `passed` / `success` are false and mean nothing; its score is the record's `score.stats`).
 */
export const SampleStatusSchema = z.union([ExecutionStatusSchema, z.enum(['llm_error', 'not_executed', 'scored'])]);
export type SampleStatus = z.infer<typeof SampleStatusSchema>;

export const SampleRecordSchema = z.object({
  task_id: z.string(),
  task_index: z.number().int().nonnegative(),
  sample_index: z.number().int().nonnegative(),
  /** The model's raw answer (or the loaded generation), before extraction. */
  raw: z.string(),
  /** The code extracted from it. */
  code: z.string(),
  /** The program it stands for without the test (prompt included where the code continues it): bigcode's generation. */
  solution: z.string(),
  status: SampleStatusSchema,
  passed: z.boolean(),
  /** Ran to the end of the test or stopped only on a test assertion. */
  success: z.boolean(),
  /**
   * The scores beyond `passed` of a family that has several (see TaskScore): a score kind's fields,
   * as its declaration keeps them (ScoreKind.sampleSchema: evalplus's named scores, APPS's test
   * cases, PAL's answer, a text-scored sample's statistics). Absent for the families scored from
   * the status alone, and in records stored before it existed.
   */
  score: SampleScoreSchema.optional(),
  /**
   * A run sample's statistics for the metric its family also scores it by from its text
   * (TaskChecking `tests` with `alsoText`: Spider's BLEU beside execution accuracy), what that
   * metric sums over the cell. Absent for other samples, and in records stored before it existed.
   */
  text_stats: z.record(z.string(), z.number()).optional(),
  exception: ExceptionInfoSchema.optional(),
  llm_error: z.string().optional(),
  duration_ms: z.number().nonnegative(),
  /** Ran in a process shared with other programs, each in its own space, ending as alone (a worker's --share-process; ExecutionResult.sharedProcess). */
  shared_process: z.literal(true).optional(),
  /** Forked from a warm server of its slot rather than started in a sandbox of its own (a worker's fork servers, on unless --no-fork-server; ExecutionResult.forked). */
  forked: z.literal(true).optional(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  /** The final call's requests sent without an answer (LlmRecord.requestsUnanswered); absent: none. */
  requests_unanswered: z.number().int().positive().optional(),
  llm_key: z.string().optional(),
  /** The provider batch that answered the final call (LlmRecord.batchId): its tokens cost the batch price. Absent: answered live. */
  batch_id: z.string().optional(),
  /**
   * Why the model stopped writing the answer, as its endpoint said (`stop`, `length`: cut at
   * max_tokens, ...). Absent for loaded generations, answers without one, and records stored before it existed.
   */
  finish_reason: z.string().optional(),
  /** The model server's `system_fingerprint` in the answer's response, when it sent one (OpenAI's). */
  system_fingerprint: z.string().optional(),
  /**
   * The task's method work beyond final answers (planning, retrieval, exploration, repairs), shared
   * by its samples and recorded once, on sample 0, so that sums over records are the cell's cost.
   */
  method_cost: MethodCostSchema.optional(),
  /** The task's trace (multi-step methods). */
  trace_key: z.string().optional(),
});
export type SampleRecord = z.infer<typeof SampleRecordSchema>;

/** A family's score of a run as a record's fields: `passed`, `success`, and `score` when the family has more (its kind's record score). */
export function scoreFields(score: TaskScore): Pick<SampleRecord, 'passed' | 'success' | 'score'> {
  if (score.kind === 'status') return { passed: score.passed, success: score.success };
  return { passed: score.passed, success: score.success, score: kindOfSample(score).recordScore(score as KindTaskScore) };
}

/**
 * What a record says of a run: its status and exception as the sandbox reported them, except that a
 * run its family scored wrong though it ended well (TaskScore `failure`: Spider's query ran, its
 * result is not the gold's) reads `failed`, the family's reason as its exception, so that no wrong
 * sample reads "passed" (records, results files, the report's status counts, evaluate.ts's rows).
 */
export function recordedRun(
  result: { status: ExecutionStatus; exception?: ExceptionInfo },
  score: TaskScore,
): { status: ExecutionStatus; exception?: ExceptionInfo } {
  // StatusScore's `failure`, or a family's kind that carries one (BigCodeBench's verdict-less run).
  const failure = score.kind === 'text' ? undefined : (score as Pick<StatusScore, 'failure'>).failure;
  if (failure && result.status === 'passed') return { status: 'failed', exception: failure };
  return { status: result.status, ...(result.exception ? { exception: result.exception } : {}) };
}

export interface TaskCounts {
  taskIndex: number;
  /** samples */
  n: number;
  /** passed */
  c: number;
  /** succeeded (no runtime error) */
  s: number;
}

export interface ShardOutcome {
  shardIndex: number;
  tasks: TaskCounts[];
  samples: number;
  sandboxRuns: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Absent from outcomes stored before it existed. */
  requestsUnanswered?: number;
  /** Answers cut at max_tokens (finish_reason `length`); absent: none, or outcomes from before it. */
  cutAtMaxTokens?: number;
  /** Of the tokens, those answered in provider batches (batch price); absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
}

/**
 * Per task n, c, s; none when the shard did not execute (generation-only), as CellAccumulator
 * scores, nor for samples scored from their text (they pass nothing: pass@1 so far stays "-").
 */
function countsOf(records: readonly SampleRecord[], taskStart: number, taskEnd: number, executed: boolean): TaskCounts[] {
  const byTask = new Map<number, TaskCounts>();
  for (let t = taskStart; t < taskEnd; t++) byTask.set(t, { taskIndex: t, n: 0, c: 0, s: 0 });
  if (!executed) return [...byTask.values()];
  for (const r of records) {
    if (!scoreRuns(r.score)) continue;
    const c = byTask.get(r.task_index)!;
    c.n++;
    if (r.passed) c.c++;
    if (r.success) c.s++;
  }
  return [...byTask.values()];
}

/** What a shard's records say to its cell: per task n, c, s (countsOf), and the samples' costs. */
export function shardOutcomeOf(
  shardIndex: number,
  records: readonly SampleRecord[],
  taskStart: number,
  taskEnd: number,
  executed: boolean,
): ShardOutcome {
  const costs = records.map(recordCost);
  return {
    shardIndex,
    tasks: countsOf(records, taskStart, taskEnd, executed),
    samples: records.length,
    sandboxRuns: costs.reduce((a, c) => a + c.sandbox_runs, 0),
    calls: costs.reduce((a, c) => a + c.calls, 0),
    promptTokens: costs.reduce((a, c) => a + c.prompt_tokens, 0),
    completionTokens: costs.reduce((a, c) => a + c.completion_tokens, 0),
    requestsUnanswered: costs.reduce((a, c) => a + (c.requests_unanswered ?? 0), 0),
    ...cutOf(records),
    ...batchSums(costs),
  };
}

/** `{ batchPromptTokens, batchCompletionTokens }` when some of the costs' tokens were answered in batches, else nothing. */
export function batchSums(costs: readonly MethodCost[]): { batchPromptTokens?: number; batchCompletionTokens?: number } {
  const prompt = costs.reduce((a, c) => a + (c.batch_prompt_tokens ?? 0), 0);
  const completion = costs.reduce((a, c) => a + (c.batch_completion_tokens ?? 0), 0);
  return prompt > 0 || completion > 0 ? { batchPromptTokens: prompt, batchCompletionTokens: completion } : {};
}

/** `{ cutAtMaxTokens }` when some records' answers were cut at max_tokens, else nothing. */
function cutOf(records: readonly Pick<SampleRecord, 'finish_reason'>[]): { cutAtMaxTokens?: number } {
  const cut = records.filter((r) => r.finish_reason === FINISH_LENGTH).length;
  return cut ? { cutAtMaxTokens: cut } : {};
}

/** Whether stored records can stand for a run's samples: a run that executes redoes those only saved (generation-only). */
export function recordsServe(rows: readonly Pick<SampleRecord, 'status'>[], execute: boolean): boolean {
  return !execute || !rows.some((r) => r.status === 'not_executed');
}

/** What a cell's progress takes from a finished shard: its totals, not its per-task counts. */
export interface ShardTotals {
  shardIndex: number;
  samples: number;
  /** Tasks with an executed sample. */
  tasksDone: number;
  /** Sum over those tasks of c/n. */
  passSum: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  sandboxRuns: number;
  requestsUnanswered: number;
  /** Answers cut at max_tokens; absent: none. */
  cutAtMaxTokens?: number;
  /** Of the tokens, those answered in provider batches; absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
}

/** A shard's totals from its stored records (samples not executed, or scored from their text, pass nothing, as in a cell). */
export function totalsOfRecords(shardIndex: number, records: readonly SampleRecord[]): ShardTotals {
  const byTask = new Map<number, { n: number; c: number }>();
  const cost = { calls: 0, promptTokens: 0, completionTokens: 0, sandboxRuns: 0, requestsUnanswered: 0 };
  const costs: MethodCost[] = [];
  for (const r of records) {
    const c = recordCost(r);
    costs.push(c);
    cost.calls += c.calls;
    cost.promptTokens += c.prompt_tokens;
    cost.completionTokens += c.completion_tokens;
    cost.sandboxRuns += c.sandbox_runs;
    cost.requestsUnanswered += c.requests_unanswered ?? 0;
    // Text-scored samples pass nothing: their tasks stay out of pass@1 so far (shown as "-").
    if (r.status === 'not_executed' || !scoreRuns(r.score)) continue;
    const t = byTask.get(r.task_index) ?? { n: 0, c: 0 };
    t.n++;
    if (r.passed) t.c++;
    byTask.set(r.task_index, t);
  }
  const tasks = [...byTask.values()];
  return {
    shardIndex,
    samples: records.length,
    tasksDone: tasks.length,
    passSum: tasks.reduce((a, t) => a + t.c / t.n, 0),
    ...cost,
    ...cutOf(records),
    ...batchSums(costs),
  };
}

/** A record's whole cost: its final call, plus the task's method work when it carries it. */
export function recordCost(r: SampleRecord): MethodCost {
  const ran = r.status !== 'llm_error' && r.status !== 'not_executed' && r.status !== 'scored' ? 1 : 0;
  return {
    calls: r.calls + (r.method_cost?.calls ?? 0),
    prompt_tokens: r.prompt_tokens + (r.method_cost?.prompt_tokens ?? 0),
    completion_tokens: r.completion_tokens + (r.method_cost?.completion_tokens ?? 0),
    sandbox_runs: ran + (r.method_cost?.sandbox_runs ?? 0),
    requests_unanswered: (r.requests_unanswered ?? 0) + (r.method_cost?.requests_unanswered ?? 0),
    ...(r.batch_id !== undefined || r.method_cost?.batch_prompt_tokens || r.method_cost?.batch_completion_tokens
      ? {
          batch_prompt_tokens: (r.batch_id !== undefined ? r.prompt_tokens : 0) + (r.method_cost?.batch_prompt_tokens ?? 0),
          batch_completion_tokens: (r.batch_id !== undefined ? r.completion_tokens : 0) + (r.method_cost?.batch_completion_tokens ?? 0),
        }
      : {}),
  };
}

/** The `system_fingerprint` of a stored response (OpenAI's chat and completions carry one), or undefined. */
export function systemFingerprintOf(response: unknown): string | undefined {
  if (!response || typeof response !== 'object') return undefined;
  const f = (response as { system_fingerprint?: unknown }).system_fingerprint;
  return typeof f === 'string' && f.length > 0 ? f : undefined;
}
