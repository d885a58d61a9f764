/**
 * A model's limits are the endpoint's (its capacity, its quota), not one worker's: when several
 * workers serve a model's queue, each takes an equal share of them.
 */

export interface ModelLimits {
  /** Requests in flight at once, over all workers. Absent: no limit. */
  concurrency?: number;
  /** Request starts per second, over all workers. Absent: no limit. */
  requestsPerSecond?: number;
}

export interface WorkerShare {
  /** Requests this worker may have in flight (at least one: a worker that may send nothing would hold its tasks for ever). */
  concurrency: number;
  /** Least time between two of this worker's request starts; 0 without a rate limit. */
  spacingMs: number;
}

export function workerShare(limits: ModelLimits, workers: number): WorkerShare {
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
  return {
    concurrency: limits.concurrency === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(limits.concurrency / workers)),
    spacingMs: limits.requestsPerSecond === undefined ? 0 : (1000 * workers) / limits.requestsPerSecond,
  };
}
