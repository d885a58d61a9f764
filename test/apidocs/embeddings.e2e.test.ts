import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/poll.js';
import {
  createEmbeddingClient,
  denseSearch,
  EMBEDDING_BATCH_SIZE,
  embeddingCacheKey,
  EmbeddingEndpointSchema,
  embeddingLedgerKey,
  type EmbeddingEndpoint,
} from '../../infra/llm/embeddings.js';
import { deleteIfVersion, getText, getVersioned, putObject } from '../../infra/s3.js';
import { indexText } from '../../domain/apidocs/corpus.js';
import type { ApiDoc } from '../../domain/apidocs/library.js';
import { EMPTY_LEDGER, LEASE_MS, withHolder } from '../../domain/llm/inflight.js';
import { PYTHON_STR_LIBRARY } from '../../domain/apidocs/pythonStr.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';

const { config } = testConfig();
const bucket = testBucket(config);

const DIMS = 1024;

/** Bag of words hashed into DIMS buckets: texts sharing words point the same way. */
function bagOfWords(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    v[createHash('sha256').update(word).digest().readUInt32BE(0) % DIMS]! += 1;
  }
  return v;
}

let server: EmbeddingServer;
beforeAll(async () => {
  server = await startEmbeddingServer(bagOfWords);
});
afterAll(async () => {
  await server?.close();
});

/** A model name of this run's own, so vectors cached by earlier runs are never found by accident. */
function endpoint(extra: Partial<EmbeddingEndpoint> = {}): EmbeddingEndpoint {
  return EmbeddingEndpointSchema.parse({ baseUrl: server.url, model: `bow-${uniqueSuffix()}`, requestTimeoutS: 10, ...extra });
}

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

describe('EmbeddingEndpointSchema', () => {
  it('accepts an http(s) endpoint and refuses bad ones by field', () => {
    expect(
      EmbeddingEndpointSchema.parse({ baseUrl: 'https://api.example.com/v1', model: 'm', apiKeyEnv: 'KEY', requestTimeoutS: 30 }),
    ).toBeTruthy();
    const bad = EmbeddingEndpointSchema.safeParse({ baseUrl: 'ftp://x', model: '', requestTimeoutS: 0, extra: 1 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.') || i.code).sort()).toEqual([
      'baseUrl',
      'model',
      'requestTimeoutS',
      'unrecognized_keys',
    ]);
  });
});

