/**
 * The sandbox-queue activity of a sweep: executeShard extracts, assembles, runs and records every
 * sample of a shard's tasks. Records land in S3 as they finish, so a retry runs only what is missing.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { type SweepProblem } from '../../domain/datasets/problems.js';
import { DatasetProblemError } from '../../domain/families/datasetProblem.js';
import type { LlmApi } from '../../domain/llm/request.js';
import { cellShardPartsPrefix, cellShardRecordsKey, cellShardSlicePartsPrefix, cellShardSliceRecordsKey } from '../../domain/sweep/keys.js';
import { recordsServe, shardOutcomeOf, systemFingerprintOf, type SampleRecord, type ShardOutcome } from '../../domain/sweep/records.js';
import type { MethodCost } from '../../domain/methods/artifacts.js';
import { loadDatasetLibrary } from '../../infra/library.js';
import { LlmRecordReader } from '../../infra/llm/cache.js';
import { throttledHeartbeat } from '../../infra/heartbeat.js';
import { decodeMaybeGzip, loadProblems } from '../../infra/problems.js';
import { defaultSandboxConcurrency } from '../../infra/sandbox/pythonExecutor.js';
import type { ProgramRunner, SandboxPool } from '../../infra/sandbox/pool.js';
import { ToolchainMissingError } from '../../infra/sandbox/process/processExecutor.js';
import { ToolchainNotRegisteredError } from '../../infra/sandbox/toolchainRegistry.js';
import { UnknownRunnerError } from '../../domain/languages/runner.js';
import type { LibraryRuntime } from '../../domain/apidocs/library.js';
import { mapLimit } from '../../infra/mapLimit.js';
import { deleteLeftoverParts, deleteParts, PartWriter, partRecordFor, readParts, readRecordsFile } from '../../infra/recordParts.js';
import { getBytes, putObject, type Bucket } from '../../infra/s3.js';
import { ReferenceOutputsError } from '../../infra/referenceOutputs.js';
import { s3ReferenceOutputs } from '../../infra/referenceOutputsS3.js';
import { answerCode } from '../../domain/sweep/textScores.js';
import { answerSanitizer, type Sanitizer } from '../../domain/llm/sanitizer.js';
import { loadPythonParser } from '../../infra/pythonParser.js';
import { generationFields } from '../../domain/scoring/sampleRecord.js';
import { SampleScorer } from '../../infra/scoring/sampleScorer.js';
import type { LanguageId } from '../../domain/languages/registry.js';
import { holdsSamples, type IndexRange } from '../../domain/sweep/sharding.js';

export interface ExecuteShardInput {
  sweepId: string;
  cellId: string;
  shardIndex: number;
  datasetKey: string;
  taskStart: number;
  taskEnd: number;
  nSamples: number;
  timeoutS: number;
  /** The dataset's library: programs run through its runtime (a private module, renamed names). */
  libraryKey?: string;
  /**
   * How the samples' code is obtained: the LLM cache (keys per task, per sample; multi-step
   * methods add per task their cost and trace) or saved generations.
   */
  generations:
    | {
        kind: 'llm';
        api: LlmApi;
        stop?: string[];
        /** The model's sanitizer of chat answers; absent: the fenced-block extraction. */
        sanitize?: Sanitizer;
        keys: string[][];
        methodTasks?: Array<{ cost: MethodCost; traceKey: string } | null>;
      }
    | { kind: 'saved'; key: string };
  /** generation-only: record the samples without running them. */
  execute: boolean;
  /**
   * One slice of the shard's samples (domain/sweep/sharding.ts sampleSlices): only samples
   * [start, end) of each task, stored as the slice's own records file for the shard to join; LLM keys
   * are then the slice's (keys[task][sample - start]). Absent: every sample, into the shard's file.
   */
  slice?: { index: number } & IndexRange;
}

/** Where an activity's records go and which samples they are: the shard's, or one slice's of it. */
function scopeOf(input: ExecuteShardInput) {
  const tasks = { start: input.taskStart, end: input.taskEnd };
  if (!input.slice)
    return {
      tasks,
      samples: { start: 0, end: input.nSamples },
      recordsKey: cellShardRecordsKey(input.sweepId, input.cellId, input.shardIndex),
      partsPrefix: cellShardPartsPrefix(input.sweepId, input.cellId, input.shardIndex),
    };
  const { index, start, end } = input.slice;
  return {
    tasks,
    samples: { start, end },
    recordsKey: cellShardSliceRecordsKey(input.sweepId, input.cellId, input.shardIndex, index),
    partsPrefix: cellShardSlicePartsPrefix(input.sweepId, input.cellId, input.shardIndex, index),
  };
}

const SavedGenerationsSchema = z.array(z.array(z.string()));

const savedCache = new Map<string, Promise<string[][]>>();
function loadSaved(bucket: Bucket, key: string): Promise<string[][]> {
  let p = savedCache.get(key);
  if (!p) {
    p = (async () => {
      const bytes = await getBytes(bucket, key);
      if (bytes === null) throw new Error(`saved generations ${key} are missing`);
      return SavedGenerationsSchema.parse(JSON.parse(decodeMaybeGzip(bytes)));
    })();
    p.catch(() => savedCache.delete(key));
    savedCache.set(key, p);
  }
  return p;
}

