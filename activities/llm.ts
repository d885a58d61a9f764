/**
 * LLM-queue activities: calls to any OpenAI-compatible endpoint through the `openai` SDK with its
 * own retries off — Temporal owns retrying (429 after Retry-After, 5xx/timeouts with backoff); other
 * 4xx are recorded, not retried. Every answer is cached in S3 (llmCache.ts) before the activity
 * reports it, so a retried batch, a restarted worker or a repeated sweep never sends a finished
 * request again.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIError } from 'openai';
import {
  ChatResponseSchema,
  CompletionResponseSchema,
  type LlmBody,
  type LlmCallSummary,
  type LlmEndpoint,
  type LlmRecord,
} from '../domain/llm/request.js';
import { throttledHeartbeat } from './heartbeat.js';
import { callGroup, callIdentity, failuresKey, GroupWriter, readGroup, readLlmRecordAt, type GroupContents } from './llmCache.js';
import { getText, putObject, type Bucket } from './storage/s3.js';

export interface LlmBatch {
  endpoint: LlmEndpoint;
  calls: Array<{ body: LlmBody; sampleIndex: number }>;
  /** Requests of this batch in flight at once. */
  concurrency?: number;
}

/** After this many malformed answers to one request, it is recorded as an error instead of retried. */
const MALFORMED_ATTEMPTS = 5;
/** Answers received but not yet stored, per group, before the batch waits for storage to catch up. */
const MAX_UNSTORED = 64;

