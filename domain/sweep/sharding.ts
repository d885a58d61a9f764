/**
 * How many of a cell's tasks one shard workflow holds. A shard's fixed cost (its child workflow,
 * its sandbox activity, its records file, the cell reading them back) is paid per shard whatever its
 * size, so shards of a sample or a few tasks each spend more on orchestration than on samples: at
 * n = 122, one task a shard cost the Temporal server 1.0 ms of CPU per sample, sixteen tasks a shard
 * 0.3 ms, and the sweep ran 29% faster (docs/benchmarks.md#sweep-overhead). Larger shards must not
 * cost parallelism either: a shard generates at most its task window at once, and a cell runs at
 * most `maxParallelShards` shards, so a shard grows only while the cell keeps that many shards.
 */

import type { SweepMode } from './plan.js';

/** Samples a shard holds by default, where the rules below let it (start-sweep puts it in the sweep's input). */
export const DEFAULT_SHARD_SAMPLES = 2000;

/** The samples of sweeps whose input has no `shardSamples` (started before it existed): their cells keep this sharding. */
export const LEGACY_SHARD_SAMPLES = 200;

/** Each task adds an activity or a child workflow (~4-6 events) to its shard's history, which must stay far below Temporal's limits. */
export const MAX_TASKS_PER_SHARD = 200;

/**
 * The most samples of one task a sweep may ask a model for. A task's samples are one shard's (in
 * slices of activities, sampleSlices), and their answer keys (a key and a cost per sample, ~254
 * bytes each) are held by that shard's workflow and handed on. Over EXPLORA_TEMPORAL_OFFLOAD_BYTES that payload is kept in S3
 * (infra/temporal/payloadStorage.ts), so Temporal's 2 MiB per payload no longer bounds it (before,
 * n = 9,000 was sent and paid, then its 2,287,995-byte result was refused at each attempt); what
 * bounds it now is memory: ~25 MB of keys at this limit, in the workflow and in the activity.
 * Loaded generations (evaluate-only) travel as one S3 key, whatever their count.
 */
export const MAX_GENERATED_SAMPLES_PER_TASK = 100_000;

/** Why n_samples cannot be generated in this mode, or null when it can. */
export function generatedSamplesProblem(nSamples: number, mode: SweepMode): string | null {
  if (mode === 'evaluate-only' || nSamples <= MAX_GENERATED_SAMPLES_PER_TASK) return null;
  return (
    `n_samples: ${nSamples} is over the ${MAX_GENERATED_SAMPLES_PER_TASK} samples of one task a sweep can ask a model for ` +
    "(one task's samples are one shard's, and its answer keys are held in that workflow's memory); " +
    'run several sweeps with other seeds, or generate elsewhere and use --evaluate-only'
  );
}

export interface ShardingInput {
  tasks: number;
  nSamples: number;
  /** The sweep input's `shardSamples`; absent: LEGACY_SHARD_SAMPLES, the sharding such a sweep started with. */
  shardSamples: number | undefined;
  maxParallelShards: number;
}

/**
 * Tasks per shard: never fewer than the legacy rule gave (⌊200 / n⌋, at least one), so a small
 * sweep is sharded as before; otherwise up to ⌊shardSamples / n⌋ tasks, as long as the cell still
 * has `maxParallelShards` shards to run side by side, and never over MAX_TASKS_PER_SHARD.
 */
export function tasksPerShard(input: ShardingInput): number {
  const legacy = Math.max(1, Math.floor(LEGACY_SHARD_SAMPLES / input.nSamples));
  if (input.shardSamples === undefined) return legacy;
  const bySamples = Math.max(1, Math.floor(input.shardSamples / input.nSamples));
  const keepingParallelism = Math.max(1, Math.ceil(input.tasks / input.maxParallelShards));
  const grown = Math.min(MAX_TASKS_PER_SHARD, bySamples, Math.max(legacy, keepingParallelism));
  return Math.max(legacy, grown);
}

/** Tasks of a shard that generate at once, unless its cell gives it a wider window (below). */
export const TASK_WINDOW = 8;

/**
 * The task slots a cell's generating shards share (issue 45): each of its `maxParallelShards` shards
 * is worth `base` = max(TASK_WINDOW, ⌈concurrency / maxParallelShards⌉) tasks, so the model's
 * concurrency can be reached (each task's requests go one after another), and the cell's tasks in
 * flight, which bound a pause's and a budget's overshoot, are at most `pool` = maxParallelShards x base.
 */
