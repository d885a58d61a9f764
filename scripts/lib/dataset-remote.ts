/** The Temporal path of generate-dataset: start (or attach to) the workflow, follow it, report. */
import { setMaxListeners } from 'node:events';
import { WorkflowFailedError } from '@temporalio/client';
import { onStopSignals, type StopSignals } from '../../infra/stopSignals.js';
import { logLevelFrom, type ExploraConfig } from '../../domain/config/env.js';
import { datasetWorkflowId } from '../../domain/datasets/layout.js';
import type { PbeParams } from '../../domain/pbe/params.js';
import { checkDatasetSpec } from '../../activities/storage/datasets.js';
import { s3ClientFor } from '../../infra/s3.js';
import { missingSearchAttributes } from '../../infra/temporal/searchAttributes.js';
import { datasetProgressQuery, generateDatasetWorkflow } from '../../workflows/generateDataset.js';
import { createWorkers, inFlight, installRuntime, stopWorkers, type QueueRole } from '../../workers/runWorkers.js';
import { connectBeforeWriting, type TemporalClient } from './preflight.js';
import { rootCauseMessage } from './errors.js';
import { progressBar } from './progress.js';
import { queuesWithoutRecentPollers } from './queue-pollers.js';

export interface RemoteRequest {
  name: string;
  params: PbeParams;
  shardSize: number;
  concurrency: number;
  worker: 'in-process' | 'external';
  progress: boolean;
}

