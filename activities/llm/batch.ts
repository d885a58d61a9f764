/**
 * Batch mode's activities on a model's LLM queue (its workers hold the API key): submit a request
 * set as a provider batch at most once, ask its state, store its answers in the LLM cache, cancel
 * it. The provider's batch id and a few counts travel through history; requests and answers stay
 * in S3 and the provider's files.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIError, toFile } from 'openai';
import { BatchOutputLineSchema, batchUrl, inputLine, isFinalBatchState, type BatchOutputLine } from '../../domain/llm/batchLines.js';
import type { LlmEndpoint } from '../../domain/llm/request.js';
import {
  holdForBatch,
  readPlan,
  releaseBatchHold,
  renewBatchHold,
  storeBatchAnswers,
  storeRequestSets,
  type RequestSet,
} from '../../infra/llm/batchPlan.js';
import { OpenAiClients } from '../../infra/llm/openaiClients.js';
import type { Bucket } from '../../infra/s3.js';

/** The metadata key naming a batch's request set and round: a restarted worker finds a batch it created by it. */
export const BATCH_SET_METADATA = 'explora_set';
export const batchSetTag = (setId: string, round: number) => `${setId}/r${round}`;

export interface SubmitBatchInput {
  endpoint: LlmEndpoint;
  set: RequestSet;
  /**
   * Which round of the workflow's batches this is: a batch that answered nothing leaves a set equal
   * to its own, and the next round's batch must be a new one.
   */
  round: number;
  sweepId: string;
  cellId: string;
  /** Batches created before this (epoch seconds) are not looked through: they are older than the asking workflow. */
  notBeforeS: number;
}

/** The set's batch; `batchId` null: nothing to send (the cache answers it all, or other activities ask the rest now). */
export interface SubmittedBatch {
  batchId: string | null;
  created: boolean;
}

export interface BatchStatus {
  batchId: string;
  status: string;
  total: number;
  completed: number;
  failed: number;
}

export interface CollectBatchInput {
  endpoint: LlmEndpoint;
  batchId: string;
  set: RequestSet;
  /** Where a request set of the requests left over is stored. */
  prefix: string;
}

export interface CollectedBatch {
  /** Samples of the set whose answer is now cached. */
  samples: number;
  /** Requests this batch answered (the cache had none of them). */
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** The requests no answer came for, as a request set; absent: none. */
  left?: RequestSet;
}

/** Uploads can be large and the provider slow to take them: at least this long per API call. */
const BATCH_API_TIMEOUT_S = 600;

/**
 * Heartbeats every few seconds while `work` runs (an upload or a download of up to 200 MB, a poll),
 * so a worker killed meanwhile is noticed within the heartbeat timeout, not the activity's timeout.
 */