class RetryableLlmError extends Error {
  constructor(
    readonly kind: 'RateLimited' | 'LlmUnavailable' | 'LlmMalformedResponse',
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Spaces request starts per endpoint within this process (a per-worker limit; see README). */
class StartSpacer {
  private next = new Map<string, number>();
  async wait(id: string, perSecond: number | undefined): Promise<void> {
    if (!perSecond) return;
    const now = Date.now();
    const at = Math.max(now, this.next.get(id) ?? 0);
    this.next.set(id, at + 1000 / perSecond);
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}

/**
 * The answer is paid for: storing it is retried inside the activity for a while (S3 restarting),
 * because failing the activity now would send the same request again on retry.
 */
async function putPatiently(bucket: Bucket, key: string, body: string): Promise<void> {
  const deadline = Date.now() + 5 * 60_000;
  for (let delay = 250; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      await putObject(bucket, key, body, { contentType: 'application/json' });
      return;
    } catch (err) {
      if (Date.now() + delay > deadline) throw err;
      Context.current().heartbeat();
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export function createLlmActivities(bucket: Bucket, env: Record<string, string | undefined> = process.env) {
  const clients = new Map<string, OpenAI>();
  const spacer = new StartSpacer();

  function clientFor(endpoint: LlmEndpoint): OpenAI {
    const apiKey = endpoint.apiKeyEnv ? env[endpoint.apiKeyEnv] : 'unused';
    if (apiKey === undefined || apiKey === '') {
      throw ApplicationFailure.nonRetryable(`model ${endpoint.id}: the worker has no ${endpoint.apiKeyEnv} in its environment`, 'LlmConfigError');
    }
    const id = `${endpoint.baseUrl}\0${apiKey}\0${endpoint.requestTimeoutS}`;
    let client = clients.get(id);
    if (!client) {
      client = new OpenAI({ baseURL: endpoint.baseUrl, apiKey, maxRetries: 0, timeout: endpoint.requestTimeoutS * 1000 });
      clients.set(id, client);
    }
    return client;
  }

  async function send(endpoint: LlmEndpoint, body: LlmBody): Promise<{ response: unknown; text: string; finishReason: string | null; promptTokens: number; completionTokens: number }> {
    const client = clientFor(endpoint);
    let response: unknown;
    try {
      response =
        endpoint.api === 'chat'
          ? await client.chat.completions.create({ ...(body as OpenAI.ChatCompletionCreateParamsNonStreaming), n: 1, stream: false })
          : await client.completions.create({ ...(body as OpenAI.CompletionCreateParamsNonStreaming), n: 1, stream: false });
    } catch (err) {
      if (err instanceof APIError) {
        const status = err.status;
        if (status === 429) throw new RetryableLlmError('RateLimited', `429 from ${endpoint.id}: ${err.message}`, retryAfterMs(err.headers as Headers | undefined));
        if (status === undefined || status >= 500 || status === 408 || status === 409) {
          throw new RetryableLlmError('LlmUnavailable', `${status ?? 'connection error'} from ${endpoint.id}: ${err.message}`);
        }
        throw err; // other 4xx: the caller records it
      }
      // A body that is not JSON surfaces as a parse error from the SDK.
      throw new RetryableLlmError('LlmMalformedResponse', `malformed response from ${endpoint.id}: ${(err as Error).message}`);
    }
    if (endpoint.api === 'chat') {
      const parsed = ChatResponseSchema.safeParse(response);
      if (!parsed.success) throw new RetryableLlmError('LlmMalformedResponse', `malformed chat response from ${endpoint.id}: ${parsed.error.message}`);
      const choice = parsed.data.choices[0]!;
      return { response, text: choice.message.content ?? '', finishReason: choice.finish_reason ?? null, promptTokens: parsed.data.usage?.prompt_tokens ?? 0, completionTokens: parsed.data.usage?.completion_tokens ?? 0 };
    }
    const parsed = CompletionResponseSchema.safeParse(response);
    if (!parsed.success) throw new RetryableLlmError('LlmMalformedResponse', `malformed completion response from ${endpoint.id}: ${parsed.error.message}`);
    const choice = parsed.data.choices[0]!;
    return { response, text: choice.text, finishReason: choice.finish_reason ?? null, promptTokens: parsed.data.usage?.prompt_tokens ?? 0, completionTokens: parsed.data.usage?.completion_tokens ?? 0 };
  }

  async function one(
    endpoint: LlmEndpoint,
    call: { body: LlmBody; sampleIndex: number },
    store: { group: string; found: GroupContents; writer: GroupWriter },
  ): Promise<LlmCallSummary> {
    const identity = callIdentity({ endpoint, ...call });
    const cached = store.found.records.get(identity);
    if (cached) return { key: cached.key, status: cached.status, cached: true, promptTokens: cached.promptTokens, completionTokens: cached.completionTokens, calls: cached.calls };
    // Failed requests of earlier attempts, so `calls` counts every request that was paid for.
    let failures = 0;
    if (store.found.failures.has(identity)) failures = Number(await getText(bucket, failuresKey(store.group, identity))) || 0;
    // Answers wait in memory only briefly: when storing them falls behind (S3 slow or down), stop
    // asking for more until it catches up (or fail, if it cannot).
    if (store.writer.pending >= MAX_UNSTORED || store.writer.failed) await store.writer.drain();
    await spacer.wait(endpoint.id, endpoint.requestsPerSecond);
    const started = Date.now();
    const request = { base_url: endpoint.baseUrl, api: endpoint.api, sample_index: call.sampleIndex, body: call.body };
    let record: Omit<LlmRecord, 'key'>;
    // Heartbeat while the model thinks, so a dead worker is noticed in seconds, not after a
    // whole request timeout.
    const beat = setInterval(() => Context.current().heartbeat(), 5_000);
    try {
      const r = await send(endpoint, call.body).finally(() => clearInterval(beat));
      record = { status: 'ok', text: r.text, finishReason: r.finishReason, promptTokens: r.promptTokens, completionTokens: r.completionTokens, calls: failures + 1, durationMs: Date.now() - started, createdAt: new Date().toISOString(), request, response: r.response };
    } catch (err) {
      const malformedTooOften = err instanceof RetryableLlmError && err.kind === 'LlmMalformedResponse' && Context.current().info.attempt >= MALFORMED_ATTEMPTS;
      if (err instanceof RetryableLlmError && !malformedTooOften) {
        await putObject(bucket, failuresKey(store.group, identity), String(failures + 1));
        throw err;
      }
      const status = err instanceof APIError ? (err.status ?? null) : null;
      record = { status: 'error', text: '', finishReason: null, promptTokens: 0, completionTokens: 0, calls: failures + 1, error: { status, message: (err as Error).message }, durationMs: Date.now() - started, createdAt: new Date().toISOString(), request, response: null };
    }
    const key = store.writer.add(identity, record);
    return { key, status: record.status, cached: false, promptTokens: record.promptTokens, completionTokens: record.completionTokens, calls: record.calls };
  }

  return {
    /**
     * Sends a batch of calls (cached ones are not sent), `concurrency` at a time (default one after
     * another: the worker's concurrent activities are the model's concurrency). Answers are stored
     * while the next calls go out, and all of them before the activity reports. When some fail in a
     * retryable way, the others still finish and are stored; then the activity fails so Temporal
     * retries it — after the server's Retry-After for a 429.
     */
    async callLlm(batch: LlmBatch): Promise<LlmCallSummary[]> {
      const groups = batch.calls.map((c) => callGroup({ endpoint: batch.endpoint, ...c }));
      const stores = new Map<string, { group: string; found: GroupContents; writer: GroupWriter }>();
      await Promise.all(
        [...new Set(groups)].map(async (group) => {
          stores.set(group, { group, found: await readGroup(bucket, group), writer: new GroupWriter(group, (key, body) => putPatiently(bucket, key, body)) });
        }),
      );
      const out = new Array<LlmCallSummary | undefined>(batch.calls.length);
      const heartbeat = throttledHeartbeat();
      let retryable: RetryableLlmError | undefined;
      let next = 0;
      const lanes = Array.from({ length: Math.min(batch.concurrency ?? 1, batch.calls.length) }, async () => {
        while (next < batch.calls.length) {
          const i = next++;
          try {
            out[i] = await one(batch.endpoint, batch.calls[i]!, stores.get(groups[i]!)!);
            heartbeat();
          } catch (err) {
            if (!(err instanceof RetryableLlmError)) throw err;
            if (!retryable || (err.retryAfterMs ?? 0) > (retryable.retryAfterMs ?? 0)) retryable = err;
          }
        }
      });
      const settled = await Promise.allSettled(lanes);
      // Whatever happened, the answers received are paid for: store them before reporting anything.
      await Promise.all([...stores.values()].map((s) => s.writer.drain()));
      for (const s of settled) if (s.status === 'rejected') throw s.reason;
      if (retryable) {
        throw ApplicationFailure.create({
          type: retryable.kind,
          message: retryable.message,
          nextRetryDelay: retryable.retryAfterMs !== undefined ? Math.max(1, Math.ceil(retryable.retryAfterMs)) : undefined,
        });
      }
      return out as LlmCallSummary[];
    },

    /** The cached record of one call (for activities that build records and reports). */
    async readLlmRecord(key: string): Promise<LlmRecord | null> {
      return readLlmRecordAt(bucket, key);
    },
  };
}

export type LlmActivities = ReturnType<typeof createLlmActivities>;