describe('createEmbeddingClient', () => {
  it('batches at most 64 inputs per request, returns vectors in input order, caches each in S3', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    const texts = Array.from({ length: 150 }, (_, i) => `text number ${i} ${'word'.repeat((i % 7) + 1)}`);
    const before = server.received.length;
    const vectors = await client.embed(ep, texts);
    const sent = server.received.slice(before);
    expect(sent.map((r) => r.inputs.length)).toEqual([EMBEDDING_BATCH_SIZE, EMBEDDING_BATCH_SIZE, 150 - 2 * EMBEDDING_BATCH_SIZE]);
    expect(sent.flatMap((r) => r.inputs)).toEqual(texts);
    expect(sent[0]!.body).toMatchObject({ model: ep.model, encoding_format: 'float' });
    expect(vectors).toEqual(texts.map(bagOfWords));

    // Stored where the key says: sha256 of canonical {base_url, model, text}.
    const key = `embeddings/${createHash('sha256')
      .update(JSON.stringify({ base_url: ep.baseUrl, model: ep.model, text: texts[5] }))
      .digest('hex')}.json`;
    expect(embeddingCacheKey(ep, texts[5]!)).toBe(key);
    expect(JSON.parse((await getText(bucket, key))!)).toEqual({
      base_url: ep.baseUrl,
      model: ep.model,
      text: texts[5],
      embedding: bagOfWords(texts[5]!),
    });

    // Again, from a fresh client (a restarted worker): nothing is sent.
    const again = await createEmbeddingClient(bucket).embed(ep, [...texts].reverse());
    expect(server.received.length).toBe(before + 3);
    expect(again).toEqual([...texts].reverse().map(bagOfWords));

    // Only the new text of a partly cached list is sent.
    const mixed = await client.embed(ep, [texts[0]!, 'a brand new text', texts[1]!]);
    expect(server.received.slice(before + 3).map((r) => r.inputs)).toEqual([['a brand new text']]);
    expect(mixed).toEqual([texts[0]!, 'a brand new text', texts[1]!].map(bagOfWords));
  });

  it('sends a repeated text once and an empty list not at all', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    const before = server.received.length;
    expect(await client.embed(ep, [])).toEqual([]);
    expect(server.received.length).toBe(before);
    const out = await client.embed(ep, ['same', 'other', 'same']);
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['same', 'other']]);
    expect(out).toEqual(['same', 'other', 'same'].map(bagOfWords));
  });

  it('calls at once for overlapping texts embed each text once, and each gets every vector it asked for', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    const corpus = Array.from({ length: 70 }, (_, i) => `corpus doc ${i}`);
    const before = server.received.length;
    const calls = Array.from({ length: 5 }, (_, q) => [...corpus, `query ${q}`]);
    const answers = await Promise.all(calls.map((texts) => client.embed(ep, texts)));
    answers.forEach((vectors, q) => expect(vectors).toEqual(calls[q]!.map(bagOfWords)));
    const sent = server.received.slice(before).flatMap((r) => r.inputs);
    expect(sent.sort()).toEqual([...corpus, ...calls.map((c) => c.at(-1)!)].sort());
  });

  it('a failed embedding fails every call waiting for it, and a later call embeds it again', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    server.overrides.push({ status: 400 });
    const before = server.received.length;
    // The first call owns both texts and gets the 400; the second only waits for it.
    const results = await Promise.allSettled([client.embed(ep, ['shared text', 'a']), client.embed(ep, ['shared text'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['shared text', 'a']]);
    expect(await client.embed(ep, ['shared text'])).toEqual([bagOfWords('shared text')]);
  });

  it('a different model or base URL is a different cache entry', async () => {
    const ep = endpoint();
    expect(embeddingCacheKey(ep, 'x')).not.toBe(embeddingCacheKey({ ...ep, model: `${ep.model}-2` }, 'x'));
    expect(embeddingCacheKey(ep, 'x')).not.toBe(embeddingCacheKey({ ...ep, baseUrl: 'http://elsewhere/v1' }, 'x'));
  });

  it('a damaged cache object is re-embedded and overwritten', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    await putObject(bucket, embeddingCacheKey(ep, 'damaged'), '{"embedding": "not a vector"');
    const before = server.received.length;
    expect(await client.embed(ep, ['damaged'])).toEqual([bagOfWords('damaged')]);
    expect(server.received.length).toBe(before + 1);
    expect(JSON.parse((await getText(bucket, embeddingCacheKey(ep, 'damaged')))!).embedding).toEqual(bagOfWords('damaged'));
  });

  it('sends the key named by apiKeyEnv; a missing key fails as LlmConfigError without a request', async () => {
    const ep = endpoint({ apiKeyEnv: 'EXPLORA_TEST_EMBED_KEY' });
    const before = server.received.length;
    const missing = await failure(createEmbeddingClient(bucket, {}).embed(ep, ['needs a key']));
    expect(missing.type).toBe('LlmConfigError');
    expect(missing.nonRetryable).toBe(true);
    expect(missing.message).toContain('EXPLORA_TEST_EMBED_KEY');
    expect(server.received.length).toBe(before);
    await createEmbeddingClient(bucket, { EXPLORA_TEST_EMBED_KEY: 'sk-test' }).embed(ep, ['needs a key']);
    expect(server.received.at(-1)!.authorization).toBe('Bearer sk-test');
  });

  it('429 and 5xx are retryable (429 after Retry-After), other 4xx are not, a wrong answer is malformed', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    server.overrides.push({ status: 429, headers: { 'retry-after': '2' } });
    const limited = await failure(client.embed(ep, ['t']));
    expect([limited.type, limited.nonRetryable, limited.nextRetryDelay]).toEqual(['RateLimited', false, 2000]);

    server.overrides.push({ status: 503 });
    const down = await failure(client.embed(ep, ['t']));
    expect([down.type, down.nonRetryable]).toEqual(['EmbeddingUnavailable', false]);
    expect(down.message).toMatch(/^503 from embeddings bow-/);

    server.overrides.push({ status: 400 });
    const bad = await failure(client.embed(ep, ['t']));
    expect([bad.type, bad.nonRetryable]).toEqual(['EmbeddingRequestError', true]);

    server.overrides.push({ wrongCount: true });
    const malformed = await failure(client.embed(ep, ['t', 'u']));
    expect([malformed.type, malformed.nonRetryable]).toEqual(['EmbeddingMalformedResponse', false]);
    expect(malformed.message).toContain('expected 2 vectors');

    server.overrides.push({ status: 200, body: 'not json at all' });
    expect((await failure(client.embed(ep, ['t']))).type).toBe('EmbeddingMalformedResponse');

    // Nothing failed was cached: the next attempt sends and succeeds.
    expect(await client.embed(ep, ['t', 'u'])).toEqual([bagOfWords('t'), bagOfWords('u')]);
  });

  it('a server that is not there is retryable', async () => {
    const ep = endpoint({ baseUrl: 'http://127.0.0.1:9/v1', requestTimeoutS: 5 });
    const gone = await failure(createEmbeddingClient(bucket).embed(ep, ['t']));
    expect([gone.type, gone.nonRetryable]).toEqual(['EmbeddingUnavailable', false]);
  });
});

