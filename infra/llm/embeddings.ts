/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint through the `openai` SDK with its own
 * retries off (Temporal owns retrying: 429 and 5xx/timeouts are retryable, other 4xx are not).
 * Every vector is cached in S3 under a hash of (base URL, model, text), so a corpus is embedded
 * once ever and a retried activity only sends what is still missing. Texts being embedded right now
 * are entered in the endpoint's in-flight ledger (inflightLedger.ts), so another worker asking for
 * them meanwhile waits for their vectors instead of paying for them again.
 */
import { randomBytes } from 'node:crypto';
import { asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { indexText } from '../../domain/apidocs/corpus.js';
import type { RetrievedApi } from '../../domain/apidocs/bm25.js';
import { cosineTopK } from '../../domain/apidocs/dense.js';
import type { ApiDoc } from '../../domain/apidocs/library.js';
import { canonicalJson } from '../../domain/datasets/manifest.js';
import { LEASE_MS } from '../../domain/llm/inflight.js';
import { activityHolderName, InflightEntry } from './inflightLedger.js';
import { mapLimit } from '../mapLimit.js';
import { OpenAiClients } from './openaiClients.js';
import { getText, putObject, sha256Hex, type Bucket } from '../s3.js';

export const EmbeddingEndpointSchema = z.strictObject({
  /** e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1),
  /** Name of the environment variable with the API key, read by the worker, never sent through Temporal. */
  apiKeyEnv: z.string().min(1).optional(),
  requestTimeoutS: z.number().positive(),
});
export type EmbeddingEndpoint = z.infer<typeof EmbeddingEndpointSchema>;

/** Inputs per request: OpenAI accepts far more, but small local servers choke on large batches. */
export const EMBEDDING_BATCH_SIZE = 64;
/** S3 requests in flight at once while reading or writing cached vectors. */
const S3_CONCURRENCY = 16;

const EmbeddingResponseSchema = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().nonnegative() })),
});

const CachedEmbeddingSchema = z.object({
  base_url: z.string(),
  model: z.string(),
  text: z.string(),
  embedding: z.array(z.number()).min(1),
});

export function embeddingCacheKey(endpoint: Pick<EmbeddingEndpoint, 'baseUrl' | 'model'>, text: string): string {
  return `embeddings/${sha256Hex(canonicalJson({ base_url: endpoint.baseUrl, model: endpoint.model, text }))}.json`;
}

