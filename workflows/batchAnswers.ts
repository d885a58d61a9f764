/**
 * One request set of a cell in batch mode (domain/llm/batchMode.ts), answered through the
 * provider's Batch API: submitted at most once (the batch id in history; the set's id in the
 * batch's metadata, so a submission whose report was lost is found again), polled on durable timers
 * with back-off, its answers stored in the LLM cache; the requests it left (failed, expired) go in
 * a new batch, up to the model's retry_rounds, and what is still left goes to the live path. A
 * cancelled workflow cancels the batch in flight.
 */
import { CancellationScope, defineQuery, isCancellation, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { BatchActivities, BatchStatus, CollectedBatch } from '../activities/llm/batch.js';
import { isFinalBatchState } from '../domain/llm/batchLines.js';
import type { LlmEndpoint } from '../domain/llm/request.js';
import type { RequestSet } from '../infra/llm/batchPlan.js';

export interface BatchAnswersInput {
  sweepId: string;
  cellId: string;
  endpoint: LlmEndpoint;
  /** The model's LLM queue: its workers hold the API key. */
  llmQueue: string;
  set: RequestSet;
  /** Where request sets of left-over requests go. */
  prefix: string;
}

/** Each batch this workflow made, in order, as its last poll saw it. */
export interface BatchAnswersProgress {
  round: number;
  batches: BatchStatus[];
  /** Samples of the set whose answer is cached so far. */
  samplesAnswered: number;
  samples: number;
}
export const batchAnswersProgressQuery = defineQuery<BatchAnswersProgress>('batch-progress');

export interface BatchAnswersOutcome {
  batches: Array<{ batchId: string; status: string }>;
  /** Samples answered in batches (now cached), and those left for the live path. */
  samplesAnswered: number;
  samplesLeft: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

const RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: ['LlmConfigError', 'InvalidBatch', 'ZodError'],
};

/**
 * Submitting and collecting move files of up to 200 MB and heartbeat meanwhile: a worker killed
 * mid-call is noticed in a minute. Polling and cancelling are one small request each, and heartbeat
 * too: a worker killed mid-poll (a poll is in flight much of the time a batch waits) is noticed in
 * 20 s, and the batch polled again from another, not a minute later.
 */
function batchActivities(taskQueue: string) {
  const transfers = proxyActivities<BatchActivities>({
    taskQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '1 minute',
    retry: RETRY,
  });
  const calls = proxyActivities<BatchActivities>({
    taskQueue,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: '20 seconds',
    retry: RETRY,
  });
  return {
    submitBatch: transfers.submitBatch,
    collectBatch: transfers.collectBatch,
    pollBatch: calls.pollBatch,
    cancelBatch: calls.cancelBatch,
  };
}

export async function batchAnswersWorkflow(input: BatchAnswersInput): Promise<BatchAnswersOutcome> {
  const settings = input.endpoint.batch;
  if (!settings) throw new Error(`model ${input.endpoint.id} is not in batch mode`);
  const acts = batchActivities(input.llmQueue);
  const progress: BatchAnswersProgress = { round: 0, batches: [], samplesAnswered: 0, samples: input.set.samples };
  setHandler(batchAnswersProgressQuery, () => progress);
  const outcome: BatchAnswersOutcome = {
    batches: [],
    samplesAnswered: 0,
    samplesLeft: input.set.samples,
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
  // Batches of earlier attempts of this workflow id are not looked through before it started.
  const notBeforeS = Math.floor(Date.now() / 1000) - 60;
  let set: RequestSet | undefined = input.set;
  let current: string | undefined;
  try {
    for (let round = 1; set && round <= settings.retryRounds + 1; round++) {
      progress.round = round;
      const submitted = await acts.submitBatch({
        endpoint: input.endpoint,
        set,
        round,
        sweepId: input.sweepId,
        cellId: input.cellId,
        notBeforeS,
      });
      // Nothing to send: the cache answers the set, or other activities (a live sweep on the same
      // grid) ask the rest now; the cell's shards read or wait for those answers. Only a worker
      // that holds requests in the in-flight ledger answers null, so older histories never see it.
      if (submitted.batchId === null && patched('batch-holds-inflight')) break;
      const batchId = submitted.batchId!;
      current = batchId;
      const startedMs = Date.now();
      let status: BatchStatus = { batchId, status: 'validating', total: set.requests, completed: 0, failed: 0 };
      progress.batches.push(status);
      let cancelledForLive = false;
      for (let waitS = settings.pollS; !isFinalBatchState(status.status); waitS = Math.min(waitS * 2, settings.maxPollS)) {
        await sleep(waitS * 1000);
        status = await acts.pollBatch({ endpoint: input.endpoint, batchId, set });
        progress.batches[progress.batches.length - 1] = status;
        if (
          !cancelledForLive &&
          !isFinalBatchState(status.status) &&
          settings.liveAfterS !== undefined &&
          Date.now() - startedMs >= settings.liveAfterS * 1000
        ) {
          // Waited long enough: what it answered is kept, the rest goes live.
          await acts.cancelBatch({ endpoint: input.endpoint, batchId });
          cancelledForLive = true;
        }
      }
      current = undefined;
      const collected: CollectedBatch = await acts.collectBatch({ endpoint: input.endpoint, batchId, set, prefix: input.prefix });
      outcome.batches.push({ batchId, status: status.status });
      outcome.requests += collected.requests;
      outcome.promptTokens += collected.promptTokens;
      outcome.completionTokens += collected.completionTokens;
      outcome.samplesLeft = collected.left?.samples ?? 0;
      progress.samplesAnswered = input.set.samples - outcome.samplesLeft;
      set = cancelledForLive ? undefined : collected.left;
    }
  } catch (err) {
    // A cancelled sweep stops paying for its batch in flight, whatever the cancellation interrupted.
    if (isCancellation(err) && current !== undefined) {
      const batchId = current;
      await CancellationScope.nonCancellable(() => acts.cancelBatch({ endpoint: input.endpoint, batchId }));
    }
    throw err;
  }
  outcome.samplesAnswered = input.set.samples - outcome.samplesLeft;
  return outcome;
}
