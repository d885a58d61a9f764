import type { Client } from '@temporalio/client';
import type { ExploraConfig } from '../../domain/config/env.js';
import { connectTemporal } from '../../infra/temporal/connection.js';
import { createWorkers, type QueueRole } from '../../workers/runWorkers.js';

export async function connectClient(config: ExploraConfig): Promise<{ client: Client; close: () => Promise<void> }> {
  const { client, close } = await connectTemporal(config);
  return { client, close };
}

/** Runs real workers for `roles` in this process for the duration of `fn`. */
export async function withWorkers<T>(config: ExploraConfig, roles: QueueRole[], fn: () => Promise<T>): Promise<T> {
  const { workers, close } = await createWorkers(config, { roles });
  const running = Promise.all(workers.map((w) => w.run()));
  try {
    return await fn();
  } finally {
    for (const w of workers) w.shutdown();
    await running;
    await close();
  }
}

/** The identities of the workers that ran activities on `taskQueue` anywhere under the workflow (children followed). */
export async function activityWorkers(client: Client, workflowId: string, taskQueue: string, runId?: string): Promise<Set<string>> {
  const out = new Set<string>();
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const queueOf = new Map<string, string>();
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) queueOf.set(String(event.eventId), scheduled.taskQueue?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    if (started && queueOf.get(String(started.scheduledEventId)) === taskQueue && started.identity) out.add(started.identity);
    const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
    if (child?.workflowId) for (const w of await activityWorkers(client, child.workflowId, taskQueue, child.runId ?? undefined)) out.add(w);
  }
  return out;
}
