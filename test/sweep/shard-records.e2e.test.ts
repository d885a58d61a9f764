/**
 * A shard's sample records land in S3 as they finish (in parts, every couple of seconds), and a
 * shard run again after a crash keeps what its parts hold instead of running it again; once the
 * shard's records file is stored, the parts are gone. On the real S3 store and sandbox.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/poll.js';
import { PART_INTERVAL_MS } from '../../infra/recordParts.js';
import { defaultSandboxConcurrency } from '../../infra/sandbox/pythonExecutor.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { getText, listKeys, putObject } from '../../infra/s3.js';
import { createSandboxActivities, type ExecuteShardInput } from '../../activities/sandbox/executeShard.js';
import { cellShardPartsPrefix, cellShardRecordsKey } from '../../domain/sweep/keys.js';
import type { SampleRecord, ShardOutcome } from '../../domain/sweep/records.js';
import { testConfig } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { rightAnswer, savedShard, wrongAnswer } from './saved-shard.js';

const { config } = testConfig();
const bucket = testBucket(config);
const sandboxes = new SandboxPool();
afterAll(async () => {
  await sandboxes.close();
  bucket.s3.destroy();
});

const right = rightAnswer;
const wrong = wrongAnswer;
const shard = (generations: string[][], tasks: number) => savedShard(bucket, generations, tasks);

async function keysUnder(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of listKeys(bucket, prefix)) out.push(k);
  return out;
}

const run = (input: ExecuteShardInput) =>
  new MockActivityEnvironment().run(createSandboxActivities(bucket, sandboxes).executeShard, input) as Promise<ShardOutcome>;

describe("a shard's records as they finish", () => {
  it('are in S3 in parts while the shard runs, and the parts are gone once its records file is stored', async () => {
    // Samples of ~1 s each, three rounds of the sandbox's slots: ~3 s in all, whatever the machine.
    const perTask = defaultSandboxConcurrency();
    const input = await shard(
      Array.from({ length: 3 }, (_, i) => Array.from({ length: perTask }, () => right(i, 1))),
      3,
    );
    const prefix = cellShardPartsPrefix(input.sweepId, input.cellId, 0);
    let running = true;
    const outcome = run(input).finally(() => (running = false));
    // What the parts held while the shard was still running.
    const early: SampleRecord[] = [];
    const read = new Set<string>();
    while (running) {
      for (const key of await keysUnder(prefix)) {
        if (read.has(key)) continue;
        const text = await getText(bucket, key);
        if (text === null || !running) continue;
        read.add(key);
        early.push(
          ...text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as SampleRecord),
        );
      }
      await sleep(100);
    }
    const result = await outcome;
    expect(result.tasks.map((t) => [t.n, t.c])).toEqual([0, 1, 2].map(() => [perTask, perTask]));
    expect(early.length).toBeGreaterThan(0);
    expect(early.length).toBeLessThan(3 * perTask);
    expect(early.every((r) => r.status === 'passed')).toBe(true);
    expect(await keysUnder(prefix)).toEqual([]);
    expect((await getText(bucket, cellShardRecordsKey(input.sweepId, input.cellId, 0)))!.trim().split('\n')).toHaveLength(3 * perTask);
    expect(PART_INTERVAL_MS).toBeLessThan(4_000);
  });

  it('run again after a crash, a shard keeps the records its parts hold and runs only the others', async () => {
    // Task 1's sample 1 is wrong; a part from the crashed attempt says it passed: kept, not run again.
    const input = await shard(
      [
        [right(0), right(0)],
        [right(1), wrong(1)],
      ],
      2,
    );
    const prefix = cellShardPartsPrefix(input.sweepId, input.cellId, 0);
    const kept: SampleRecord = {
      task_id: 'T/1',
      task_index: 1,
      sample_index: 1,
      raw: 'from the crashed attempt',
      code: 'x',
      solution: 'x',
      status: 'passed',
      passed: true,
      success: true,
      duration_ms: 12345,
      prompt_tokens: 0,
      completion_tokens: 0,
      calls: 0,
    };
    await putObject(bucket, `${prefix}part-crashed-00000.jsonl`, JSON.stringify(kept) + '\n');
    const result = await run(input);
    expect(result.tasks.map((t) => [t.n, t.c])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    const records = (await getText(bucket, cellShardRecordsKey(input.sweepId, input.cellId, 0)))!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SampleRecord);
    expect(records.find((r) => r.task_index === 1 && r.sample_index === 1)).toEqual(kept);
    expect(records.filter((r) => r.raw !== 'from the crashed attempt').every((r) => r.status === 'passed' && r.duration_ms < 12345)).toBe(
      true,
    );
    expect(await keysUnder(prefix)).toEqual([]);
  });

  it('parts left by an attempt that stored the records file and died before deleting them go when the shard is asked again', async () => {
    const input = await shard([[right(0)]], 1);
    const prefix = cellShardPartsPrefix(input.sweepId, input.cellId, 0);
    const first = await run(input);
    // The crash: the file is stored, a part is still there.
    const leftover = `${prefix}part-crashed-00000.jsonl`;
    await putObject(bucket, leftover, (await getText(bucket, cellShardRecordsKey(input.sweepId, input.cellId, 0)))!);
    expect(await keysUnder(prefix)).toEqual([leftover]);
    const again = await run(input);
    expect(again).toEqual(first);
    expect(await keysUnder(prefix)).toEqual([]);
  });
});
