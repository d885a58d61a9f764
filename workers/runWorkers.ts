/**
 * Wiring only: one Temporal worker per task queue this process serves. Running the queues in
 * separate processes (or machines) is how each kind of work is scaled on its own.
 */
import { DefaultLogger, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';
import { logLevelFrom, type ExploraConfig } from '../domain/config/env.js';
import { createDatasetActivities } from '../activities/storage/datasets.js';
import { createReportActivities } from '../activities/storage/report.js';
import { createLlmActivities } from '../infra/llm/llm.js';
import { createEmbeddingClient } from '../infra/llm/embeddings.js';
import { createBatchActivities } from '../activities/llm/batch.js';
import { createSnippetActivities } from '../activities/sandbox/snippets.js';
import { createTraceActivities } from '../activities/storage/traces.js';
import { SandboxPool } from '../infra/sandbox/pool.js';
import { checkS3Access, s3ClientFor, supportsConditionalWrites } from '../infra/s3.js';
import { connectTemporalWorker } from '../infra/temporal/connection.js';
import { payloadStorageFor } from '../infra/temporal/payloadStorage.js';
import { keptWorkflowBundle, workflowBundleDir, WORKFLOWS_ENTRY } from '../infra/temporal/workflowBundle.js';
import { createSweepStorageActivities } from '../activities/storage/sweepFiles.js';
import { createShardSliceActivities } from '../activities/storage/shardSlices.js';
import { createSandboxActivities } from '../activities/sandbox/executeShard.js';
import { createBudgetActivities } from '../activities/budget/spendHold.js';
import { llmTaskQueue } from '../domain/sweep/keys.js';
import { WorkerLeases } from '../infra/llm/workerLeases.js';
import type { MethodActivities } from '../activities/llm/methodKit.js';
import { llmQueueActivities, METHOD_ACTIVITIES, storageQueueActivities } from './methodActivities.js';
import { onStopSignals, type StopSignal } from '../infra/stopSignals.js';

export const QUEUE_ROLES = ['workflows', 'storage', 'sandbox', 'llm'] as const;
export type QueueRole = (typeof QUEUE_ROLES)[number];

export interface LlmQueueOptions {
  /** Model id in the sweep config: the worker serves `<p>-llm-<id>`. */
  id: string;
  /**
   * The model's concurrency (over all workers): this worker runs at most this many of its tasks at
   * once, and its requests wait for its share of the model's limits (infra/llm/modelGate.ts).
   */
  concurrency: number;
}

export interface WorkerOptions {
  roles: readonly QueueRole[];
  /** Concurrent storage activities (dataset shards are CPU-bound: about one per core). */
  storageConcurrency?: number;
  /** Models whose LLM queues this process serves (role `llm`). */
  llmModels?: LlmQueueOptions[];
  /** Programs the sandbox runs at once (default: cores). */
  sandboxConcurrency?: number;
  /** JavaScript programs several to a sandboxed process (SandboxPoolOptions.shareProcess). */
  shareProcess?: boolean;
  /** Scripted languages' programs forked from a warm server per slot (SandboxPoolOptions.forkServer; default true). */
  forkServer?: boolean;
  /** How long a stop lets activities in flight finish before cancelling them (default STOP_GRACE_MS). */
  stopGraceMs?: number;
  /** The methods whose activities are served (default: every method of methods/activities.ts). */
  methods?: readonly MethodActivities[];
  /**
   * The workflow bundle's entry (default: workflows/index.ts). A bundle with methods of its own
   * re-exports that file and adds its methods' workflows (workflows/methodSteps.ts, addMethodWorkflows).
   */
  workflowsPath?: string;
}

let runtimeInstalled = false;

/**
 * Sets the SDK's log level once per process (before the first connection). CLIs pass WARN so that
 * webpack's bundle report and worker state changes do not bury their own output.
 *
 * No shutdown signals for the SDK: it drops its handlers on the first signal, so a second one
 * killed the process mid-stop. The processes that run workers listen themselves
 * (infra/stopSignals.ts) and call `stopWorkers`.
 */
export function installRuntime(level: LogLevel = logLevelFrom(process.env, 'INFO')): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger(level), shutdownSignals: [] });
  runtimeInstalled = true;
}

