/**
 * The LLM queue of a multi-round cell in batch mode, in memory: a method's stub steps answer their
 * requests through `answer`, which parks those not cached as the real steps do in parking mode
 * (infra/llm/parking.ts: an LlmParked failure carrying their set) and sends them live otherwise;
 * the batch activities pool the parked sets of a round, submit them, and on collect cache their
 * requests. What each round held, what was batched and what went live are recorded. Beside it,
 * the batch settings and the multi-round cell the batch workflow tests share.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { BatchStatus, CollectBatchInput, CollectedBatch, SubmitBatchInput, SubmittedBatch } from '../../activities/llm/batch.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import type { RequestSet } from '../../infra/llm/batchPlan.js';
import type { BatchEndpoint } from '../../domain/llm/batchMode.js';
import { MethodOptionsSchema } from '../../domain/methods/options.js';
import type { CellInput, SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from '../support/config.js';
import { cellInput, directCell } from './stubs.js';

/** What a parking step's input carries beside its own fields (workflows/roundParking.ts adds it). */
export type Parking = { parkRequests?: { prefix: string; after: string[] } };

/** The cost of one stub answer, as the method steps report it. */
export const STEP_COST = { calls: 1, prompt_tokens: 5, completion_tokens: 2, sandbox_runs: 0 };

/** One stub answer per request id, as a step answering several samples returns them. */
export const summariesOf = (ids: string[]): LlmCallSummary[] =>
  ids.map((key) => ({ key, status: 'ok', cached: true, promptTokens: 5, completionTokens: 2, calls: 1 }));

export function stubParking() {
  const cached = new Set<string>();
  const pooled = new Map<string, string[]>();
  const parkedSets = new Map<string, string[]>();
  /** Each round's pooled requests, in the order the collector pooled them. */
  const rounds: string[][] = [];
  const batched: string[] = [];
  const sentLive: string[] = [];
  const log: string[] = [];
  let parks = 0;
  /** Answers a step's requests, or parks those not cached (as parkOrSend does when asked to park). */
  const answer = (ids: string[], input: Parking) => {
    const missing = ids.filter((id) => !cached.has(id));
    if (missing.length && input.parkRequests) {
      const setId = `p${++parks}`;
      parkedSets.set(setId, missing);
      throw ApplicationFailure.create({
        type: 'LlmParked',
        nonRetryable: true,
        message: 'parked',
        details: [[{ planKey: `${input.parkRequests.prefix}${setId}`, setId, requests: missing.length, samples: missing.length }]],
      });
    }
    for (const id of missing) {
      sentLive.push(id);
      cached.add(id);
    }
  };
  const batch = {
    async poolRequestSets(input: { sets: RequestSet[]; prefix: string }): Promise<RequestSet[]> {
      const ids = [...new Set(input.sets.flatMap((s) => parkedSets.get(s.setId)!))];
      const setId = `pool${pooled.size + 1}`;
      pooled.set(setId, ids);
      rounds.push([...ids].sort());
      log.push(`pool ${input.prefix} ${ids.length}`);
      return [{ planKey: `${input.prefix}${setId}`, setId, requests: ids.length, samples: ids.length }];
    },
    async submitBatch(input: SubmitBatchInput): Promise<SubmittedBatch> {
      log.push(`submit ${input.set.setId}`);
      return { batchId: `batch_${input.set.setId}`, created: true };
    },
    async pollBatch(input: { batchId: string }): Promise<BatchStatus> {
      return { batchId: input.batchId, status: 'completed', total: 1, completed: 1, failed: 0 };
    },
    async collectBatch(input: CollectBatchInput): Promise<CollectedBatch> {
      const ids = pooled.get(input.set.setId)!;
      for (const id of ids) {
        batched.push(id);
        cached.add(id);
      }
      return { samples: ids.length, requests: ids.length, promptTokens: 5 * ids.length, completionTokens: 2 * ids.length };
    },
  };
  return { answer, batch, cached, rounds, batched, sentLive, log };
}

/** Batch settings of the workflow tests: a batch polled every 50 to 200 ms. */
export const BATCH_SETTINGS: BatchEndpoint = { maxRequests: 100, maxBytes: 1 << 20, retryRounds: 1, pollS: 0.05, maxPollS: 0.2 };

/**
 * How long the round collectors of these tests wait for their chains to stay still before sending
 * a round (the product waits 1 s). The stubs answer at once, so a shard's chains all say they
 * started well within it.
 */
export const ROUND_SETTLE_MS = 250;

/** A cell of a multi-round `method` in batch mode on a chat endpoint (`options`: its method options). */
export function roundsCell(method: string, queues: SweepQueues, shape: Partial<CellInput> & { options?: object } = {}): CellInput {
  const base = directCell();
  const { options, ...rest } = shape;
  return cellInput(`wft-cell-${uniqueSuffix()}`, queues, {
    cell: { ...base, id: `ds.m.${method}.t0`, method, endpoint: { ...base.endpoint, api: 'chat' as const, batch: BATCH_SETTINGS } },
    libraryKey: 'lib-key',
    methodOptions: MethodOptionsSchema.parse(options ?? {}),
    roundSettleMs: ROUND_SETTLE_MS,
    ...rest,
  });
}
