import { afterAll, expect, it } from 'vitest';
import { sha256Hex } from '../../infra/s3.js';
import { datasetWorkflowId } from '../../domain/datasets/layout.js';
import { generateLines } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { generateDatasetWorkflow } from '../../workflows/generateDataset.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { killHard, spawnTs } from '../support/processes.js';
import { waitUntil } from '../support/poll.js';
import { lastModifiedUnder, readDatasetParts, testBucket } from '../support/s3.js';
import { connectClient } from '../support/temporal.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
afterAll(() => bucket.s3.destroy());

it('a worker killed with SIGKILL mid-dataset is replaced; the dataset completes byte-identical and finished shards are not redone', async () => {
  const name = `resume-${uniqueSuffix()}`;
  // 40 shards of 750 rows: many more than are done when the worker is killed, each quick to make.
  const params = resolvePbeParams({ count: 30_000, seed: 11, alphabet_size: 4, l_min: 4, l_max: 10, pipeline_L_min: 2, pipeline_L_max: 5 });
  const shards = 40;
  const { client, close } = await connectClient(config);
  const first = spawnTs('workers/main.ts', ['--storage-concurrency', '1'], env);
  try {
    const handle = await client.workflow.start(generateDatasetWorkflow, {
      taskQueue: config.taskQueues.workflows,
      workflowId: datasetWorkflowId(name),
      // The killed worker's shard is retried elsewhere once its heartbeat is 10 s late (not 20 s).
      args: [{ name, params, shardSize: 750, storageTaskQueue: config.taskQueues.storage, concurrency: 2, heartbeatTimeoutS: 10 }],
    });
    const prefix = `datasets/${name}/part-`;
    const finishedBeforeKill = await waitUntil(
      async () => {
        const m = await lastModifiedUnder(bucket, prefix);
        return m.size >= 5 && m;
      },
      { what: '5 finished shards', timeoutMs: 120_000, intervalMs: 200 },
    );
    await killHard(first);
    const afterKill = await lastModifiedUnder(bucket, prefix);
    expect(afterKill.size).toBeLessThan(shards); // really interrupted mid-way

    const second = spawnTs('workers/main.ts', [], env);
    try {
      const summary = await handle.result();
      expect(summary.rows).toBe(30_000);
      expect(summary.shards).toBe(shards);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }

    const expected = Buffer.from([...generateLines(params, 0, params.count)].join(''), 'utf8');
    const actual = await readDatasetParts(bucket, name);
    expect(sha256Hex(actual)).toBe(sha256Hex(expected));

    const final = await lastModifiedUnder(bucket, prefix);
    expect(final.size).toBe(shards);
    for (const [key, time] of finishedBeforeKill) expect(final.get(key), key).toBe(time);
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await killHard(first);
    await close();
  }
});
