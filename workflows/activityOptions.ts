/**
 * Activity stubs per queue, with their timeouts and retry policies in one place. Retries are
 * unlimited for infrastructure faults (an LLM endpoint or S3 may be down for hours: the sweep waits
 * and resumes), while errors that retrying cannot fix are non-retryable by type.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createBudgetActivities } from '../activities/budget/spendHold.js';
import type { createDatasetActivities } from '../activities/storage/datasets.js';
import type { createReportActivities } from '../activities/storage/report.js';
import type { createSweepStorageActivities } from '../activities/storage/sweepFiles.js';
import type { ShardSliceActivities } from '../activities/storage/shardSlices.js';
import type { createSandboxActivities } from '../activities/sandbox/executeShard.js';
import type { SnippetActivities } from '../activities/sandbox/snippets.js';
import type { createTraceActivities } from '../activities/storage/traces.js';

type StorageActivities = ReturnType<typeof createDatasetActivities> &
  ReturnType<typeof createSweepStorageActivities> &
  ShardSliceActivities &
  ReturnType<typeof createReportActivities> &
  ReturnType<typeof createTraceActivities>;

export function storageActivities(taskQueue: string) {
  return storageActivitiesOf<StorageActivities>(taskQueue);
}

/** Storage-queue activities of another interface (a method's trace writer), with the same options. */
export function storageActivitiesOf<A extends object>(taskQueue: string) {
  return proxyActivities<A>({
    taskQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: [
        'DatasetParamsConflict',
        'DatasetMissing',
        'InvalidDataset',
        'SweepResultsMissing',
        'InvalidSweepFile',
        'ZodError',
      ],
    },
  });
}

/**
 * How long an LLM activity may go without a heartbeat before it is retried on another worker. Calls
 * heartbeat every 5 s while waiting for the model, so a dead worker is noticed quickly; a sweep may
 * set another (`heartbeat_timeout_s`, at least 10 s).
 */
export const DEFAULT_LLM_HEARTBEAT_TIMEOUT_S = 30;

/**
 * A model's LLM-queue activities, typed by the calling method's activities (methods/<kind>/activities.ts);
 * `heartbeatTimeoutS` is the sweep's (SweepQueues.llmHeartbeatTimeoutS).
 */
export function llmActivities<A extends object>(taskQueue: string, heartbeatTimeoutS = DEFAULT_LLM_HEARTBEAT_TIMEOUT_S) {
  return proxyActivities<A>({
    taskQueue,
    heartbeatTimeout: `${heartbeatTimeoutS} seconds`,
    startToCloseTimeout: '2 hours',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: ['LlmConfigError', 'InvalidTask', 'ZodError'],
    },
  });
}

export function sandboxActivities(taskQueue: string, timeoutS: number) {
  return proxyActivities<ReturnType<typeof createSandboxActivities> & SnippetActivities>({
    taskQueue,
    // Every finished sample heartbeats; one sample runs at most its timeout.
    heartbeatTimeout: `${Math.ceil(Math.max(20, timeoutS * 2 + 10))} seconds`,
    startToCloseTimeout: '2 hours',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: ['InvalidGenerations', 'ZodError'],
    },
  });
}

/**
 * The workflow worker's own activities, run as local activities (no task queue, one marker in
 * history): a query of the spend ledger, which the same worker serves.
 */
export function budgetLocalActivities() {
  return proxyLocalActivities<ReturnType<typeof createBudgetActivities>>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  });
}