export function workflowUiLink(config: ExploraConfig, workflowId: string): string {
  return `${config.temporal.uiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

export async function generateDatasetRemotely(config: ExploraConfig, req: RemoteRequest): Promise<void> {
  const s3 = s3ClientFor(config);
  let temporal: TemporalClient;
  try {
    // Every connection before anything starts: S3 (credentials, bucket), Temporal (TLS, namespace).
    temporal = await connectBeforeWriting(config, s3, async ({ connection }) => {
      // The dataset workflow sets search attributes: without them its first task fails on every attempt.
      const missing = await missingSearchAttributes(connection, config.temporal.namespace).catch(() => []);
      if (missing.length) {
        throw new Error(
          `namespace ${config.temporal.namespace} lacks the search attributes the workflows use: ${missing.map((a) => a.name).join(', ')}; ` +
            'register them with `node bin/run.mjs scripts/register-search-attributes.ts`',
        );
      }
    });
    // Refuse a conflicting request before anything starts (the workflow checks again, durably).
    await checkDatasetSpec({ s3, name: config.s3.bucket }, { name: req.name, params: req.params, shardSize: req.shardSize }).catch(
      async (err: unknown) => {
        await temporal.close();
        throw err;
      },
    );
  } finally {
    s3.destroy();
  }
  const { connection, client } = temporal;
  let signals: StopSignals | undefined;
  let inProcess: Awaited<ReturnType<typeof createWorkers>> | undefined;
  let running: Promise<unknown> | undefined;
  try {
    const roles: QueueRole[] = ['workflows', 'storage'];
    // SIGINT or SIGTERM detaches: the workflow carries on wherever workers serve it (or on the
    // next run of this command); the in-process workers stop gracefully first.
    signals = onStopSignals('generate-dataset', {
      onFirst: (signal) => {
        console.error(
          `\ngenerate-dataset: ${signal}: detaching${inProcess ? `; stopping the in-process workers (${inFlight(inProcess.workers)})` : ''}`,
        );
        if (inProcess) stopWorkers(inProcess.workers);
      },
      waitingFor: () => (inProcess ? `the in-process workers (${inFlight(inProcess.workers)})` : 'the detach'),
    });
    if (req.worker === 'in-process') {
      installRuntime(logLevelFrom(process.env, 'ERROR'));
      // These workers join whatever other workers serve the queues; when this process exits,
      // the others (or the next run of this command) carry on where it stopped.
      inProcess = await createWorkers(config, { roles });
      if (!signals.received()) running = Promise.all(inProcess.workers.map((w) => w.run()));
    } else {
      const queues = roles.map((r) => ({
        name: config.taskQueues[r],
        kind: r === 'workflows' ? ('workflow' as const) : ('activity' as const),
      }));
      const idle = await queuesWithoutRecentPollers(client, config.temporal.namespace, queues);
      if (idle.length)
        console.error(`warning: no worker has polled ${idle.map((q) => q.name).join(', ')} lately; start one with \`npm run worker\``);
    }

    const workflowId = datasetWorkflowId(req.name);
    await client.workflow.start(generateDatasetWorkflow, {
      taskQueue: config.taskQueues.workflows,
      workflowId,
      // A run already under way for this dataset is joined, not duplicated.
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [
        {
          name: req.name,
          params: req.params,
          shardSize: req.shardSize,
          concurrency: req.concurrency,
          storageTaskQueue: config.taskQueues.storage,
        },
      ],
    });
    console.error(`workflow ${workflowId}: ${workflowUiLink(config, workflowId)}`);

    const handle = client.workflow.getHandle<typeof generateDatasetWorkflow>(workflowId);
    const bar = progressBar(`dataset ${req.name}`, req.progress);
    // One query at a time, awaited before the connection closes: a query still retrying on a
    // closed channel would throw outside any handler. A tick while one is pending is skipped: chained
    // instead, the queries piled up behind a slow answer, and the exit waited for every one of them.
    let polling: Promise<void> = Promise.resolve();
    let pending = false;
    // Aborted at the end: a query sent as the in-process workers stop has nobody to answer it, and
    // held the exit ~30 s (until Temporal gave up on it).
    const queries = new AbortController();
    setMaxListeners(0, queries.signal);
    const poll = setInterval(() => {
      // (the SDK cancels a call when its signal aborts, never one started after)
      if (pending || queries.signal.aborted) return;
      pending = true;
      polling = connection
        .withAbortSignal(queries.signal, () => handle.query(datasetProgressQuery))
        .then((p) => bar.update(p.rowsDone, p.rowsTotal, `${p.phase} ${p.shardsDone}/${p.shardsTotal} shards`))
        // Between two runs of a continue-as-new chain a query can fail; the next poll answers.
        .catch(() => {})
        .finally(() => (pending = false));
    }, 500);
    let summary;
    try {
      // On a detach the wait is cancelled before the connection closes (start-sweep.ts says why).
      const waiting = new AbortController();
      // The SDK adds an abort listener per RPC under it (each long poll of the history) and never
      // removes it: no leak worth MaxListenersExceededWarning.
      setMaxListeners(0, waiting.signal);
      const finished = connection.withAbortSignal(waiting.signal, () => handle.result());
      const outcome = await Promise.race([finished, signals.first.then(() => 'detached' as const)]);
      if (outcome === 'detached') {
        waiting.abort();
        await finished.catch(() => {});
        console.error(
          `detached from workflow ${workflowId}; it carries on where workers serve its queues (run this command again to serve and follow it)`,
        );
        return;
      }
      summary = outcome;
    } finally {
      clearInterval(poll);
      queries.abort();
      await polling;
      bar.stop();
    }
    console.log(`dataset ${summary.name}: ${summary.rows} tasks in ${summary.shards} shards (${summary.bytes} bytes) at ${summary.uri}`);
    console.log(`manifest: s3://${config.s3.bucket}/${summary.manifestKey}`);
    console.log(`Web UI: ${workflowUiLink(config, workflowId)}`);
  } catch (err) {
    // The activity's own message ("already exists with different parameters ...") is what matters.
    if (err instanceof WorkflowFailedError) throw new Error(`workflow failed: ${rootCauseMessage(err)}`);
    throw err;
  } finally {
    if (inProcess) {
      stopWorkers(inProcess.workers);
      await running?.catch(() => {});
      await inProcess.close();
      if (signals?.received())
        console.error(`generate-dataset: in-process workers stopped on ${signals.received()}: tasks in flight done or handed back`);
    }
    await connection.close();
  }
}