describe('createEmbeddingClient across workers (the in-flight ledger)', () => {
  /** A slow model, so that calls for the same texts overlap. */
  async function slowly<T>(ms: number, run: () => Promise<T>): Promise<T> {
    server.delayMs = ms;
    try {
      return await run();
    } finally {
      server.delayMs = 0;
    }
  }

  /** Another worker's live entry holding `texts` (renewed now), as it writes it. */
  async function holdElsewhere(ep: EmbeddingEndpoint, texts: string[], renewedAt = Date.now()): Promise<void> {
    await putObject(
      bucket,
      embeddingLedgerKey(ep),
      JSON.stringify(
        withHolder(
          EMPTY_LEDGER,
          'another-worker/embed',
          texts.map((t) => embeddingCacheKey(ep, t)),
          renewedAt,
          'v1',
        ),
      ),
    );
  }

  async function dropLedger(ep: EmbeddingEndpoint): Promise<void> {
    const found = await getVersioned(bucket, embeddingLedgerKey(ep));
    expect(found).not.toBeNull();
    expect(await deleteIfVersion(bucket, embeddingLedgerKey(ep), found!.etag)).toBe(true);
  }

  it('two workers embedding one corpus at once send each text once; the ledger is gone afterwards', async () => {
    const ep = endpoint();
    const corpus = Array.from({ length: 90 }, (_, i) => `shared corpus doc ${i}`);
    const workers = [createEmbeddingClient(bucket), createEmbeddingClient(bucket), createEmbeddingClient(bucket)];
    const calls = workers.map((_, w) => [...corpus, `query of worker ${w}`]);
    const before = server.received.length;
    const answers = await slowly(300, () => Promise.all(workers.map((client, w) => client.embed(ep, calls[w]!))));
    answers.forEach((vectors, w) => expect(vectors).toEqual(calls[w]!.map(bagOfWords)));
    const sent = server.received.slice(before).flatMap((r) => r.inputs);
    expect(sent.sort()).toEqual([...corpus, ...calls.map((c) => c.at(-1)!)].sort());
    expect(await getText(bucket, embeddingLedgerKey(ep))).toBeNull();
  });

  it('a text another worker is embedding is waited for and read from the cache, not sent', async () => {
    const ep = endpoint();
    await holdElsewhere(ep, ['held']);
    const theirs = new Array<number>(DIMS).fill(0.5);
    const before = server.received.length;
    const pending = createEmbeddingClient(bucket).embed(ep, ['held', 'free']);
    await sleep(700);
    // Meanwhile the free text went out; the held one did not.
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['free']]);
    // The other worker stores its vector, then leaves.
    await putObject(
      bucket,
      embeddingCacheKey(ep, 'held'),
      JSON.stringify({ base_url: ep.baseUrl, model: ep.model, text: 'held', embedding: theirs }),
    );
    await dropLedger(ep);
    expect(await pending).toEqual([theirs, bagOfWords('free')]);
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['free']]);
  });

  it('a worker that gave a text up without storing it: the one waiting embeds it itself', async () => {
    const ep = endpoint();
    await holdElsewhere(ep, ['abandoned']);
    const before = server.received.length;
    const pending = createEmbeddingClient(bucket).embed(ep, ['abandoned']);
    await sleep(500);
    expect(server.received.length).toBe(before);
    await dropLedger(ep);
    expect(await pending).toEqual([bagOfWords('abandoned')]);
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['abandoned']]);
    expect(await getText(bucket, embeddingLedgerKey(ep))).toBeNull();
  });

  it("a dead worker's lapsed entry holds nothing: its text is sent at once and the entry dropped", async () => {
    const ep = endpoint();
    await holdElsewhere(ep, ['orphaned'], Date.now() - LEASE_MS - 1);
    const before = server.received.length;
    expect(await createEmbeddingClient(bucket).embed(ep, ['orphaned'])).toEqual([bagOfWords('orphaned')]);
    expect(server.received.slice(before).map((r) => r.inputs)).toEqual([['orphaned']]);
    expect(await getText(bucket, embeddingLedgerKey(ep))).toBeNull();
  });
});

