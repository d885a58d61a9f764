/**
 * The lines of a provider batch (OpenAI's Batch API): the plan of a request set as explora stores it
 * (each request with the cache identities of the samples it answers), the input file's lines made
 * from it, its cut into files within the provider's limits, and the output file's lines read back.
 * A request's `custom_id` is the cache identity of its first sample: deterministic, so a batch
 * created by a worker that crashed before recording it is recognised by its requests.
 */
import { z } from 'zod';
import { ChatResponseSchema, CompletionResponseSchema, type LlmApi, type LlmBody } from './request.js';

/** One request of a request set: what is sent, and which samples (cache identities) its choices answer. */
export const BatchPlanLineSchema = z.object({
  custom_id: z.string().min(1),
  body: z.record(z.string(), z.unknown()),
  /** The cache group (infra/llm/cache.ts callGroup) of its samples. */
  group: z.string(),
  /** members[j] answers choice j. */
  members: z.array(z.object({ identity: z.string(), sampleIndex: z.int().nonnegative() })).min(1),
});
export type BatchPlanLine = z.infer<typeof BatchPlanLineSchema>;

/** The Batch API's endpoint for an API. */
export function batchUrl(api: LlmApi): '/v1/chat/completions' | '/v1/completions' {
  return api === 'chat' ? '/v1/chat/completions' : '/v1/completions';
}

/** The input file's line of a planned request. */
export function inputLine(api: LlmApi, plan: Pick<BatchPlanLine, 'custom_id' | 'body'>): string {
  return JSON.stringify({ custom_id: plan.custom_id, method: 'POST', url: batchUrl(api), body: plan.body });
}

const utf8 = new TextEncoder();

/**
 * The plan cut into request sets whose input files keep within `maxRequests` lines and `maxBytes`
 * bytes, in order. A request alone over `maxBytes` cannot be sent in a batch at all: an error naming it.
 */
export function splitPlan<T extends Pick<BatchPlanLine, 'custom_id' | 'body'>>(
  api: LlmApi,
  plan: readonly T[],
  limits: { maxRequests: number; maxBytes: number },
): T[][] {
  const sets: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const line of plan) {
    const size = utf8.encode(inputLine(api, line)).length + 1;
    if (size > limits.maxBytes)
      throw new Error(
        `batch request ${line.custom_id} is ${size} bytes, over max_bytes ${limits.maxBytes}: raise models[i].batch.max_bytes`,
      );
    if (current.length > 0 && (current.length >= limits.maxRequests || bytes + size > limits.maxBytes)) {
      sets.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += size;
  }
  if (current.length > 0) sets.push(current);
  return sets;
}

/** A line of a batch's output or error file, as OpenAI documents it. */
export const BatchOutputLineSchema = z.object({
  id: z.string().optional(),
  custom_id: z.string(),
  response: z.object({ status_code: z.int(), request_id: z.string().optional(), body: z.unknown() }).nullable().optional(),
  error: z.object({ code: z.string().nullable().optional(), message: z.string().nullable().optional() }).nullable().optional(),
});
export type BatchOutputLine = z.infer<typeof BatchOutputLineSchema>;

/** What one answered line brought: text and finish reason per choice (undefined: left out), and tokens. */
export interface BatchAnswer {
  choices: Array<{ text: string; finishReason: string | null } | undefined>;
  promptTokens: number;
  completionTokens: number;
  response: unknown;
}

/**
 * The answer of a line that came back 200 with a body the API's schema promises; null for any
 * other line (an error, a malformed body): its samples are left for the next round or the live path.
 */
export function batchAnswerOf(api: LlmApi, body: LlmBody | Record<string, unknown>, line: BatchOutputLine): BatchAnswer | null {
  if (!line.response || line.response.status_code !== 200) return null;
  const parsed = api === 'chat' ? ChatResponseSchema.safeParse(line.response.body) : CompletionResponseSchema.safeParse(line.response.body);
  if (!parsed.success) return null;
  const n = typeof body.n === 'number' ? body.n : 1;
  const choices = new Array<BatchAnswer['choices'][number]>(n);
  for (const [position, c] of parsed.data.choices.entries()) {
    const index = c.index ?? position;
    if (index >= n || choices[index]) return null;
    choices[index] = { text: 'text' in c ? c.text : (c.message.content ?? ''), finishReason: c.finish_reason ?? null };
  }
  const usage = parsed.data.usage;
  return {
    choices,
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    response: line.response.body,
  };
}

/** Provider batch states (OpenAI's); the last four are final. */
export const BATCH_STATES = [
  'validating',
  'in_progress',
  'finalizing',
  'cancelling',
  'completed',
  'expired',
  'failed',
  'cancelled',
] as const;
export type BatchState = (typeof BATCH_STATES)[number];
export const isFinalBatchState = (s: string): boolean => s === 'completed' || s === 'expired' || s === 'failed' || s === 'cancelled';