async function beating<T>(work: () => Promise<T>): Promise<T> {
  const beat = setInterval(() => Context.current().heartbeat(), 5_000);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

function failureOf(endpoint: LlmEndpoint, what: string, err: unknown): unknown {
  if (err instanceof APIError && (err.status === 401 || err.status === 403 || err.status === 404))
    return ApplicationFailure.nonRetryable(
      `model ${endpoint.id}: ${endpoint.baseUrl} answered ${err.status} to ${what} (${err.message}); check the API key and that the provider serves /v1/files and /v1/batches`,
      'LlmConfigError',
    );
  return err;
}

export function createBatchActivities(bucket: Bucket, env: Record<string, string | undefined> = process.env) {
  const clients = new OpenAiClients(env);
  const clientFor = (endpoint: LlmEndpoint): OpenAI =>
    clients.for({ ...endpoint, requestTimeoutS: Math.max(endpoint.requestTimeoutS, BATCH_API_TIMEOUT_S) }, `model ${endpoint.id}`);

  async function outputLines(client: OpenAI, fileId: string | null | undefined, where: string): Promise<BatchOutputLine[]> {
    if (!fileId) return [];
    const text = await (await client.files.content(fileId)).text();
    const out: BatchOutputLine[] = [];
    for (const [i, raw] of text.split('\n').entries()) {
      if (raw.trim() === '') continue;
      const parsed = BatchOutputLineSchema.safeParse(JSON.parse(raw));
      // A line that is not one the API documents answers nothing: its request is left over.
      if (parsed.success) out.push(parsed.data);
      else console.warn(`${where} line ${i + 1}: not a batch output line (${parsed.error.issues[0]?.message}); its request is left over`);
    }
    return out;
  }

  async function submit(input: SubmitBatchInput): Promise<SubmittedBatch> {
    const { endpoint, set } = input;
    const client = clientFor(endpoint);
    const tag = batchSetTag(set.setId, input.round);
    try {
      for await (const b of client.batches.list({ limit: 100 })) {
        if (b.created_at < input.notBeforeS) break; // newest first: the rest are older still
        if (b.metadata?.[BATCH_SET_METADATA] === tag) {
          await renewBatchHold(bucket, endpoint, set);
          return { batchId: b.id, created: false };
        }
      }
      // Only what no one else asks now and the cache does not answer: a live sweep on the same grid pays for nothing twice.
      const plan = await holdForBatch(bucket, endpoint, set, await readPlan(bucket, set.planKey));
      if (plan.length === 0) {
        await releaseBatchHold(bucket, endpoint, set);
        return { batchId: null, created: false };
      }
      const text = plan.map((l) => inputLine(endpoint.api, l)).join('\n') + '\n';
      const file = await client.files.create({
        file: await toFile(Buffer.from(text), `explora-${set.setId}.jsonl`, { type: 'application/jsonl' }),
        purpose: 'batch',
      });
      const batch = await client.batches.create({
        input_file_id: file.id,
        endpoint: batchUrl(endpoint.api),
        completion_window: '24h',
        metadata: {
          [BATCH_SET_METADATA]: tag,
          explora_sweep: input.sweepId.slice(0, 512),
          explora_cell: input.cellId.slice(0, 512),
        },
      });
      return { batchId: batch.id, created: true };
    } catch (err) {
      throw failureOf(endpoint, 'a batch submission', err);
    }
  }

  async function collect(input: CollectBatchInput): Promise<CollectedBatch> {
    const { endpoint, batchId } = input;
    const client = clientFor(endpoint);
    try {
      const b = await client.batches.retrieve(batchId);
      if (!isFinalBatchState(b.status))
        throw ApplicationFailure.nonRetryable(`batch ${batchId} is ${b.status}, not finished: nothing to collect yet`, 'InvalidBatch');
      const lines = [
        ...(await outputLines(client, b.output_file_id, `batch ${batchId} output file`)),
        ...(await outputLines(client, b.error_file_id, `batch ${batchId} error file`)),
      ];
      const plan = await readPlan(bucket, input.set.planKey);
      const stored = await storeBatchAnswers(bucket, endpoint, plan, lines, batchId);
      const [left] = stored.left.length > 0 ? await storeRequestSets(bucket, endpoint, stored.left, input.prefix) : [];
      // Its answers are stored: live activities waiting for them read them now.
      await releaseBatchHold(bucket, endpoint, input.set);
      return {
        samples: stored.samples,
        requests: stored.requests,
        promptTokens: stored.promptTokens,
        completionTokens: stored.completionTokens,
        ...(left ? { left } : {}),
      };
    } catch (err) {
      throw failureOf(endpoint, `batch ${batchId}`, err);
    }
  }

  return {
    /**
     * Several cells' request sets of one model as request sets within its batch limits (fewer,
     * larger batches): their requests in order, each once (cells that send a byte-identical request
     * share its cache identity, so its custom_id too, and one answer serves them all).
     */
    async poolRequestSets(input: { endpoint: LlmEndpoint; sets: RequestSet[]; prefix: string }): Promise<RequestSet[]> {
      const seen = new Set<string>();
      const plan = [];
      for (const set of input.sets) {
        Context.current().heartbeat();
        for (const line of await readPlan(bucket, set.planKey)) {
          if (seen.has(line.custom_id)) continue;
          seen.add(line.custom_id);
          plan.push(line);
        }
      }
      return storeRequestSets(bucket, input.endpoint, plan, input.prefix);
    },

    /**
     * The set's batch: one the provider already has for it (its metadata names the set: created by
     * an attempt that crashed before reporting it), else a new one from an uploaded input file.
     */
    async submitBatch(input: SubmitBatchInput): Promise<SubmittedBatch> {
      return beating(() => submit(input));
    },

    /** The batch's state; renews the hold on its requests (`set`; absent in workflows from before holds). */
    async pollBatch(input: { endpoint: LlmEndpoint; batchId: string; set?: RequestSet }): Promise<BatchStatus> {
      return beating(async () => {
        try {
          if (input.set) await renewBatchHold(bucket, input.endpoint, input.set);
          const b = await clientFor(input.endpoint).batches.retrieve(input.batchId);
          return {
            batchId: b.id,
            status: b.status,
            total: b.request_counts?.total ?? 0,
            completed: b.request_counts?.completed ?? 0,
            failed: b.request_counts?.failed ?? 0,
          };
        } catch (err) {
          throw failureOf(input.endpoint, `batch ${input.batchId}`, err);
        }
      });
    },

    /** Stores a finished batch's answers in the LLM cache; the requests it left are a new request set. */
    async collectBatch(input: CollectBatchInput): Promise<CollectedBatch> {
      return beating(() => collect(input));
    },
    /** Asks the provider to stop a batch (a cancelled sweep, or live_after_s passed); one already finished is left as it is. */
    async cancelBatch(input: { endpoint: LlmEndpoint; batchId: string }): Promise<void> {
      return beating(async () => {
        try {
          await clientFor(input.endpoint).batches.cancel(input.batchId);
        } catch (err) {
          // Finished meanwhile (the provider refuses to cancel it): nothing to stop.
          if (err instanceof APIError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429) return;
          throw err;
        }
      });
    },
  };
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;
