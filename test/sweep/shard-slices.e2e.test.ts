/**
 * A task of more samples than one activity takes (`shard_samples`) is cut into slices
 * (domain/sweep/sharding.ts sampleSlices): its answers are one LLM activity a slice, its runs one
 * sandbox activity a slice, each any worker's work, then joined into the shard's one records file.
 * On the real Temporal, S3 and sandbox, with a scripted model. The shard's scheduling of the slices
 * (each its own activity, 8 at once, none while paused) is test/workflows/shard.test.ts's; that two
 * worker processes both take a model queue's activities, test/sweep/shared-limits.e2e.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxActivities, type ExecuteShardInput } from '../../activities/sandbox/executeShard.js';
import { createShardSliceActivities } from '../../activities/storage/shardSlices.js';
import {
  cellPrefix,
  cellShardRecordsKey,
  cellShardSliceRecordsKey,
  cellShardWorkflowId,
  sweepResultsKey,
} from '../../domain/sweep/keys.js';
import type { SampleRecord, ShardOutcome } from '../../domain/sweep/records.js';
import { sampleSlices } from '../../domain/sweep/sharding.js';
import { getText, listKeys, putObject } from '../../infra/s3.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { connectClient } from '../support/temporal.js';
import { runTs } from '../support/processes.js';
import { rightAnswer, savedShard, wrongAnswer } from './saved-shard.js';
import { expectedCounts, HUMANEVAL, scriptedSweepFixture, SWEEP_SEED } from './support.js';

const { config, env } = testConfig();
const N = 7;
const LIMIT = 2;
const SHARD_SAMPLES = 3;
const { bucket, dir, problems, server } = scriptedSweepFixture(config, 'slices', LIMIT, 0);
const sandboxes = new SandboxPool();
afterAll(() => sandboxes.close());

async function keysUnder(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of listKeys(bucket, prefix)) out.push(k);
  return out;
}

const records = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as SampleRecord);

/** The JSON inputs of a history's scheduled activities of one type. */
function activityInputs(events: unknown[], type: string): unknown[] {
  const out: unknown[] = [];
  for (const e of events as Array<{
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string }; input?: { payloads?: Array<{ data?: Uint8Array }> } };
  }>) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== type) continue;
    out.push(JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString('utf8')));
  }
  return out;
}