export function cellTaskSlots(concurrency: number | undefined, maxParallelShards: number): { base: number; pool: number } {
  const base = Math.max(TASK_WINDOW, Math.ceil((concurrency ?? 1) / maxParallelShards));
  return { base, pool: base * maxParallelShards };
}

/**
 * The task window of the next shard a cell starts, or 0 when it must wait: `free` slots of the pool
 * are left by the shards generating now. A shard takes as many as it has tasks, up to the larger of
 * `base` and the model's concurrency (more cannot be answered at once), so that the last shards of a
 * cell, generating with few others, keep the endpoint busy; it waits while fewer than `base` (or its
 * tasks) are free.
 */
export function nextShardWindow(shardTasks: number, free: number, slots: { base: number }, concurrency: number | undefined): number {
  if (free < Math.min(slots.base, shardTasks)) return 0;
  return Math.min(shardTasks, free, Math.max(slots.base, concurrency ?? 1));
}

/**
 * Requests one task's LLM activity sends at once, in a shard of `taskWindow` tasks: enough that the
 * window alone can fill the model's concurrency (a cell's last shards generate with few others), and
 * one where the window does. The worker's gate (infra/llm/modelGate.ts) holds the requests in flight
 * to the model's concurrency whatever the lanes, the oldest shard's requests first.
 */
export function taskRequestLanes(concurrency: number | undefined, taskWindow: number): number {
  return Math.max(1, Math.ceil((concurrency ?? 1) / taskWindow));
}

/** The tasks shard `shardIndex` holds, [start, end). */
export function shardTaskRange(shardIndex: number, perShard: number, tasks: number): IndexRange {
  const start = shardIndex * perShard;
  return { start, end: Math.min(tasks, start + perShard) };
}

/** A half-open range [start, end) of task or sample indices. */
export interface IndexRange {
  start: number;
  end: number;
}

/**
 * The sample ranges of a shard that are each one activity's work, for shards of `tasks` tasks of
 * `nSamples` each. A task of more samples than one activity should hold (a task of 100,000 samples
 * was one LLM activity and one sandbox activity: on one worker, under one activity's 2-hour limit, at
 * that worker's share of its model's concurrency) is cut into as few even slices as hold about
 * `samplesPerActivity` samples of the shard each, each its own activity, which any worker of the
 * queue may take. Absent
 * (shards of sweeps started before slices) or when everything fits: one range, [0, n).
 */
export function sampleSlices(nSamples: number, tasks: number, samplesPerActivity: number | undefined): IndexRange[] {
  if (samplesPerActivity === undefined || tasks * nSamples <= samplesPerActivity) return [{ start: 0, end: nSamples }];
  // Evened out: 2,001 samples are two slices of 1,001 and 1,000, not 2,000 and 1.
  const count = Math.min(nSamples, Math.ceil((tasks * nSamples) / samplesPerActivity));
  const width = Math.ceil(nSamples / count);
  const slices: IndexRange[] = [];
  for (let start = 0; start < nSamples; start += width) slices.push({ start, end: Math.min(nSamples, start + width) });
  return slices;
}

/** Whether a shard's stored records are exactly one per (task, sample) of its range: tasks [start, end) x samples [0, n). */
export function holdsShard(rows: readonly { task_index: number; sample_index: number }[], range: IndexRange, nSamples: number): boolean {
  return holdsSamples(rows, range, { start: 0, end: nSamples });
}

/** Whether records are exactly one per (task, sample) of tasks [start, end) x the sample range. */
export function holdsSamples(
  rows: readonly { task_index: number; sample_index: number }[],
  tasks: IndexRange,
  samples: IndexRange,
): boolean {
  const width = samples.end - samples.start;
  if (rows.length !== (tasks.end - tasks.start) * width) return false;
  const seen = new Set<number>();
  for (const r of rows) {
    if (r.task_index < tasks.start || r.task_index >= tasks.end || r.sample_index < samples.start || r.sample_index >= samples.end)
      return false;
    seen.add((r.task_index - tasks.start) * width + (r.sample_index - samples.start));
  }
  return seen.size === rows.length;
}