/** The in-flight ledger of one endpoint's embeddings: the texts (by cache key) being embedded right now, and by whom. */
export function embeddingLedgerKey(endpoint: Pick<EmbeddingEndpoint, 'baseUrl' | 'model'>): string {
  return `embeddings/inflight/${sha256Hex(canonicalJson({ base_url: endpoint.baseUrl, model: endpoint.model }))}.json`;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failure reaches every call that waits on it; with none waiting it must not count as unhandled.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Heartbeats when called inside an activity (a long corpus must not look like a dead worker); a no-op in scripts and tests. */
function heartbeat(): void {
  asyncLocalStorage.getStore()?.heartbeat();
}

/** Inside an activity, a sleep that a cancellation interrupts. */
function pause(ms: number): Promise<void> {
  const context = asyncLocalStorage.getStore();
  return context ? context.sleep(ms) : new Promise((r) => setTimeout(r, ms));
}

/**
 * The name one embed call holds texts under in the ledger. Inside an activity it is the same for
 * every attempt asking for the same texts, so a retry after a crash takes its own texts over at
 * once; different activities, and different calls of one (they ask for different texts: equal
 * ones never reach the ledger twice, see `inFlight`), get different names. Outside activities
 * (scripts, tests), `processName` keeps one client's calls apart from another's.
 */
function embedHolder(processName: string, keys: readonly string[]): string {
  const info = asyncLocalStorage.getStore()?.info;
  const base = info ? activityHolderName(info) : processName;
  return `${base}/embed/${sha256Hex([...keys].sort().join('\n')).slice(0, 16)}`;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function classify(err: unknown, endpoint: EmbeddingEndpoint): Error {
  const where = `embeddings ${endpoint.model} at ${endpoint.baseUrl}`;
  if (err instanceof APIError) {
    const status = err.status;
    if (status === 429) {
      const delay = retryAfterMs(err.headers as Headers | undefined);
      return ApplicationFailure.create({
        type: 'RateLimited',
        message: `429 from ${where}: ${err.message}`,
        nextRetryDelay: delay !== undefined ? Math.max(1, Math.ceil(delay)) : undefined,
      });
    }
    if (status === undefined || status >= 500 || status === 408 || status === 409) {
      return ApplicationFailure.retryable(`${status ?? 'connection error'} from ${where}: ${err.message}`, 'EmbeddingUnavailable');
    }
    return ApplicationFailure.nonRetryable(`${status} from ${where}: ${err.message}`, 'EmbeddingRequestError');
  }
  // A body that is not JSON surfaces as a parse error from the SDK: a server having a bad moment.
  return ApplicationFailure.retryable(`malformed response from ${where}: ${(err as Error).message}`, 'EmbeddingMalformedResponse');
}

export interface EmbeddingClient {
  /** One vector per text, in order; cached texts are not sent. */
  embed(endpoint: EmbeddingEndpoint, texts: readonly string[]): Promise<number[][]>;
}

export function createEmbeddingClient(bucket: Bucket, env: Record<string, string | undefined> = process.env): EmbeddingClient {
  const clients = new OpenAiClients(env);
  const clientFor = (endpoint: EmbeddingEndpoint): OpenAI => clients.for(endpoint, `embeddings ${endpoint.model}`);

  async function readCached(endpoint: EmbeddingEndpoint, text: string): Promise<number[] | null> {
    const body = await getText(bucket, embeddingCacheKey(endpoint, text));
    if (body === null) return null;
    // A damaged or foreign object is only a cache miss: embedding again overwrites it.
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return null;
    }
    const parsed = CachedEmbeddingSchema.safeParse(json);
    if (!parsed.success || parsed.data.text !== text || parsed.data.model !== endpoint.model || parsed.data.base_url !== endpoint.baseUrl)
      return null;
    return parsed.data.embedding;
  }

  async function request(endpoint: EmbeddingEndpoint, batch: string[]): Promise<number[][]> {
    const client = clientFor(endpoint);
    let response: unknown;
    try {
      // 'float' explicitly: without it the SDK asks for base64, which many compatible servers lack.
      response = await client.embeddings.create({ model: endpoint.model, input: batch, encoding_format: 'float' });
    } catch (err) {
      throw classify(err, endpoint);
    }
    const where = `embeddings ${endpoint.model} at ${endpoint.baseUrl}`;
    const parsed = EmbeddingResponseSchema.safeParse(response);
    if (!parsed.success)
      throw ApplicationFailure.retryable(`malformed response from ${where}: ${parsed.error.message}`, 'EmbeddingMalformedResponse');
    const vectors = new Array<number[] | undefined>(batch.length);
    for (const item of parsed.data.data) {
      if (item.index >= batch.length || vectors[item.index]) {
        throw ApplicationFailure.retryable(
          `malformed response from ${where}: index ${item.index} out of range or repeated for ${batch.length} inputs`,
          'EmbeddingMalformedResponse',
        );
      }
      vectors[item.index] = item.embedding;
    }
    const dims = new Set(vectors.map((v) => v?.length));
    if (vectors.includes(undefined) || dims.size !== 1 || dims.has(0)) {
      throw ApplicationFailure.retryable(
        `malformed response from ${where}: expected ${batch.length} vectors of one non-zero length, got ${parsed.data.data.length} of lengths ${[...dims].join(', ')}`,
        'EmbeddingMalformedResponse',
      );
    }
    return vectors as number[][];
  }

  /**
   * Vectors being read or embedded by some call of this worker, by cache key. Activities of one
   * worker often ask for the same corpus at once (every task of a shard retrieves from one
   * library); the later ones wait for the first instead of embedding it again.
   */
  const inFlight = new Map<string, Promise<number[]>>();
  /** This client's name in ledgers when it is used outside an activity. */
  const processName = `process/${process.pid}/${randomBytes(6).toString('hex')}`;

  async function embedAndStore(endpoint: EmbeddingEndpoint, texts: string[], claims: Map<string, Deferred<number[]>>): Promise<void> {
    for (let start = 0; start < texts.length; start += EMBEDDING_BATCH_SIZE) {
      const batch = texts.slice(start, start + EMBEDDING_BATCH_SIZE);
      const vectors = await request(endpoint, batch);
      // Stored before the next request, so a failure later in the corpus keeps what was paid for.
      await mapLimit(batch, S3_CONCURRENCY, (text, i) =>
        putObject(
          bucket,
          embeddingCacheKey(endpoint, text),
          JSON.stringify({ base_url: endpoint.baseUrl, model: endpoint.model, text, embedding: vectors[i] }),
          {
            contentType: 'application/json',
          },
        ),
      );
      batch.forEach((t, i) => claims.get(t)!.resolve(vectors[i]!));
      heartbeat();
    }
  }

  /** Settles the claims of the cached ones among `texts`; returns the others. */
  async function settleCached(endpoint: EmbeddingEndpoint, texts: string[], claims: Map<string, Deferred<number[]>>): Promise<string[]> {
    const cached = await mapLimit(texts, S3_CONCURRENCY, (t) => readCached(endpoint, t));
    const missing: string[] = [];
    texts.forEach((t, i) => (cached[i] ? claims.get(t)!.resolve(cached[i]!) : missing.push(t)));
    return missing;
  }

  /**
   * Reads or embeds `texts` (distinct, none in flight elsewhere in this worker), settling each
   * one's `claims` entry. What is missing is entered in the endpoint's ledger first; texts another
   * holder is embedding are waited for (holding nothing meanwhile, so that two calls waiting for
   * each other cannot wait forever) and then read; whatever it failed to store is embedded here.
   */
  async function produce(endpoint: EmbeddingEndpoint, texts: string[], claims: Map<string, Deferred<number[]>>): Promise<void> {
    let missing = await settleCached(endpoint, texts, claims);
    if (missing.length === 0) return;
    const keyOf = (t: string) => embeddingCacheKey(endpoint, t);
    const entry = new InflightEntry(bucket, embeddingLedgerKey(endpoint), embedHolder(processName, texts.map(keyOf)), true);
    try {
      while (missing.length > 0) {
        const elsewhere = await entry.enter(missing.map(keyOf));
        // Read again now that they are ours: a holder that had them until a moment ago stored them before it left.
        const mine = await settleCached(
          endpoint,
          missing.filter((t) => !elsewhere.has(keyOf(t))),
          claims,
        );
        await embedAndStore(endpoint, mine, claims);
        await entry.leave();
        const waiting = missing.filter((t) => elsewhere.has(keyOf(t)));
        if (waiting.length === 0) return;
        for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
          heartbeat();
          await pause(delay);
          if (!(await entry.othersHold(waiting.map(keyOf)))) break;
        }
        missing = await settleCached(endpoint, waiting, claims);
      }
    } finally {
      await entry
        .leave()
        .catch((err) =>
          console.warn(
            `leaving ${embeddingLedgerKey(endpoint)} failed (its entry lapses in ${LEASE_MS / 1000} s): ${(err as Error).message}`,
          ),
        );
    }
  }

  return {
    async embed(endpoint, texts) {
      const unique = [...new Set(texts)];
      const byText = new Map<string, Promise<number[]>>();
      const claims = new Map<string, Deferred<number[]>>();
      const claimedKeys: string[] = [];
      // Claimed synchronously, before any await, so two calls never both take a text.
      for (const t of unique) {
        const key = embeddingCacheKey(endpoint, t);
        const pending = inFlight.get(key);
        if (pending) {
          byText.set(t, pending);
          continue;
        }
        const claim = deferred<number[]>();
        claims.set(t, claim);
        claimedKeys.push(key);
        inFlight.set(key, claim.promise);
        byText.set(t, claim.promise);
      }
      try {
        await produce(endpoint, [...claims.keys()], claims);
      } catch (err) {
        for (const claim of claims.values()) claim.reject(err);
        throw err;
      } finally {
        for (const key of claimedKeys) inFlight.delete(key);
      }
      // Waiting for another call's texts: keep this activity's heartbeat going meanwhile.
      const beat = setInterval(heartbeat, 5_000);
      let vectors: Map<string, number[]>;
      try {
        vectors = new Map(await Promise.all([...byText].map(async ([t, p]) => [t, await p] as const)));
      } finally {
        clearInterval(beat);
      }
      const out = texts.map((t) => vectors.get(t)!);
      const dims = new Set(out.map((v) => v.length));
      if (dims.size > 1) {
        throw ApplicationFailure.nonRetryable(
          `embeddings ${endpoint.model} at ${endpoint.baseUrl}: vectors of different lengths (${[...dims].join(', ')}); cached ones may come from another model behind the same name`,
          'EmbeddingMismatch',
        );
      }
      return out;
    },
  };
}

/**
 * Dense retrieval: the k docs whose `indexText` embeds closest (cosine) to the raw query, best first,
 * ties to the earlier doc. Always returns min(k, docs.length) results.
 */
export async function denseSearch(
  client: EmbeddingClient,
  endpoint: EmbeddingEndpoint,
  docs: readonly ApiDoc[],
  query: string,
  k: number,
): Promise<RetrievedApi[]> {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  if (docs.length === 0 || k === 0) return [];
  // One call: the docs are usually cached already, so only the query is sent.
  const vectors = await client.embed(endpoint, [...docs.map(indexText), query]);
  const queryVector = vectors.pop()!;
  return cosineTopK(queryVector, vectors, k).map((hit, i) => ({ doc: docs[hit.index]!, score: hit.score, rank: i + 1 }));
}
