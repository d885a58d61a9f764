/**
 * Whether any worker serves a task queue, from the pollers Temporal remembers (DescribeTaskQueue):
 * for the warnings of CLIs that rely on external workers (`--worker external`), which otherwise
 * wait in silence. A worker busy on all its slots does not poll, and the server remembers pollers
 * for a while after they die: a hint for a warning, never a reason to skip work.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

export interface WatchedQueue {
  name: string;
  kind: 'workflow' | 'activity';
}

/** The queues no worker has polled in the last ~70 s. */
export async function queuesWithoutRecentPollers(
  client: Client,
  namespace: string,
  queues: readonly WatchedQueue[],
): Promise<WatchedQueue[]> {
  const { TaskQueueType } = proto.temporal.api.enums.v1;
  const missing: WatchedQueue[] = [];
  for (const queue of queues) {
    const res = await client.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: queue.name },
      taskQueueType: queue.kind === 'workflow' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const recent = (res.pollers ?? []).filter((p) => {
      const t = p.lastAccessTime;
      const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
      return Date.now() - ms < 70_000;
    });
    if (!recent.length) missing.push(queue);
  }
  return missing;
}

/**
 * After `graceMs`, and then every `everyMs`, says which queues no worker has polled, with the
 * command that serves them; says it again only when that set changes. Stopped by stop().
 */
export function warnWhileUnserved(
  client: Client,
  namespace: string,
  queues: readonly WatchedQueue[],
  opts: { graceMs: number; everyMs: number; hint: (missing: WatchedQueue[]) => string; log: (line: string) => void },
): { stop: () => Promise<void> } {
  let last = '';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // The check under way, awaited by stop(): a call still retrying (Temporal down) after the
  // caller closed the connection would throw outside any handler. A deadline ends its retries.
  let checking: Promise<void> = Promise.resolve();
  const check = async () => {
    const missing = await client
      .withDeadline(Date.now() + 10_000, () => queuesWithoutRecentPollers(client, namespace, queues))
      .catch(() => null);
    if (stopped || missing === null) return;
    const names = missing.map((q) => q.name).join(', ');
    if (names !== last) {
      if (missing.length)
        opts.log(`no worker serves ${names} (none has polled it for a while); the sweep waits for one: ${opts.hint(missing)}`);
      else if (last) opts.log('every queue the sweep needs has a worker again');
      last = names;
    }
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      checking = check().finally(() => !stopped && schedule(opts.everyMs));
    }, ms);
  };
  schedule(opts.graceMs);
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await checking;
    },
  };
}
