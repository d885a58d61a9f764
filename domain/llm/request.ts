/**
 * What one LLM call is, independent of who sends it: the endpoint, the exact request body and the
 * sample index. Its cache key is a hash of all three, so the same request for the same sample is
 * never paid for twice, while sample 3 and sample 4 of one task stay different calls.
 */
import { z } from 'zod';
import { BatchEndpointSchema } from './batchMode.js';

export const LlmApiSchema = z.enum(['chat', 'completions']);
export type LlmApi = z.infer<typeof LlmApiSchema>;

export const LlmEndpointSchema = z.object({
  /** Model id in the sweep config: names the task queue and the rate limiter. */
  id: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  api: LlmApiSchema,
  /** Name of the environment variable with the API key, read by the worker, never sent through Temporal. */
  apiKeyEnv: z.string().optional(),
  requestTimeoutS: z.number().positive(),
  /** The model's limits over all workers serving it; each worker takes its share (share.ts). */
  concurrency: z.int().positive().optional(),
  requestsPerSecond: z.number().positive().optional(),
  /**
   * Samples of one task asked for in one request (the API's `n`), where a method sends the same
   * prompt for several samples: the endpoint bills and computes the prompt once. Absent: one each.
   */
  samplesPerRequest: z.int().min(2).optional(),
  /** The model is answered in provider batches first (batchMode.ts); absent: live only. Not part of a call's identity. */
  batch: BatchEndpointSchema.optional(),
});
export type LlmEndpoint = z.infer<typeof LlmEndpointSchema>;

export const ChatMessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

const SamplingSchema = z.object({
  model: z.string(),
  temperature: z.number(),
  top_p: z.number(),
  max_tokens: z.number().int().positive(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  /** Choices asked for (absent: one); choice j answers the request's j-th sample. */
  n: z.int().min(2).optional(),
});
export const ChatBodySchema = SamplingSchema.extend({ messages: z.array(ChatMessageSchema).min(1) });
export const CompletionBodySchema = SamplingSchema.extend({ prompt: z.string() });
export type ChatBody = z.infer<typeof ChatBodySchema>;
export type CompletionBody = z.infer<typeof CompletionBodySchema>;
export type LlmBody = ChatBody | CompletionBody;

export interface LlmCall {
  endpoint: LlmEndpoint;
  body: LlmBody;
  sampleIndex: number;
  /**
   * Which of the request's choices answers this sample (0 when the body asks for one). The samples
   * of a request of n choices are n consecutive indices; the request's first is sampleIndex - choice.
   */
  choice?: number;
}

/** A response as the API's schema promises it; anything else is a malformed response. */
export const ChatResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int().nonnegative().optional(),
        message: z.object({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().optional().nullable(),
});
export const CompletionResponseSchema = z.object({
  choices: z
    .array(
      z.object({ index: z.number().int().nonnegative().optional(), text: z.string(), finish_reason: z.string().nullable().optional() }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().optional().nullable(),
});

/** What the cache holds for one call: enough to rebuild any report without asking the model again. */
export const LlmRecordSchema = z.object({
  key: z.string(),
  status: z.enum(['ok', 'error']),
  /** The model's text (choice content) — raw, before any code extraction. */
  text: z.string(),
  finishReason: z.string().nullable(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /**
   * HTTP requests for this call that the endpoint answered: this one, and earlier attempts answered
   * with a malformed body. A request of several choices counts once, with its tokens, on the first
   * sample it stored; its other samples carry 0. (Records stored before 2026-11-26 counted every
   * failed attempt here, those never answered or never sent too.)
   */
  calls: z.number().int().nonnegative(),
  /**
   * Attempts sent that brought no answer: timed out, the connection dropped after sending, or
   * refused for now (429, 408, 409, 5xx). Attempts that never reached the endpoint count nowhere.
   * Absent: none.
   */
  requestsUnanswered: z.number().int().positive().optional(),
  /** timeoutS: the request timed out that many seconds each time it was sent (see usableRecord). */
  error: z.object({ status: z.number().nullable(), message: z.string(), timeoutS: z.number().positive().optional() }).optional(),
  durationMs: z.number().nonnegative(),
  createdAt: z.string(),
  request: z.unknown(),
  response: z.unknown(),
  /** Answered in this provider batch (batch mode), not by a live request. Absent: live. */
  batchId: z.string().optional(),
});
export type LlmRecord = z.infer<typeof LlmRecordSchema>;

/**
 * Whether a cached record answers a request sent with this timeout: every record does, except one
 * that timed out with a shorter timeout than the one asked with now (a longer one may get an answer).
 */
export function usableRecord(record: Pick<LlmRecord, 'error'>, requestTimeoutS: number): boolean {
  const timedOutAt = record.error?.timeoutS;
  return timedOutAt === undefined || timedOutAt >= requestTimeoutS;
}

/**
 * Which of two records of one call a reader keeps: the first, unless it is a time-out and the second
 * is not one (an answer, or an error of the request itself) or timed out at a longer timeout.
 */
export function preferredRecord<R extends Pick<LlmRecord, 'status' | 'error'>>(first: R, second: R): R {
  const firstTimeout = first.error?.timeoutS;
  if (firstTimeout === undefined) return first;
  const secondTimeout = second.error?.timeoutS;
  return secondTimeout === undefined || secondTimeout > firstTimeout ? second : first;
}

/** What travels back through history: the key and a few numbers, never the text. */
export interface LlmCallSummary {
  key: string;
  status: 'ok' | 'error';
  cached: boolean;
  promptTokens: number;
  completionTokens: number;
  calls: number;
  /** LlmRecord.requestsUnanswered; absent: none. */
  requestsUnanswered?: number;
  /** A fresh error's message (status error, not cached), cut to 300 characters; absent otherwise. */
  error?: string;
  /** The answer was cut at max_tokens (finish_reason `length`); absent: it was not, or summaries from before. */
  cut?: true;
  /** Answered through the provider's Batch API (LlmRecord.batchId): its tokens cost the batch price. */
  batch?: true;
}

/** The finish reason of an answer cut at max_tokens (OpenAI's API, vLLM, llama.cpp). */
export const FINISH_LENGTH = 'length';

/**
 * What an LLM activity's heartbeats say while it runs: its samples answered so far (cached ones
 * too), how many of those were cut at max_tokens, and what they cost (LlmCallSummary's counts). The
 * live progress reads it from the running shards' pending activities, so a task of many samples
 * shows each answer as it comes.
 */
export const LlmHeartbeatSchema = z.object({
  answered: z.number().int().nonnegative(),
  cut: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type LlmHeartbeat = z.infer<typeof LlmHeartbeatSchema>;
