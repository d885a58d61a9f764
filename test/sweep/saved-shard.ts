/**
 * A shard of loaded generations for the sandbox activity's tests: tiny tasks (f_i(x) must return x)
 * in the bucket, the generations beside them, and the activity's input over them.
 */
import type { ExecuteShardInput } from '../../activities/sandbox/executeShard.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { putObject, type Bucket } from '../../infra/s3.js';
import { uniqueSuffix } from '../support/config.js';

/** Task i: `f<i>(x)`, checked by `f<i>(i) == i`. */
export const tinyProblem = (i: number): SweepProblem =>
  ({
    family: 'humaneval',
    task_id: `T/${i}`,
    prompt: `def f${i}(x):\n`,
    entry_point: `f${i}`,
    test: `def check(f):\n    assert f(${i}) == ${i}\n`,
    form: 'full',
  }) as SweepProblem;
/** A passing answer to task i, taking `sleepS` seconds. */
export const rightAnswer = (i: number, sleepS = 0) => `def f${i}(x):\n    import time\n    time.sleep(${sleepS})\n    return x\n`;
export const wrongAnswer = (i: number) => `def f${i}(x):\n    return -1\n`;

/** Shard 0 of a new sweep over tasks [0, tasks), its samples' code `generations[task][sample]`. */
export async function savedShard(bucket: Bucket, generations: string[][], tasks = generations.length): Promise<ExecuteShardInput> {
  const sweepId = `saved-${uniqueSuffix()}`;
  const datasetKey = `sweeps/${sweepId}/datasets/ds.jsonl`;
  await putObject(bucket, datasetKey, Array.from({ length: tasks }, (_, i) => JSON.stringify(tinyProblem(i)) + '\n').join(''));
  const savedKey = `sweeps/${sweepId}/inputs/generations.json`;
  await putObject(bucket, savedKey, JSON.stringify(generations));
  return {
    sweepId,
    cellId: 'ds.loaded',
    shardIndex: 0,
    datasetKey,
    taskStart: 0,
    taskEnd: tasks,
    nSamples: generations[0]!.length,
    timeoutS: 10,
    generations: { kind: 'saved', key: savedKey },
    execute: true,
  };
}
