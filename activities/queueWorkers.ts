/**
 * How many workers serve an activity task queue, as the Temporal server sees them: the distinct
 * identities among the queue's recent pollers (DescribeTaskQueue). The server is the one place all
 * workers of a cluster meet, so their shares of a model's limits add up to the limits without any
 * coordination of their own.
 *
 * A worker counts from its first poll until the server forgets it (its poller history keeps a
 * worker some minutes after its last poll), so a worker that stopped still takes its share for a
 * while: the others stay under the limits, never over. A worker busy on all its slots for longer
 * than that does not poll, drops out, and the others may then go over until it polls again.
 */
import proto from '@temporalio/proto';
import type { WorkflowService } from '@temporalio/client';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/** Pollers seen longer ago than this are not counted, whatever the server still reports. */
export const POLLER_WINDOW_MS = 5 * 60_000;
/** A request waits at most this long for the count; then the last one stands. */
const DESCRIBE_TIMEOUT_MS = 5_000;

interface Known {
  workers: number;
  atMs: number;
  pending?: Promise<number>;
}

export class QueueWorkers {
  private readonly known = new Map<string, Known>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly service: Pick<WorkflowService, 'describeTaskQueue'>,
    private readonly namespace: string,
    private readonly refreshMs = 10_000,
  ) {}

  /** Workers polling `taskQueue` for activities (at least 1: the one asking is one of them). */
  readonly count = async (taskQueue: string): Promise<number> => {
    const known = this.known.get(taskQueue);
    if (known && Date.now() - known.atMs < this.refreshMs) return known.workers;
    if (known?.pending) return known.pending;
    const entry: Known = known ?? { workers: 1, atMs: 0 };
    this.known.set(taskQueue, entry);
    entry.pending = this.describe(taskQueue)
      .then((workers) => {
        entry.workers = workers;
        this.warned.delete(taskQueue);
        return workers;
      })
      .catch((err: unknown) => {
        // The last count stands (the server is probably restarting; nothing is dispatched meanwhile).
        if (!this.warned.has(taskQueue)) {
          this.warned.add(taskQueue);
          console.warn(`could not count the workers of ${taskQueue} (keeping ${entry.workers}): ${(err as Error).message}`);
        }
        return entry.workers;
      })
      .finally(() => {
        entry.atMs = Date.now();
        entry.pending = undefined;
      });
    return entry.pending;
  };

  private async describe(taskQueue: string): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const response = await Promise.race([
      this.service.describeTaskQueue({
        namespace: this.namespace,
        taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DESCRIBE_TIMEOUT_MS / 1000} s`)), DESCRIBE_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    const since = Date.now() - POLLER_WINDOW_MS;
    const identities = new Set<string>();
    for (const poller of response.pollers ?? []) {
      const seconds = poller.lastAccessTime?.seconds;
      const seenMs = seconds === undefined || seconds === null ? Date.now() : Number(seconds) * 1000;
      if (poller.identity && seenMs >= since) identities.add(poller.identity);
    }
    return Math.max(1, identities.size);
  }
}
