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