/**
 * How long a stopping worker lets the activities in flight finish before it cancels them (a
 * cancelled attempt is retried on another worker). Below the pods' termination grace periods
 * (deploy/k8s/workers.yaml), so the stop ends before Kubernetes kills the process.
 */
export const STOP_GRACE_MS = 45_000;

/** Starts a graceful stop of the workers still running: no new tasks; those in flight finish or are handed back. */
export function stopWorkers(workers: readonly Worker[]): void {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
}

/** Activities and workflow tasks the workers still run, for messages while stopping. */
export function inFlight(workers: readonly Worker[]): string {
  let activities = 0;
  let workflowTasks = 0;
  for (const w of workers) {
    const s = w.getStatus();
    activities += s.numInFlightActivities;
    workflowTasks += s.numInFlightWorkflowActivations;
  }
  return `${activities} activit${activities === 1 ? 'y' : 'ies'} and ${workflowTasks} workflow task(s) in flight`;
}

/** The kept bundle of this version of the code (infra/temporal/workflowBundle.ts), else the entry for the worker to bundle. */
async function workflowCode(workflowsPath: string): Promise<{ workflowBundle: WorkflowBundle } | { workflowsPath: string }> {
  const bundle = await keptWorkflowBundle(workflowsPath, workflowBundleDir(), Runtime.instance().logger);
  return bundle ? { workflowBundle: bundle } : { workflowsPath };
}

