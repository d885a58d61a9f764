/**
 * `node --import tsx workers/main.ts [--queues workflows,storage]` (`npm run worker`): a worker
 * process for the configured cluster. Run by node itself, not the `tsx` CLI: that one relays a stop
 * signal and kills its child 30 ms later, mid-stop. SIGTERM or SIGINT stops it gracefully.
 */
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../infra/config.js';
import { describeTemporalConnection } from '../domain/config/temporalConnection.js';
import { loadSweepConfig } from '../domain/sweep/config.js';
import { FORK_SERVER_HELP, NO_FORK_SERVER_HELP, SHARE_PROCESS_HELP } from '../infra/sandbox/process/contract.js';
import { QUEUE_ROLES, runWorkers, type QueueRole } from './runWorkers.js';

const program = new Command('worker')
  .description('Serve explora task queues (configuration from the environment; see README)')
  .addOption(new Option('--queues <list>', `comma-separated queues to serve: ${QUEUE_ROLES.join(', ')}`).default(QUEUE_ROLES.join(',')))
  .addOption(new Option('--storage-concurrency <n>', 'concurrent storage activities').default('2'))
  .addOption(new Option('--sweep-config <file>', 'serve the LLM queues of the models in this sweep config (role llm)'))
  .addOption(new Option('--sandbox-concurrency <n>', 'programs the sandbox runs at once (default: cores + 2)'))
  .addOption(new Option('--share-process', SHARE_PROCESS_HELP))
  .addOption(new Option('--fork-server', FORK_SERVER_HELP).default(true))
  .addOption(new Option('--no-fork-server', NO_FORK_SERVER_HELP))
  .action(
    async (opts: {
      queues: string;
      storageConcurrency: string;
      sweepConfig?: string;
      sandboxConcurrency?: string;
      shareProcess?: boolean;
      forkServer?: boolean;
    }) => {
      const roles = opts.queues
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = roles.filter((r) => !(QUEUE_ROLES as readonly string[]).includes(r));
      if (unknown.length) throw new Error(`--queues: unknown queue(s) ${unknown.join(', ')}; known: ${QUEUE_ROLES.join(', ')}`);
      const storageConcurrency = Number(opts.storageConcurrency);
      if (!Number.isInteger(storageConcurrency) || storageConcurrency < 1)
        throw new Error('--storage-concurrency must be a positive integer');
      const config = loadConfig(process.env);
      const llmModels = opts.sweepConfig
        ? loadSweepConfig(readFileSync(opts.sweepConfig, 'utf8'), opts.sweepConfig).models.map((m) => ({
            id: m.id,
            concurrency: m.concurrency,
          }))
        : [];
      if (roles.includes('llm') && !llmModels.length) console.error('worker: no --sweep-config, so no model LLM queues are served');
      const queues = roles.map((r) => config.taskQueues[r as QueueRole]).join(', ');
      console.error(`worker: connecting to ${describeTemporalConnection(config.temporal.connection)}`);
      await runWorkers(
        config,
        {
          roles: roles as QueueRole[],
          storageConcurrency,
          llmModels,
          ...(opts.sandboxConcurrency ? { sandboxConcurrency: Number(opts.sandboxConcurrency) } : {}),
          ...(opts.shareProcess ? { shareProcess: true } : {}),
          forkServer: opts.forkServer !== false,
        },
        // Said once connected and checked (Temporal, S3 credentials, the sandbox): "serving" is true.
        () => console.error(`worker: serving ${queues} on ${describeTemporalConnection(config.temporal.connection)}`),
      );
    },
  );

program.parseAsync().catch((err: Error) => {
  console.error(`worker: ${err.message}`);
  process.exit(1);
});
