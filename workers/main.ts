/** `tsx workers/main.ts [--queues workflows,storage]`: a worker process for the configured cluster. */
import { Command, Option } from 'commander';
import { parseConfig } from '../domain/config/env.js';
import { QUEUE_ROLES, runWorkers, type QueueRole } from './runWorkers.js';

const program = new Command('worker')
  .description('Serve explora task queues (configuration from the environment; see README)')
  .addOption(
    new Option('--queues <list>', `comma-separated queues to serve: ${QUEUE_ROLES.join(', ')}`).default(QUEUE_ROLES.join(',')),
  )
  .addOption(new Option('--storage-concurrency <n>', 'concurrent storage activities').default('2'))
  .action(async (opts: { queues: string; storageConcurrency: string }) => {
    const roles = opts.queues.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = roles.filter((r) => !(QUEUE_ROLES as readonly string[]).includes(r));
    if (unknown.length) throw new Error(`--queues: unknown queue(s) ${unknown.join(', ')}; known: ${QUEUE_ROLES.join(', ')}`);
    const storageConcurrency = Number(opts.storageConcurrency);
    if (!Number.isInteger(storageConcurrency) || storageConcurrency < 1) throw new Error('--storage-concurrency must be a positive integer');
    const config = parseConfig(process.env);
    console.error(`worker: serving ${roles.map((r) => config.taskQueues[r as QueueRole]).join(', ')} on ${config.temporal.address}`);
    await runWorkers(config, { roles: roles as QueueRole[], storageConcurrency });
  });

program.parseAsync().catch((err: Error) => {
  console.error(`worker: ${err.message}`);
  process.exit(1);
});
