/** Where a sweep keeps everything in the bucket. Deterministic, so a restarted sweep finds its work. */
import type { SweepMode } from './plan.js';

export const sweepPrefix = (sweepId: string) => `sweeps/${sweepId}/`;
export const sweepConfigKey = (sweepId: string) => `${sweepPrefix(sweepId)}config.json`;
export const sweepResultsKey = (sweepId: string) => `${sweepPrefix(sweepId)}results.json`;
export const sweepDatasetKey = (sweepId: string, dataset: string) => `${sweepPrefix(sweepId)}datasets/${dataset}.jsonl`;
export const sweepInputKey = (sweepId: string, name: string) => `${sweepPrefix(sweepId)}inputs/${name}`;
export const cellPrefix = (sweepId: string, cellId: string) => `${sweepPrefix(sweepId)}cells/${cellId}/`;
export const cellRecordsPrefix = (sweepId: string, cellId: string) => `${cellPrefix(sweepId, cellId)}records/`;
export const cellShardRecordsKey = (sweepId: string, cellId: string, shard: number) =>
  `${cellRecordsPrefix(sweepId, cellId)}shard-${String(shard).padStart(5, '0')}.jsonl`;
/** A shard's records written while its samples run, before its one records file exists. */
export const cellShardPartsPrefix = (sweepId: string, cellId: string, shard: number) =>
  `${cellPrefix(sweepId, cellId)}records-in-progress/shard-${String(shard).padStart(5, '0')}/`;
/** One slice's records (domain/sweep/sharding.ts sampleSlices), until the shard's records file joins them. */
export const cellShardSliceRecordsKey = (sweepId: string, cellId: string, shard: number, slice: number) =>
  `${cellPrefix(sweepId, cellId)}records-slices/shard-${String(shard).padStart(5, '0')}/slice-${String(slice).padStart(5, '0')}.jsonl`;
/** One slice's records written while its samples run, before its slice file exists. */
export const cellShardSlicePartsPrefix = (sweepId: string, cellId: string, shard: number, slice: number) =>
  `${cellPrefix(sweepId, cellId)}records-in-progress/shard-${String(shard).padStart(5, '0')}-slice-${String(slice).padStart(5, '0')}/`;
export const cellFileKey = (
  sweepId: string,
  cellId: string,
  file: 'results.json' | 'generations.json' | 'references.json' | 'samples.jsonl',
) => `${cellPrefix(sweepId, cellId)}${file}`;
/** A finished cell's summary, stored after its files: a restarted sweep keeps the cell as it is. */
export const cellSummaryKey = (sweepId: string, cellId: string) => `${cellPrefix(sweepId, cellId)}summary.json`;

export const sweepWorkflowId = (sweepId: string) => `explora-sweep/${sweepId}`;
export const cellWorkflowId = (sweepId: string, cellId: string) => `explora-sweep/${sweepId}/${cellId}`;
export const cellShardWorkflowId = (sweepId: string, cellId: string, shard: number) => `explora-sweep/${sweepId}/${cellId}/shard-${shard}`;
/** A budgeted sweep's spend ledger (workflows/spendLedger.ts); no cell id is free of dots, so none clashes. */
export const spendLedgerWorkflowId = (sweepId: string) => `explora-sweep/${sweepId}/spend-ledger`;

/** Each model has its own LLM queue, so its concurrency and rate are set by the workers serving it. */
export const llmTaskQueue = (llmQueueBase: string, modelId: string) => `${llmQueueBase}-${modelId}`;
/** Where a multi-step method keeps the artifacts of one task of one cell (plan, recommendations). */
export const cellTaskPrefix = (sweepId: string, cellId: string, taskIndex: number) => `${cellPrefix(sweepId, cellId)}tasks/${taskIndex}/`;
export const cellTraceKey = (sweepId: string, cellId: string, taskIndex: number) =>
  `${cellPrefix(sweepId, cellId)}traces/${taskIndex}.json`;
export const cellTaskWorkflowId = (sweepId: string, cellId: string, taskIndex: number) =>
  `explora-sweep/${sweepId}/${cellId}/task-${taskIndex}`;
/** A sweep's copy of a dataset's library (API docs, planner examples, runtime). */
export const sweepLibraryKey = (sweepId: string, dataset: string) => `${sweepPrefix(sweepId)}datasets/${dataset}.library.json`;

/**
 * What a sweep id stands for besides its config: the mode, and in evaluate-only the generations
 * (by content). A sweep's records are only ever reused by a start of the same run.
 */
export interface SweepRun {
  mode: SweepMode;
  /** evaluate-only: dataset name -> sha256 of its generations file. */
  generations?: Record<string, string>;
}

/**
 * The id a start without --id uses: the config's id, else one from its hash. A generation-only run
 * shares it with the full run (the full run then executes what was saved); an evaluation of loaded
 * generations gets one of its own per set of generations (`-eval-<their hash>`), so that it never
 * reads, or is read as, another's records.
 */
export function defaultSweepId(configId: string | undefined, configHash: string, run: SweepRun, sha256Hex: (s: string) => string): string {
  const base = configId ?? `sweep-${configHash.slice(0, 12)}`;
  if (run.mode !== 'evaluate-only') return base;
  const suffix = `-eval-${sha256Hex(JSON.stringify(Object.entries(run.generations ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))).slice(0, 10)}`;
  return base.slice(0, 80 - suffix.length) + suffix;
}

/**
 * Why a start of `run` may not resume the sweep last started as `stored`; null when it may. A full
 * run and a generation-only run of one config are the same cells (a full run executes what a
 * generation-only one saved); loaded generations are cells of their own, and another set of them
 * is another experiment.
 */
export function sweepRunConflict(sweepId: string, stored: SweepRun, run: SweepRun): string | null {
  const describe = (r: SweepRun) =>
    r.mode === 'evaluate-only'
      ? `evaluate-only on generations ${Object.entries(r.generations ?? {})
          .map(([d, h]) => `${d}=${h.slice(0, 10)}`)
          .join(', ')}`
      : r.mode;
  const loaded = (r: SweepRun) => r.mode === 'evaluate-only';
  if (!loaded(stored) && !loaded(run)) return null;
  if (describe(stored) === describe(run)) return null;
  return `sweep ${sweepId} was started as ${describe(stored)}; this start is ${describe(run)}. Use another --id (or none: each set of loaded generations gets its own)`;
}

/** An object in S3; without a bucket, in the sweep's own. */
export interface S3Ref {
  bucket?: string;
  key: string;
}
