/**
 * Generates a PBE World dataset of any size into S3: one activity per shard on the storage queue,
 * a bounded number in flight, then a manifest. History stays small: the workflow carries only
 * shard numbers, and continues as new before its history grows large, so a million tasks is just a
 * few continuations.
 */
import {
  continueAsNew,
  defineQuery,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { DatasetActivities, DatasetSummary } from '../activities/storage/datasets.js';
import type { PbeParams } from '../domain/pbe/params.js';
import { SA_DONE, SA_KIND, SA_NAME, SA_TOTAL } from '../domain/config/searchAttributes.js';

export interface GenerateDatasetInput {
  name: string;
  params: PbeParams;
  shardSize: number;
  /** Task queue of the storage activities (the worker's config decides the name). */
  storageTaskQueue: string;
  /** How many shard activities may run at once. */
  concurrency?: number;
  /** Set by continue-as-new: shards below this index are finished. */
  resumeFromShard?: number;
  /** Continue as new once history has this many events (tests lower it to exercise the path). */
  maxHistoryEvents?: number;
  /**
   * How late a shard's heartbeat may be before the shard is retried on another worker; absent: 20 s
   * (tests lower it, so that a killed worker's shard is not waited for long).
   */
  heartbeatTimeoutS?: number;
  /** Which run of the continue-as-new chain this is (1 = the first); set by the workflow itself. */
  run?: number;
}

export interface DatasetProgress {
  name: string;
  phase: 'preparing' | 'generating' | 'finalizing' | 'done';
  shardsDone: number;
  shardsTotal: number;
  rowsDone: number;
  rowsTotal: number;
  run: number;
  summary: DatasetSummary | null;
}

export const datasetProgressQuery = defineQuery<DatasetProgress>('progress');

export async function generateDatasetWorkflow(input: GenerateDatasetInput): Promise<DatasetSummary> {
  const storage = proxyActivities<DatasetActivities>({
    taskQueue: input.storageTaskQueue,
    startToCloseTimeout: '10 minutes',
    // A shard heartbeats every 1,000 rows; a worker that dies is noticed within this.
    heartbeatTimeout: `${input.heartbeatTimeoutS ?? 20} seconds`,
    // S3 or a worker can be down for a while; keep trying (a non-retryable conflict still stops it).
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: ['DatasetParamsConflict', 'ZodError'],
    },
  });
  const concurrency = input.concurrency ?? 4;
  const maxHistoryEvents = input.maxHistoryEvents ?? 8_000;
  const rowsTotal = input.params.count;
  const startShard = input.resumeFromShard ?? 0;
  const progress: DatasetProgress = {
    name: input.name,
    phase: 'preparing',
    shardsDone: startShard,
    shardsTotal: 0,
    rowsDone: Math.min(rowsTotal, startShard * input.shardSize),
    rowsTotal,
    run: input.run ?? 1,
    summary: null,
  };
  setHandler(datasetProgressQuery, () => progress);

  let lastPublished = -1;
  const publish = (force = false) => {
    setCurrentDetails(
      `**${progress.phase}** dataset \`${input.name}\`: ${progress.shardsDone}/${progress.shardsTotal} shards, ` +
        `${progress.rowsDone.toLocaleString('en-US')}/${rowsTotal.toLocaleString('en-US')} tasks`,
    );
    // Each upsert is a history event: publish to the search attributes at most once a second.
    const now = Date.now();
    if (force || now - lastPublished >= 1000) {
      lastPublished = now;
      upsertSearchAttributes([
        { key: SA_KIND, value: 'dataset' },
        { key: SA_NAME, value: input.name },
        { key: SA_DONE, value: progress.rowsDone },
        { key: SA_TOTAL, value: progress.rowsTotal },
      ]);
    }
  };

  const request = { name: input.name, params: input.params, shardSize: input.shardSize };
  const prepared = await storage.prepareDataset(request);
  progress.shardsTotal = prepared.numShards;
  if (prepared.summary) {
    progress.phase = 'done';
    progress.shardsDone = prepared.numShards;
    progress.rowsDone = rowsTotal;
    progress.summary = prepared.summary;
    publish(true);
    return prepared.summary;
  }

  progress.phase = 'generating';
  publish(true);
  let next = startShard;
  const inFlight = new Map<number, Promise<void>>();
  const historyIsLarge = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= maxHistoryEvents;
  while (next < prepared.numShards || inFlight.size > 0) {
    while (inFlight.size < concurrency && next < prepared.numShards && !historyIsLarge()) {
      const shardIndex = next++;
      inFlight.set(
        shardIndex,
        storage.generateShard({ ...request, shardIndex, specSha256: prepared.specSha256 }).then((r) => {
          inFlight.delete(shardIndex);
          progress.shardsDone++;
          progress.rowsDone += r.rows;
          publish();
        }),
      );
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight.values());
  }
  if (next < prepared.numShards) {
    // Everything below `next` has finished (we drained in-flight shards first), so the next run
    // starts there with a fresh, short history.
    publish(true);
    await continueAsNew<typeof generateDatasetWorkflow>({ ...input, resumeFromShard: next, run: progress.run + 1 });
  }

  progress.phase = 'finalizing';
  publish(true);
  const summary = await storage.finalizeDataset({ ...request, specSha256: prepared.specSha256 });
  progress.phase = 'done';
  progress.summary = summary;
  publish(true);
  return summary;
}