describe('denseSearch', () => {
  const docs: ApiDoc[] = PYTHON_STR_LIBRARY.docs;

  it('ranks docs by cosine of their index text against the query; the second search sends only the new query', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    const before = server.received.length;
    const hits = await denseSearch(client, ep, docs, 'str.zfill zeros', 3);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3]);
    expect(hits[0]!.doc.import_path).toBe('str.zfill');
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    const firstSent = server.received.slice(before).flatMap((r) => r.inputs);
    expect(firstSent).toEqual([...docs.map(indexText), 'str.zfill zeros']);

    const mid = server.received.length;
    const replace = await denseSearch(client, ep, docs, 'replace every occurrence of old by new', 2);
    expect(replace[0]!.doc.import_path).toBe('str.replace');
    expect(server.received.slice(mid).map((r) => r.inputs)).toEqual([['replace every occurrence of old by new']]);

    const mid2 = server.received.length;
    expect(await denseSearch(client, ep, docs, 'str.zfill zeros', 3)).toEqual(hits);
    expect(server.received.length).toBe(mid2);
  });

  it('k beyond the corpus returns every doc once; k = 0 and an empty corpus return []', async () => {
    const client = createEmbeddingClient(bucket);
    const ep = endpoint();
    const small = docs.slice(0, 3);
    const all = await denseSearch(client, ep, small, 'capitalize', 10);
    expect(all.map((h) => h.doc.import_path).sort()).toEqual(small.map((d) => d.import_path).sort());
    expect(all[0]!.doc.import_path).toBe('str.capitalize');
    expect(await denseSearch(client, ep, small, 'capitalize', 0)).toEqual([]);
    expect(await denseSearch(client, ep, [], 'capitalize', 5)).toEqual([]);
    await expect(denseSearch(client, ep, small, 'capitalize', -1)).rejects.toThrow(/k must be a non-negative integer/);
  });
});
