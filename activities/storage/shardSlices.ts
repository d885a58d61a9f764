/**
 * The join of a sliced shard (domain/sweep/sharding.ts sampleSlices): each slice's sandbox activity
 * stored its own records file; this makes them the shard's one records file, the one the cell's
 * files, a restarted sweep and the report read, then deletes the slices. Idempotent: a retry after
 * the shard's file was stored finds it and only tidies up.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { cellShardRecordsKey, cellShardSliceRecordsKey } from '../../domain/sweep/keys.js';
import { recordsServe, shardOutcomeOf, type SampleRecord, type ShardOutcome } from '../../domain/sweep/records.js';
import { holdsSamples, holdsShard, type IndexRange } from '../../domain/sweep/sharding.js';
import { deleteParts, readRecordsFile } from '../../infra/recordParts.js';
import { putObject, type Bucket } from '../../infra/s3.js';

export interface JoinShardSlicesInput {
  sweepId: string;
  cellId: string;
  shardIndex: number;
  taskStart: number;
  taskEnd: number;
  nSamples: number;
  /** The shard's slices, in order: slice i holds samples [start, end) of every task. */
  slices: IndexRange[];
  /** The shard executed its samples (not generation-only). */
  execute: boolean;
}

export function createShardSliceActivities(bucket: Bucket) {
  return {
    async joinShardSlices(input: JoinShardSlicesInput): Promise<ShardOutcome> {
      const tasks = { start: input.taskStart, end: input.taskEnd };
      const shardKey = cellShardRecordsKey(input.sweepId, input.cellId, input.shardIndex);
      const sliceKeys = input.slices.map((_, i) => cellShardSliceRecordsKey(input.sweepId, input.cellId, input.shardIndex, i));
      const stored = await readRecordsFile(bucket, shardKey);
      if (stored && holdsShard(stored, tasks, input.nSamples) && recordsServe(stored, input.execute)) {
        // An attempt that stored the shard's file and died before deleting the slices left them behind.
        await deleteParts(bucket, sliceKeys);
        return shardOutcomeOf(input.shardIndex, stored, input.taskStart, input.taskEnd, input.execute);
      }
      const records: SampleRecord[] = [];
      for (const [i, key] of sliceKeys.entries()) {
        const rows = await readRecordsFile(bucket, key);
        // The shard ran this slice's activity just before: a file missing or not this slice's was
        // removed or changed since, and joining again cannot bring it back.
        if (rows === null)
          throw ApplicationFailure.nonRetryable(`slice ${i} of shard ${input.shardIndex} has no records file ${key}`, 'ShardSliceMissing');
        if (!holdsSamples(rows, tasks, input.slices[i]!) || !recordsServe(rows, input.execute))
          throw ApplicationFailure.nonRetryable(
            `${key} does not hold slice ${i} of shard ${input.shardIndex} (samples ${input.slices[i]!.start}-${input.slices[i]!.end - 1} of tasks ${input.taskStart}-${input.taskEnd - 1}${input.execute ? ', all executed' : ''})`,
            'ShardSliceMissing',
          );
        for (const r of rows) records.push(r);
        Context.current().heartbeat(i);
      }
      // In the order an unsliced shard stores them: by task, then by sample.
      records.sort((a, b) => a.task_index - b.task_index || a.sample_index - b.sample_index);
      await putObject(bucket, shardKey, records.map((r) => JSON.stringify(r) + '\n').join(''), { contentType: 'application/x-ndjson' });
      await deleteParts(bucket, sliceKeys);
      return shardOutcomeOf(input.shardIndex, records, input.taskStart, input.taskEnd, input.execute);
    },
  };
}

export type ShardSliceActivities = ReturnType<typeof createShardSliceActivities>;