describe('a task of more samples than one activity takes', () => {
  it('is answered and run in slices, an activity each, joined into the records an unsliced shard stores', async () => {
    const id = `e2e-slices-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}\ndatasets:\n  - name: humaneval\n    family: humaneval\n    path: ${HUMANEVAL}\n` +
        `models:\n  - id: plain\n    base_url: ${server().url}\n    model: scripted-completions\n    api: completions\n    concurrency: 4\n` +
        `methods: [direct]\ntemperatures: [0.2]\nn_samples: ${N}\nk: [1, 5]\nlimit: ${LIMIT}\nseed: ${SWEEP_SEED}\n` +
        `shard_samples: ${SHARD_SAMPLES}\n`,
    );
    const before = server().received();
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(run.code, run.output).toBe(0);
    // Every sample asked once, whichever slice asked it.
    const after = server().received();
    expect(after.requests - before.requests).toBe(LIMIT * N);
    expect(after.repeats - before.repeats).toBe(0);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells).toHaveLength(1);
    const cellId = (results.cells[0].cell as { cell: string }).cell;
    const perTask = JSON.parse((await getText(bucket, results.cells[0].resultsKey))!).per_task as Array<{
      n: number;
      c: number;
      s: number;
    }>;
    expect(perTask.map((t) => ({ n: t.n, c: t.c, s: t.s }))).toEqual(expectedCounts(problems, N));

    // Both tasks sit in one shard (a shard holds at least floor(200 / n) tasks); its history shows the slices.
    const { client, close } = await connectClient(config);
    let events: unknown[];
    try {
      events = (await client.workflow.getHandle(cellShardWorkflowId(id, cellId, 0)).fetchHistory()).events ?? [];
    } finally {
      await close();
    }
    // Answers: per task, one activity for each of samples 0-2, 3-5 and 6.
    const asked = activityInputs(events, 'generateDirect') as Array<{ taskIndex: number; sampleIndices: number[] }>;
    const answerSlices = sampleSlices(N, 1, SHARD_SAMPLES).map(({ start, end }) =>
      Array.from({ length: end - start }, (_, i) => start + i),
    );
    expect(answerSlices).toHaveLength(3);
    for (let t = 0; t < LIMIT; t++)
      expect(
        asked
          .filter((a) => a.taskIndex === t)
          .map((a) => a.sampleIndices)
          .sort((a, b) => a[0]! - b[0]!),
      ).toEqual(answerSlices);
    // Runs: the shard's 2 x 7 samples in slices of about 3 (samples 0-1, 2-3, 4-5, 6 of both tasks), each with its own answers' keys.
    const ran = activityInputs(events, 'executeShard') as ExecuteShardInput[];
    const runSlices = sampleSlices(N, LIMIT, SHARD_SAMPLES);
    expect(runSlices.length).toBeGreaterThan(1);
    expect(ran.map((r) => r.slice).sort((a, b) => a!.index - b!.index)).toEqual(runSlices.map((s, index) => ({ index, ...s })));
    for (const r of ran) {
      if (r.generations.kind !== 'llm') throw new Error('expected LLM answers');
      expect(r.generations.keys.map((k) => k.length)).toEqual(Array(LIMIT).fill(r.slice!.end - r.slice!.start));
    }
    expect(activityInputs(events, 'joinShardSlices')).toHaveLength(1);

    // The shard's one file, by task then sample, and nothing of the slices left.
    const stored = records((await getText(bucket, cellShardRecordsKey(id, cellId, 0)))!);
    expect(stored.map((r) => [r.task_index, r.sample_index])).toEqual(
      Array.from({ length: LIMIT * N }, (_, i) => [Math.floor(i / N), i % N]),
    );
    expect(await keysUnder(`${cellPrefix(id, cellId)}records-slices/`)).toEqual([]);
    expect(await keysUnder(`${cellPrefix(id, cellId)}records-in-progress/`)).toEqual([]);
    // Each answer sits in a cache segment named by its slice's samples, which a slice's cache check reads alone.
    const sliceOf = (s: number) => answerSlices.find((slice) => slice.includes(s))!;
    for (const r of stored) {
      const segment = r.llm_key!.split('#')[0]!.split('/').at(-1)!;
      const slice = sliceOf(r.sample_index);
      expect(segment, `sample ${r.sample_index}`).toMatch(new RegExp(`^r${slice[0]}-${slice.at(-1)! + 1}_`));
    }
  }, 240_000);
});

// ----------------------------------------------------------------- the activities, one by one

const right = (i: number) => rightAnswer(i);
const wrong = wrongAnswer;
const savedShardOf = (generations: string[][]) => savedShard(bucket, generations);

const execute = (input: ExecuteShardInput) =>
  new MockActivityEnvironment().run(createSandboxActivities(bucket, sandboxes).executeShard, input) as Promise<ShardOutcome>;
const join = (input: Parameters<ReturnType<typeof createShardSliceActivities>['joinShardSlices']>[0]) =>
  new MockActivityEnvironment().run(createShardSliceActivities(bucket).joinShardSlices, input) as Promise<ShardOutcome>;