function methodFields(task: { cost: MethodCost; traceKey: string } | null | undefined, sampleIndex: number) {
  if (!task) return {};
  return { trace_key: task.traceKey, ...(sampleIndex === 0 ? { method_cost: task.cost } : {}) };
}

export function createSandboxActivities(bucket: Bucket, sandboxes: SandboxPool) {
  async function codeFor(
    input: ExecuteShardInput,
    records: LlmRecordReader,
    problem: SweepProblem,
    taskIndex: number,
    sampleIndex: number,
  ) {
    if (input.generations.kind === 'saved') {
      const saved = await loadSaved(bucket, input.generations.key);
      const raw = saved[taskIndex]?.[sampleIndex];
      if (raw === undefined)
        throw ApplicationFailure.nonRetryable(
          `loaded generations have no sample ${sampleIndex} for task ${problem.task_id} (index ${taskIndex})`,
          'InvalidGenerations',
        );
      return { raw, code: raw, api: 'saved' as const, llm: undefined };
    }
    const key = input.generations.keys[taskIndex - input.taskStart]?.[sampleIndex - (input.slice?.start ?? 0)];
    if (!key) throw new Error(`no LLM key for task ${taskIndex} sample ${sampleIndex}`);
    const llm = await records.read(key);
    if (llm === null) throw new Error(`LLM record ${key} is missing`);
    const sanitizer = input.generations.sanitize;
    const sanitize = sanitizer ? answerSanitizer(sanitizer, await loadPythonParser()) : undefined;
    const code = answerCode(problem, input.generations.api, llm.text, input.generations.stop ?? [], sanitize);
    return {
      raw: llm.text,
      code,
      api: input.generations.api,
      ending: { raw: llm.text, finishReason: llm.finishReason },
      llm: { ...llm, key },
    };
  }

  /** The runner of a language (SandboxPool.forLanguage); a missing toolchain fails the activity for good, naming it. */
  async function runnerFor(
    language: LanguageId,
    runtime: LibraryRuntime | undefined,
    readableDirs: readonly string[],
  ): Promise<ProgramRunner> {
    try {
      return await sandboxes.forLanguage(language, runtime, readableDirs);
    } catch (error) {
      if (error instanceof ToolchainMissingError) throw ApplicationFailure.nonRetryable(error.message, 'ToolchainMissing');
      // A language no runner can take (only possible past the types): a retry would fail alike.
      if (error instanceof ToolchainNotRegisteredError || error instanceof UnknownRunnerError)
        throw ApplicationFailure.nonRetryable(error.message, 'NoRunner');
      throw error;
    }
  }

  /**
   * Records an earlier attempt stored for exactly this activity's samples, when this run may keep
   * them: those of a generation-only run are redone when the same sweep later executes, and so are
   * those of another sharding (an earlier run of the cell grouped its tasks otherwise). A slice
   * whose shard has joined its slices already takes its records from the shard's file.
   */
  async function keptRecords(input: ExecuteShardInput, scope: ReturnType<typeof scopeOf>): Promise<SampleRecord[] | null> {
    const own = await readRecordsFile(bucket, scope.recordsKey);
    if (own && holdsSamples(own, scope.tasks, scope.samples) && recordsServe(own, input.execute)) return own;
    if (!input.slice) return null;
    const joined = await readRecordsFile(bucket, cellShardRecordsKey(input.sweepId, input.cellId, input.shardIndex));
    if (!joined || !holdsSamples(joined, scope.tasks, { start: 0, end: input.nSamples }) || !recordsServe(joined, input.execute))
      return null;
    return joined.filter((r) => r.sample_index >= scope.samples.start && r.sample_index < scope.samples.end);
  }

  return {
    /** Runs (or, generation-only, records) every sample of tasks [taskStart, taskEnd) of one cell, or of one slice of them. */
    async executeShard(input: ExecuteShardInput): Promise<ShardOutcome> {
      const scope = scopeOf(input);
      const { recordsKey, partsPrefix } = scope;
      const kept = await keptRecords(input, scope);
      if (kept) {
        // An attempt that stored the file and died before deleting its parts left them behind.
        await deleteLeftoverParts(bucket, partsPrefix);
        return shardOutcomeOf(input.shardIndex, kept, input.taskStart, input.taskEnd, input.execute);
      }
      const problems = await loadProblems(bucket, input.datasetKey);
      const runtime = input.libraryKey ? (await loadDatasetLibrary(bucket, input.libraryKey)).library.runtime : undefined;
      // Generation-only runs execute nothing: no sandbox to start for them. Otherwise the runner of
      // each language the shard's tasks are written in (Python's sandbox, or a process runner).
      // Tasks scored from their text run nothing either: a shard of only those starts no runner.
      const scorer = new SampleScorer({
        problems: problems.slice(input.taskStart, input.taskEnd),
        runnerFor,
        // What families that check against their dataset's solution compare with (cached in the bucket).
        references: s3ReferenceOutputs(bucket),
        ...(runtime ? { runtime } : {}),
        timeoutMs: Math.round(input.timeoutS * 1000),
        execute: input.execute,
      });
      const runners = await scorer.start();
      const methodTasks = input.generations.kind === 'llm' ? input.generations.methodTasks : undefined;
      const jobs: Array<{ taskIndex: number; sampleIndex: number }> = [];
      for (let t = input.taskStart; t < input.taskEnd; t++)
        for (let s = scope.samples.start; s < scope.samples.end; s++) jobs.push({ taskIndex: t, sampleIndex: s });
      let done = 0;
      // A task's answers sit together in a few segment objects: each is read once for the shard.
      const llmRecords = new LlmRecordReader(bucket);
      const heartbeat = throttledHeartbeat();
      // Records of an earlier attempt, stored as its samples finished: not run again (unless they
      // were only saved, and this run executes).
      const earlier = await readParts(bucket, partsPrefix);
      const parts = new PartWriter(bucket, partsPrefix);
      // A run may outlast the sweep's timeout that the heartbeat timeout is sized from (evalplus's
      // limits come from its reference's times; a reference run comes first): beat while anything runs
      // (and a compiled language's compile step, up to a minute, comes before each run).
      const keepAlive = setInterval(() => heartbeat(done), 5000);
      // As many samples in flight as the busiest runner can use (batching runners: a batch per slot).
      const inFlight = Math.max(defaultSandboxConcurrency() * 2, ...runners.map((r) => r.inFlightCapacity ?? r.concurrency * 2));
      const records = await mapLimit(jobs, inFlight, async ({ taskIndex, sampleIndex }): Promise<SampleRecord> => {
        const kept = partRecordFor(earlier.records, taskIndex, sampleIndex);
        // Kept only if made from the answer this run would use (the cache may prefer another since).
        const answerKey =
          input.generations.kind === 'llm'
            ? input.generations.keys[taskIndex - input.taskStart]?.[sampleIndex - scope.samples.start]
            : undefined;
        if (kept && kept.llm_key === answerKey && recordsServe([kept], input.execute)) {
          heartbeat(++done);
          return kept;
        }
        const record = await sampleRecord(taskIndex, sampleIndex);
        parts.add(record);
        return record;
      }).finally(() => {
        clearInterval(keepAlive);
        return parts.close();
      });
      await putObject(bucket, recordsKey, records.map((r) => JSON.stringify(r) + '\n').join(''), { contentType: 'application/x-ndjson' });
      await deleteParts(bucket, [...earlier.keys, ...parts.written]);
      return shardOutcomeOf(input.shardIndex, records, input.taskStart, input.taskEnd, input.execute);

      async function sampleRecord(taskIndex: number, sampleIndex: number): Promise<SampleRecord> {
        const problem = problems[taskIndex]!;
        const g = await codeFor(input, llmRecords, problem, taskIndex, sampleIndex);
        const base = {
          ...generationFields(problem, taskIndex, sampleIndex, g),
          prompt_tokens: g.llm?.promptTokens ?? 0,
          completion_tokens: g.llm?.completionTokens ?? 0,
          calls: g.llm?.calls ?? 0,
          ...(g.llm?.requestsUnanswered ? { requests_unanswered: g.llm.requestsUnanswered } : {}),
          ...(g.llm ? { llm_key: g.llm.key } : {}),
          ...(g.llm?.batchId !== undefined ? { batch_id: g.llm.batchId } : {}),
          ...(g.llm?.finishReason ? { finish_reason: g.llm.finishReason } : {}),
          ...fingerprintField(g.llm?.response),
          ...methodFields(methodTasks?.[taskIndex - input.taskStart], sampleIndex),
        };
        let scored;
        try {
          scored = await scorer.score(
            problem,
            base,
            `${input.cellId}/${taskIndex}/${sampleIndex}`,
            g.llm?.status === 'error' ? (g.llm.error?.message ?? 'error') : undefined,
          );
        } catch (error) {
          // Without the reference's outputs no sample of the task can be checked: a dataset problem, not a transient one.
          if (error instanceof ReferenceOutputsError) throw ApplicationFailure.nonRetryable(error.message, 'ReferenceOutputsFailed');
          // A task the dataset gets wrong (its gold query fails): no sample of it can be scored, whichever worker tries.
          if (error instanceof DatasetProblemError) throw ApplicationFailure.nonRetryable(error.message, 'DatasetProblem');
          throw error;
        }
        if (scored.run || scored.record.status === 'scored') heartbeat(++done);
        return scored.record;
      }
    },
  };
}

/** The record's `system_fingerprint` field, when the answer's response has one. */
function fingerprintField(response: unknown): Pick<SampleRecord, 'system_fingerprint'> {
  const fingerprint = systemFingerprintOf(response);
  return fingerprint ? { system_fingerprint: fingerprint } : {};
}
