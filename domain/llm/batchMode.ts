/**
 * Batch mode (`models[i].batch` in the sweep config): a model whose requests are answered through
 * the provider's Batch API (`/v1/files` + `/v1/batches`) at its batch price, before the live path
 * sends what is left. The config's shape (snake_case, as in the file) and the settings an endpoint
 * carries through the workflows (camelCase), with OpenAI's limits as defaults.
 */
import { z } from 'zod';
import { PriceSchema, type Price } from '../sweep/price.js';

/** OpenAI's limits on one batch input file. */
export const BATCH_MAX_REQUESTS = 50_000;
export const BATCH_MAX_BYTES = 200 * 1024 * 1024;

export const BATCH_KEYS = ['price', 'max_requests', 'max_bytes', 'live_after_s', 'retry_rounds', 'poll_s', 'max_poll_s', 'gather'] as const;

export const BatchModeConfigSchema = z
  .strictObject({
    /** What the model's tokens cost when answered in batches (needs the model's `price` too: the same currency). */
    price: PriceSchema.optional(),
    max_requests: z.int().min(1).max(BATCH_MAX_REQUESTS).default(BATCH_MAX_REQUESTS),
    max_bytes: z.int().min(1024).max(BATCH_MAX_BYTES).default(BATCH_MAX_BYTES),
    /** Waited this long for a batch, the sweep cancels it, keeps what it answered and sends the rest live. Absent: wait for the provider. */
    live_after_s: z
      .number()
      .positive()
      .max(30 * 86_400)
      .optional(),
    /** Batches of the requests a batch left unanswered (failed, expired); what is left after them goes live. */
    retry_rounds: z.int().min(0).max(10).default(1),
    /** The first wait before asking a batch's state; it doubles up to max_poll_s. */
    poll_s: z.number().min(0.1).max(3600).default(30),
    max_poll_s: z.number().min(0.1).max(86_400).default(600),
    /**
     * What one batch gathers: a cell's requests (each cell its batches, its shards start when they
     * are done), or those of every cell of the model in the sweep (fewer, larger batches; every
     * cell of the model waits for all of them).
     */
    gather: z.enum(['cell', 'model']).default('cell'),
  })
  .refine((b) => b.max_poll_s >= b.poll_s, { message: 'max_poll_s must be at least poll_s', path: ['max_poll_s'] });

export type BatchModeConfig = z.infer<typeof BatchModeConfigSchema>;

/** What a cell's endpoint carries of its model's batch mode (the price stays with the sweep's prices). */
export const BatchEndpointSchema = z.object({
  maxRequests: z.int().positive(),
  maxBytes: z.int().positive(),
  liveAfterS: z.number().positive().optional(),
  retryRounds: z.int().min(0),
  pollS: z.number().positive(),
  maxPollS: z.number().positive(),
  /** The sweep gathers the model's cells' requests (absent: each cell its own). */
  gather: z.literal('model').optional(),
});
export type BatchEndpoint = z.infer<typeof BatchEndpointSchema>;

export function batchEndpointOf(b: BatchModeConfig): BatchEndpoint {
  return {
    maxRequests: b.max_requests,
    maxBytes: b.max_bytes,
    ...(b.live_after_s !== undefined ? { liveAfterS: b.live_after_s } : {}),
    retryRounds: b.retry_rounds,
    pollS: b.poll_s,
    maxPollS: b.max_poll_s,
    ...(b.gather === 'model' ? { gather: 'model' as const } : {}),
  };
}

/**
 * The price a model's tokens are counted at: its batch price in batch mode (most of its requests
 * are answered in batches; what is left for the live path is counted at it too), else its price.
 */
export function effectivePrice(model: { price?: Price; batch?: { price?: Price } }): Price | undefined {
  return model.batch?.price ?? model.price;
}

/**
 * The method kinds batch mode answers with one round of requests, known before any answer (rag's
 * retrieval comes first and depends on no answer): a cell's batch phase prepares them all.
 */
export const BATCH_METHOD_KINDS: readonly string[] = ['direct', 'rag'];

/**
 * The multi-round kinds batch mode answers round by round: their task chains park each step's
 * requests and their cell's round collector sends each round as a batch (workflows/batchRounds.ts).
 */
export const BATCH_ROUND_KINDS: readonly string[] = ['self-repair', 'capir', 'exploracoder'];