describe('slices of a shard, activity by activity', () => {
  // Two tasks of five samples; task 1's samples 3 and 4 are wrong.
  const generations = [Array.from({ length: 5 }, () => right(0)), [right(1), right(1), right(1), wrong(1), wrong(1)]];
  const slices = sampleSlices(5, 2, 4);
  const joinInput = (shard: ExecuteShardInput) => ({
    sweepId: shard.sweepId,
    cellId: shard.cellId,
    shardIndex: 0,
    taskStart: 0,
    taskEnd: 2,
    nSamples: 5,
    slices,
    execute: true,
  });

  it('each slice runs its samples only, into its own file; the join makes the shard file, and again after a retry', async () => {
    const shard = await savedShardOf(generations);
    expect(slices).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
      { start: 4, end: 5 },
    ]);
    const outcomes = await Promise.all(slices.map((s, index) => execute({ ...shard, slice: { index, ...s } })));
    // A slice's outcome counts its samples only.
    expect(outcomes.map((o) => o.tasks.map((t) => [t.n, t.c]))).toEqual([
      [
        [2, 2],
        [2, 2],
      ],
      [
        [2, 2],
        [2, 1],
      ],
      [
        [1, 1],
        [1, 0],
      ],
    ]);
    const slice1 = records((await getText(bucket, cellShardSliceRecordsKey(shard.sweepId, shard.cellId, 0, 1)))!);
    expect(slice1.map((r) => [r.task_index, r.sample_index]).sort()).toEqual([
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
    ]);
    expect(await getText(bucket, cellShardRecordsKey(shard.sweepId, shard.cellId, 0))).toBeNull();

    const joined = await join(joinInput(shard));
    expect(joined.tasks.map((t) => [t.n, t.c, t.s])).toEqual([
      [5, 5, 5],
      [5, 3, 5],
    ]);
    expect(joined.samples).toBe(10);
    const shardText = (await getText(bucket, cellShardRecordsKey(shard.sweepId, shard.cellId, 0)))!;
    expect(records(shardText).map((r) => [r.task_index, r.sample_index])).toEqual(
      Array.from({ length: 10 }, (_, i) => [Math.floor(i / 5), i % 5]),
    );
    expect(await keysUnder(`${cellPrefix(shard.sweepId, shard.cellId)}records-slices/`)).toEqual([]);

    // A retried join (its first attempt stored the file, then died): the same outcome, the file as it was.
    expect(await join(joinInput(shard))).toEqual(joined);
    expect(await getText(bucket, cellShardRecordsKey(shard.sweepId, shard.cellId, 0))).toBe(shardText);
    // A slice run again after the join (a restarted shard) takes its records from the shard's file: nothing runs.
    const again = await execute({ ...shard, slice: { index: 2, ...slices[2]! } });
    expect(again.tasks.map((t) => [t.n, t.c])).toEqual([
      [1, 1],
      [1, 0],
    ]);
    expect(again.sandboxRuns).toBe(2);
    expect(await keysUnder(`${cellPrefix(shard.sweepId, shard.cellId)}records-slices/`)).toEqual([]);
  }, 60_000);

  it('a join whose slice file is missing, or holds another slice, fails for good, naming the file', async () => {
    const shard = await savedShardOf(generations);
    await execute({ ...shard, slice: { index: 0, ...slices[0]! } });
    await execute({ ...shard, slice: { index: 2, ...slices[2]! } });
    const missing = cellShardSliceRecordsKey(shard.sweepId, shard.cellId, 0, 1);
    await expect(join(joinInput(shard))).rejects.toThrow(`slice 1 of shard 0 has no records file ${missing}`);
    // Slice 0's records stored where slice 1's belong.
    await putObject(bucket, missing, (await getText(bucket, cellShardSliceRecordsKey(shard.sweepId, shard.cellId, 0, 0)))!);
    await expect(join(joinInput(shard))).rejects.toThrow(
      `${missing} does not hold slice 1 of shard 0 (samples 2-3 of tasks 0-1, all executed)`,
    );
    // Nothing was stored as the shard's records.
    expect(await getText(bucket, cellShardRecordsKey(shard.sweepId, shard.cellId, 0))).toBeNull();
  }, 60_000);
});