export async function createWorkers(
  config: ExploraConfig,
  options: WorkerOptions,
): Promise<{ workers: Worker[]; close: () => Promise<void> }> {
  installRuntime();
  const s3 = s3ClientFor(config);
  try {
    // No credentials, or refused ones: stop now, naming where they were looked for, rather than
    // take tasks and fail each of them.
    await checkS3Access(config, s3);
  } catch (err) {
    s3.destroy();
    throw err;
  }
  const connection = await connectTemporalWorker(config).catch((err: unknown) => {
    s3.destroy();
    throw err;
  });
  const workers: Worker[] = [];
  const bucket = { s3, name: config.s3.bucket };
  // Payloads over config.temporal.offloadBytes (a task's thousands of answer keys) live in S3, their histories holding a claim.
  const dataConverter = { externalStorage: payloadStorageFor(config, () => s3).externalStorage };
  const methods = options.methods ?? METHOD_ACTIVITIES;
  const stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  let sandboxes: SandboxPool | undefined;
  let leases: WorkerLeases | undefined;
  try {
    for (const role of options.roles) {
      switch (role) {
        case 'workflows':
          workers.push(
            await Worker.create({
              connection,
              namespace: config.temporal.namespace,
              dataConverter,
              taskQueue: config.taskQueues.workflows,
              ...(await workflowCode(options.workflowsPath ?? WORKFLOWS_ENTRY)),
              // Local activities of the workflows: a shard asks its sweep's spend ledger before each task.
              activities: createBudgetActivities(),
              shutdownGraceTime: stopGraceMs,
            }),
          );
          break;
        case 'storage':
          workers.push(
            await Worker.create({
              connection,
              namespace: config.temporal.namespace,
              dataConverter,
              taskQueue: config.taskQueues.storage,
              activities: {
                ...createDatasetActivities(bucket),
                ...createSweepStorageActivities(bucket),
                ...createShardSliceActivities(bucket),
                ...createReportActivities(bucket),
                ...createTraceActivities(bucket),
                ...storageQueueActivities(methods, bucket),
              },
              maxConcurrentActivityTaskExecutions: options.storageConcurrency ?? 2,
              shutdownGraceTime: stopGraceMs,
            }),
          );
          break;
        case 'sandbox':
          sandboxes = new SandboxPool({
            ...(options.sandboxConcurrency ? { concurrency: options.sandboxConcurrency } : {}),
            ...(options.shareProcess ? { shareProcess: true } : {}),
            ...(options.forkServer !== undefined ? { forkServer: options.forkServer } : {}),
          });
          await sandboxes.forRuntime(); // the plain sandbox at once; those with a library on first need
          workers.push(
            await Worker.create({
              connection,
              namespace: config.temporal.namespace,
              dataConverter,
              taskQueue: config.taskQueues.sandbox,
              activities: { ...createSandboxActivities(bucket, sandboxes), ...createSnippetActivities(bucket, sandboxes) },
              // Shards and single snippets queue for the executor's own pool of slots; this only
              // bounds how many wait at once.
              maxConcurrentActivityTaskExecutions: 16,
              shutdownGraceTime: stopGraceMs,
            }),
          );
          break;
        case 'llm': {
          if (!(await supportsConditionalWrites(bucket))) {
            console.warn(
              `warning: the S3 store ${config.s3.endpoint ?? 'aws'} (bucket ${config.s3.bucket}) ignores conditional writes (If-None-Match / If-Match): ` +
                'cached answers and vectors are still never requested again, but two sweeps running at once on overlapping grids may send the same LLM request or embedding twice',
            );
          }
          // Each worker takes its share of a model's limits: the workers holding a lease on its
          // queue share them.
          leases = new WorkerLeases(bucket);
          // Stopping (stopWorkers), a worker starts no more requests: its tasks are handed back.
          const llmWorkers: Worker[] = [];
          const llm = createLlmActivities(bucket, process.env, leases.count, () => llmWorkers.some((w) => w.getState() !== 'RUNNING'));
          const embeddings = createEmbeddingClient(bucket);
          const batchActivities = createBatchActivities(bucket);
          for (const model of options.llmModels ?? []) {
            const taskQueue = llmTaskQueue(config.taskQueues.llm, model.id);
            await leases.join(taskQueue);
            llmWorkers.push(
              await Worker.create({
                connection,
                namespace: config.temporal.namespace,
                dataConverter,
                taskQueue,
                // Batch mode's activities (activities/llm/batch.ts) beside the methods': they need the model's key too.
                activities: { ...llmQueueActivities(methods, { bucket, llm, embeddings }), ...batchActivities },
                // One task's samples run one after another inside an activity; the requests then
                // wait for this worker's share of the model's limits.
                maxConcurrentActivityTaskExecutions: model.concurrency,
                // The heartbeats carry the answers so far (the live progress reads them): at most
                // every 5 s, not every 24 s (0.8 of the LLM activities' heartbeat timeout).
                maxHeartbeatThrottleInterval: '5 seconds',
                shutdownGraceTime: stopGraceMs,
              }),
            );
          }
          workers.push(...llmWorkers);
          break;
        }
      }
    }
  } catch (err) {
    await leases?.leave();
    await sandboxes?.close();
    await connection.close();
    throw err;
  }
  return {
    workers,
    close: async () => {
      await leases?.leave();
      await sandboxes?.close();
      s3.destroy();
      await connection.close();
    },
  };
}

/**
 * Runs until every worker has stopped. The first SIGTERM or SIGINT starts a graceful stop (no new
 * tasks; those in flight finish, or are cancelled after STOP_GRACE_MS and retried elsewhere), then the
 * leases are removed and the connections closed; later signals are said and ignored.
 */
export async function runWorkers(
  config: ExploraConfig,
  options: WorkerOptions,
  onReady: () => void = () => {},
  log: (line: string) => void = (line) => console.error(line),
): Promise<{ stoppedBy: StopSignal | undefined }> {
  let workers: Worker[] = [];
  const signals = onStopSignals('worker', {
    onFirst: (signal) => {
      log(`worker: ${signal}: stopping: no new tasks; ${workers.length ? inFlight(workers) : 'still starting'} finish or are handed back`);
      stopWorkers(workers);
    },
    waitingFor: () => (workers.length ? inFlight(workers) : 'the start to finish'),
    log,
  });
  const created = await createWorkers(config, options);
  try {
    // A signal while starting: stop before serving anything.
    if (signals.received()) return { stoppedBy: signals.received() };
    workers = created.workers;
    onReady();
    await Promise.all(workers.map((w) => w.run()));
  } finally {
    await created.close();
  }
  if (signals.received()) log(`worker: stopped on ${signals.received()}: tasks in flight done or handed back, leases removed`);
  return { stoppedBy: signals.received() };
}
