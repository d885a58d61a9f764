import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText, sha256Hex } from '../../infra/s3.js';
import { datasetWorkflowId, manifestKey } from '../../domain/datasets/layout.js';
import { ManifestSchema } from '../../domain/datasets/manifest.js';
import { generateLines } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { generateDatasetWorkflow, datasetProgressQuery, type GenerateDatasetInput } from '../../workflows/generateDataset.js';
import { rootCauseMessage } from '../../scripts/lib/errors.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { lastModifiedUnder, readDatasetParts, testBucket } from '../support/s3.js';
import { connectClient, withWorkers } from '../support/temporal.js';

const { config } = testConfig();
const bucket = testBucket(config);
let client: Awaited<ReturnType<typeof connectClient>>;

beforeAll(async () => {
  client = await connectClient(config);
});
afterAll(async () => {
  await client.close();
  bucket.s3.destroy();
});

function inputFor(name: string, count: number, extra: Partial<GenerateDatasetInput> = {}): GenerateDatasetInput {
  return {
    name,
    params: resolvePbeParams({ count, seed: 7, alphabet_size: 3, l_min: 3, l_max: 8, pipeline_L_min: 1, pipeline_L_max: 4 }),
    shardSize: 1000,
    storageTaskQueue: config.taskQueues.storage,
    concurrency: 3,
    ...extra,
  };
}

async function run(input: GenerateDatasetInput) {
  return client.client.workflow.execute(generateDatasetWorkflow, {
    taskQueue: config.taskQueues.workflows,
    workflowId: datasetWorkflowId(input.name),
    args: [input],
  });
}

describe('generateDatasetWorkflow on the real dev server and SeaweedFS', () => {
  it('writes shards whose concatenation equals local generation byte for byte, with a manifest, across continue-as-new', async () => {
    const name = `wf-${uniqueSuffix()}`;
    // A tiny history budget forces several continue-as-new runs for 7 shards.
    const input = inputFor(name, 6_500, { maxHistoryEvents: 30 });
    await withWorkers(config, ['workflows', 'storage'], async () => {
      const summary = await run(input);
      expect(summary).toMatchObject({ name, rows: 6_500, shards: 7, manifestKey: manifestKey(name) });

      const expected = Buffer.from([...generateLines(input.params, 0, 6_500)].join(''), 'utf8');
      const actual = await readDatasetParts(bucket, name);
      expect(actual.length).toBe(expected.length);
      expect(sha256Hex(actual)).toBe(sha256Hex(expected));

      const manifest = ManifestSchema.parse(JSON.parse((await getText(bucket, manifestKey(name)))!));
      expect(manifest.total_rows).toBe(6_500);
      expect(manifest.total_bytes).toBe(expected.length);
      expect(manifest.shards.map((s) => s.rows)).toEqual([1000, 1000, 1000, 1000, 1000, 1000, 500]);
      expect(manifest.params).toEqual(input.params);
      expect(Date.parse(manifest.created_at)).not.toBeNaN();
      let offset = 0;
      for (const shard of manifest.shards) {
        expect(shard.sha256).toBe(sha256Hex(actual.subarray(offset, offset + shard.bytes)));
        offset += shard.bytes;
      }

      // The chain really continued as new: more than one run under the same workflow id.
      const runs: string[] = [];
      for await (const wf of client.client.workflow.list({ query: `WorkflowId = '${datasetWorkflowId(name)}'` })) runs.push(wf.runId);
      expect(runs.length).toBeGreaterThan(1);

      const progress = await client.client.workflow.getHandle(datasetWorkflowId(name)).query(datasetProgressQuery);
      expect(progress).toMatchObject({ phase: 'done', shardsDone: 7, shardsTotal: 7, rowsDone: 6_500, rowsTotal: 6_500 });
      expect(progress.run).toBeGreaterThan(1);

      // Search attributes carry progress for the Web UI's list view.
      const listed = await waitUntil(
        async () => {
          for await (const wf of client.client.workflow.list({ query: `ExploraName = '${name}' AND ExploraDone = 6500` })) return wf;
          return undefined;
        },
        { what: 'the workflow listed by its search attributes', timeoutMs: 10_000, intervalMs: 200 },
      );
      expect(listed?.typedSearchAttributes.get({ name: 'ExploraTotal', type: 'INT' } as never)).toBe(6_500);

      // Running it again finds everything done and rewrites nothing.
      const before = await lastModifiedUnder(bucket, `datasets/${name}/`);
      await sleep(1100); // S3 timestamps have one-second resolution
      const again = await run(input);
      expect(again).toEqual(summary);
      expect(await lastModifiedUnder(bucket, `datasets/${name}/`)).toEqual(before);
    });
  });

  it('refuses the same name with different parameters, naming the field, and keeps the existing dataset', async () => {
    const name = `conflict-${uniqueSuffix()}`;
    await withWorkers(config, ['workflows', 'storage'], async () => {
      await run(inputFor(name, 1_200));
      const before = await lastModifiedUnder(bucket, `datasets/${name}/`);
      const other = inputFor(name, 1_200);
      other.params = { ...other.params, seed: 8 };
      const err = await run(other).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const message = rootCauseMessage(err);
      expect(message).toContain('already exists with different parameters');
      expect(message).toContain('seed: existing 7, requested 8');
      expect(await lastModifiedUnder(bucket, `datasets/${name}/`)).toEqual(before);
    });
  });
});
