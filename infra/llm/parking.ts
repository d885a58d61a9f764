/**
 * Batch mode for the multi-round methods (workflows/roundParking.ts): an LLM step asked with
 * `parkRequests` does not send the requests the cache does not answer; it stores them as request
 * sets and fails with `LlmParked` (their sets in its details), so that the task's workflow waits
 * while its cell's collector (workflows/batchRounds.ts) answers them in a batch. Asked again, the
 * step finds them cached. The step's activity runs inside parkingScope; callLlm asks parkOrSend.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { LlmEndpoint } from '../../domain/llm/request.js';
import type { SampleCall } from '../../domain/methods/sampling.js';
import { planOf, readPlan, storeRequestSets, uncachedOf, type RequestSet } from './batchPlan.js';
import type { Bucket } from '../s3.js';

/** The error type of a parked step (its details: the RequestSet[] it stored). */
export const LLM_PARKED = 'LlmParked';

/** What a parking step's input carries (beside its own fields). */
export const ParkRequestsSchema = z.object({
  /** Where the parked request sets go. */
  prefix: z.string().min(1),
  /**
   * The plans this step parked before (in earlier rounds): requests they held that are still not
   * cached were left by their batch (failed, expired) and go live now, so a step parks a request once.
   */
  after: z.array(z.string()),
});
export type ParkRequests = z.infer<typeof ParkRequestsSchema>;

const scope = new AsyncLocalStorage<ParkRequests>();

/** Runs an LLM-queue activity, in parking mode when its input asks for it (`parkRequests`). */
export function parkingScope<T>(input: unknown, run: () => Promise<T>): Promise<T> {
  const asked = input && typeof input === 'object' ? (input as { parkRequests?: unknown }).parkRequests : undefined;
  if (asked === undefined) return run();
  return scope.run(ParkRequestsSchema.parse(asked), run);
}

/**
 * In parking mode, stores the calls' uncached requests as request sets and throws LlmParked; does
 * nothing when every request is cached, outside parking mode, or when every uncached request was
 * parked before by this step (it goes live: its batch left it).
 */
export async function parkOrSend(bucket: Bucket, endpoint: LlmEndpoint, calls: readonly SampleCall[]): Promise<void> {
  const park = scope.getStore();
  if (!park || !endpoint.batch) return;
  const uncached = await uncachedOf(bucket, endpoint, planOf(endpoint, calls));
  if (uncached.length === 0) return;
  const before = new Set<string>();
  for (const key of park.after) for (const line of await readPlan(bucket, key)) before.add(line.custom_id);
  if (uncached.every((l) => before.has(l.custom_id))) return;
  const sets: RequestSet[] = await storeRequestSets(bucket, endpoint, uncached, park.prefix);
  throw ApplicationFailure.create({
    type: LLM_PARKED,
    message: `${uncached.length} requests parked for the cell's next batch`,
    nonRetryable: true,
    details: [sets],
  });
}
