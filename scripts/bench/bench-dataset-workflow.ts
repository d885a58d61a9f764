/**
 * `tsx scripts/bench/bench-dataset-workflow.ts [--count 1000000]`: generates a dataset through the full
 * stack (workflow, storage activities, SeaweedFS) with the workers in this process, then prints
 * throughput, the largest history any run of the continue-as-new chain reached, and this process's
 * peak RSS (workers included). Needs the local stack (`npm run stack:up`).
 */
import { Command, Option } from 'commander';
import { loadConfig } from '../../infra/config.js';
import { connectTemporal } from '../../infra/temporal/connection.js';
import { datasetWorkflowId, DEFAULT_SHARD_SIZE } from '../../domain/datasets/layout.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { generateDatasetWorkflow } from '../../workflows/generateDataset.js';
import { createWorkers, installRuntime } from '../../workers/runWorkers.js';

new Command('bench-dataset-workflow')
  .addOption(new Option('--count <n>', 'tasks').default('1000000'))
  .addOption(new Option('--shard-size <n>', 'tasks per shard').default(String(DEFAULT_SHARD_SIZE)))
  .action(async (opts: { count: string; shardSize: string }) => {
    const config = loadConfig(process.env);
    installRuntime('ERROR');
    const name = `bench-${opts.count}-${Date.now().toString(36)}`;
    const params = resolvePbeParams({ count: Number(opts.count) });
    const { workers, close } = await createWorkers(config, { roles: ['workflows', 'storage'] });
    const running = Promise.all(workers.map((w) => w.run()));
    const temporal = await connectTemporal(config);
    const { client } = temporal;
    try {
      const t0 = performance.now();
      const summary = await client.workflow.execute(generateDatasetWorkflow, {
        taskQueue: config.taskQueues.workflows,
        workflowId: datasetWorkflowId(name),
        args: [{ name, params, shardSize: Number(opts.shardSize), storageTaskQueue: config.taskQueues.storage }],
      });
      const seconds = (performance.now() - t0) / 1000;
      let runs = 0;
      let maxEvents = 0;
      for await (const wf of client.workflow.list({ query: `WorkflowId = '${datasetWorkflowId(name)}'` })) {
        runs++;
        maxEvents = Math.max(maxEvents, wf.historyLength);
      }
      console.log(
        `${summary.rows.toLocaleString('en-US')} tasks in ${summary.shards} shards (${(summary.bytes / 1e9).toFixed(2)} GB) via Temporal + S3: ` +
          `${seconds.toFixed(1)} s, ${Math.round(summary.rows / seconds).toLocaleString('en-US')} tasks/s; ` +
          `${runs} workflow run(s), largest history ${maxEvents} events; peak RSS of worker process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
      );
    } finally {
      for (const w of workers) w.shutdown();
      await running;
      await close();
      await temporal.close();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`bench-dataset-workflow: ${err.message}`);
    process.exit(1);
  });
