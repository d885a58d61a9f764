/**
 * The LLM activity's cache on the real S3 store, against a real OpenAI-compatible server: every
 * answer is stored before the batch reports, a task's answers share a few segment objects, nothing
 * answered is sent again, and every reader finds a record by the key the batch returned.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createLlmActivities, type LlmBatch } from '../../infra/llm/llm.js';
import {
  callGroup,
  callIdentity,
  GroupWriter,
  LINGER_MS,
  URGENT_MS,
  LlmRecordReader,
  readGroup,
  readLlmRecordAt,
  SEGMENT_RECORDS,
  spanOf,
} from '../../infra/llm/cache.js';
import { getText, listKeys, putObject } from '../../infra/s3.js';
import {
  LlmRecordSchema,
  preferredRecord,
  usableRecord,
  type LlmCallSummary,
  type LlmEndpoint,
  type LlmRecord,
} from '../../domain/llm/request.js';
import { directRequestBody } from '../../methods/direct/request.js';
import { requestRuns } from '../../domain/methods/sampling.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep } from '../support/poll.js';
import { testBucket } from '../support/s3.js';
import { countTokens, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { scriptedServersPerTest } from '../support/scripted-servers.js';

const { config } = testConfig();
const bucket = testBucket(config);
afterAll(() => bucket.s3.destroy());

const serve = scriptedServersPerTest();

function endpointOf(server: ScriptedLlmServer, api: 'chat' | 'completions' = 'completions'): LlmEndpoint {
  return { id: 'scripted', baseUrl: server.url, model: `m-${uniqueSuffix()}`, api, requestTimeoutS: 10 };
}

function problem(i: number): SweepProblem {
  return {
    family: 'humaneval',
    task_id: `T/${i}`,
    prompt: `def f${i}(x):\n    """Task ${i}."""\n`,
    entry_point: `f${i}`,
    test: `def check(f):\n    assert f(1) == 1\n`,
    form: 'completion',
  } as SweepProblem;
}

/** The direct method's calls for one task: the samples differ only in their seed. */
function taskCalls(endpoint: LlmEndpoint, task: number, samples: number): LlmBatch['calls'] {
  const sampling = { model: endpoint.model, temperature: 0.8, top_p: 0.95, max_tokens: 64, seed: 7 };
  return Array.from({ length: samples }, (_, s) => ({ body: directRequestBody(problem(task), endpoint.api, sampling, s), sampleIndex: s }));
}

const answerFor = (body: Record<string, unknown>) => `    return ${String(body.seed)}  # ${String(body.prompt ?? '').length}\n`;

async function segmentsOf(endpoint: LlmEndpoint, calls: LlmBatch['calls']): Promise<string[]> {
  const out: string[] = [];
  for await (const k of listKeys(bucket, `llm-cache/${callGroup({ endpoint, ...calls[0]! })}/`)) if (k.endsWith('.jsonl')) out.push(k);
  return out;
}

type Llm = ReturnType<typeof createLlmActivities>;
function callLlm(llm: Llm, batch: LlmBatch, attempt = 1): Promise<LlmCallSummary[]> {
  return new MockActivityEnvironment({ attempt }).run(llm.callLlm, batch) as Promise<LlmCallSummary[]>;
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('expected the batch to fail');
}

describe('call identity and group', () => {
  const endpoint: LlmEndpoint = { id: 'x', baseUrl: 'http://a/v1', model: 'm', api: 'completions', requestTimeoutS: 10 };
  const calls = taskCalls(endpoint, 1, 3);
  it('identity: one per (base URL, API, body, sample index), nothing else', () => {
    const ids = calls.map((c) => callIdentity({ endpoint, ...c }));
    expect(new Set(ids).size).toBe(3);
    expect(callIdentity({ endpoint: { ...endpoint, id: 'renamed', requestTimeoutS: 99 }, ...calls[0]! })).toBe(ids[0]);
    expect(callIdentity({ endpoint: { ...endpoint, baseUrl: 'http://b/v1' }, ...calls[0]! })).not.toBe(ids[0]);
    expect(callIdentity({ endpoint, ...calls[0]!, sampleIndex: 5 })).not.toBe(ids[0]);
    // Key order in the body does not matter.
    const reordered = Object.fromEntries(Object.entries(calls[0]!.body).reverse()) as (typeof calls)[0]['body'];
    expect(callIdentity({ endpoint, body: reordered, sampleIndex: 0 })).toBe(ids[0]);
  });
  it('group: the samples of one task share it; another task, model or endpoint does not', () => {
    const groups = calls.map((c) => callGroup({ endpoint, ...c }));
    expect(new Set(groups).size).toBe(1);
    expect(callGroup({ endpoint, ...taskCalls(endpoint, 2, 1)[0]! })).not.toBe(groups[0]);
    expect(callGroup({ endpoint: { ...endpoint, baseUrl: 'http://b/v1' }, ...calls[0]! })).not.toBe(groups[0]);
    expect(callGroup({ endpoint, ...calls[0]!, body: { ...calls[0]!.body, model: 'other' } })).not.toBe(groups[0]);
    // Another base seed (seed - sample index) is another sweep's samples: another group.
    expect(callGroup({ endpoint, ...calls[1]!, body: { ...calls[1]!.body, seed: 100 } })).not.toBe(groups[0]);
    // Without seeds the samples of a task still share one group.
    const unseeded = calls.map((c) => ({ ...c, body: { ...c.body, seed: undefined } }));
    expect(new Set(unseeded.map((c) => callGroup({ endpoint, ...c }))).size).toBe(1);
  });
});

describe('which record of a call a reader keeps', () => {
  type Kept = Pick<LlmRecord, 'status' | 'error'>;
  const timedOut = (timeoutS: number): Kept => ({ status: 'error', error: { status: null, message: 'timed out', timeoutS } });
  const ok: Kept = { status: 'ok' };
  const refused: Kept = { status: 'error', error: { status: 400, message: 'bad request' } };
  it('the first, unless it is a time-out and the other is not one or timed out at a longer timeout', () => {
    expect(preferredRecord(ok, refused)).toBe(ok);
    expect(preferredRecord(refused, ok)).toBe(refused);
    expect(preferredRecord(timedOut(60), ok)).toBe(ok);
    expect(preferredRecord(timedOut(60), refused)).toBe(refused);
    expect(preferredRecord(timedOut(60), timedOut(120))).toEqual(timedOut(120));
    const first = timedOut(120);
    expect(preferredRecord(first, timedOut(60))).toBe(first);
  });
  it('a time-out answers only a request with the same or a shorter timeout', () => {
    expect(usableRecord(timedOut(60), 60)).toBe(true);
    expect(usableRecord(timedOut(60), 30)).toBe(true);
    expect(usableRecord(timedOut(60), 120)).toBe(false);
    expect(usableRecord(refused, 120)).toBe(true);
    expect(usableRecord(ok, 120)).toBe(true);
  });
});

describe('callLlm with the S3 cache', () => {
  it('stores every answer before it reports, in a few segments per task; the keys read back as records', async () => {
    const server = await serve(({ body }) => ({ content: answerFor(body) }));
    const endpoint = endpointOf(server);
    const n = 2 * SEGMENT_RECORDS + 5;
    const calls = taskCalls(endpoint, 1, n);
    const llm = createLlmActivities(bucket);
    const summaries = await callLlm(llm, { endpoint, calls });
    expect(server.requests()).toHaveLength(n);
    expect(summaries.map((s) => [s.status, s.cached, s.calls])).toEqual(calls.map(() => ['ok', false, 1]));
    // A task's answers share a few segment objects, not one object each.
    expect((await segmentsOf(endpoint, calls)).length).toBe(Math.ceil(n / SEGMENT_RECORDS));
    const reader = new LlmRecordReader(bucket);
    for (const [i, s] of summaries.entries()) {
      const record = (await reader.read(s.key))!;
      expect(LlmRecordSchema.parse(record)).toEqual(record);
      expect(record.key).toBe(s.key);
      expect(record.text).toBe(answerFor(calls[i]!.body as Record<string, unknown>));
      expect(record.request).toEqual({ base_url: endpoint.baseUrl, api: 'completions', sample_index: i, body: calls[i]!.body });
      expect(record.promptTokens).toBe(s.promptTokens);
    }
    // The activity's reader and the one-off reader agree.
    expect(await new MockActivityEnvironment().run(llm.readLlmRecord, summaries[3]!.key)).toEqual(
      await readLlmRecordAt(bucket, summaries[3]!.key),
    );
  });

  it("answers are read back from this process's own writes without fetching them; the store holds the same records", async () => {
    const server = await serve(({ body }) => ({ content: answerFor(body) }));
    const endpoint = endpointOf(server);
    const calls = taskCalls(endpoint, 3, SEGMENT_RECORDS + 3);
    // A client of its own, whose GETs are counted.
    const own = testBucket(config);
    const gets: string[] = [];
    own.s3.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'GetObjectCommand') gets.push(String((args.input as { Key?: string }).Key));
        return next(args);
      },
      { step: 'initialize', name: 'countGets' },
    );
    try {
      const summaries = await callLlm(createLlmActivities(own), { endpoint, calls });
      gets.length = 0;
      const reader = new LlmRecordReader(own);
      const kept = await Promise.all(summaries.map((s) => reader.read(s.key)));
      expect(gets).toEqual([]);
      // Another client (another worker) fetches them from the store: the same records.
      const stored = await Promise.all(summaries.map((s) => readLlmRecordAt(bucket, s.key)));
      expect(kept).toEqual(stored);
      expect(kept.map((r) => r!.text)).toEqual(calls.map((c) => answerFor(c.body as Record<string, unknown>)));
      // A segment this process did not write (a copy stored by a plain put) is fetched.
      const [segment, identity] = summaries[0]!.key.split('#');
      const copy = `${segment!.slice(0, -'.jsonl'.length)}-copy.jsonl`;
      await putObject(own, copy, (await getText(bucket, segment!))!);
      expect(await new LlmRecordReader(own).read(`${copy}#${identity!}`)).toEqual(stored[0]);
      expect(gets).toEqual([copy]);
    } finally {
      own.s3.destroy();
    }
  });

  it('a repeated batch (another worker, another attempt) sends nothing and returns the same keys', async () => {
    const server = await serve(({ body }) => ({ content: answerFor(body) }));
    const endpoint = endpointOf(server);
    const calls = taskCalls(endpoint, 2, 10);
    const first = await callLlm(createLlmActivities(bucket), { endpoint, calls });
    const again = await callLlm(createLlmActivities(bucket), { endpoint, calls, concurrency: 4 }, 3);
    expect(server.requests()).toHaveLength(10);
    expect(again.map((s) => s.key)).toEqual(first.map((s) => s.key));
    expect(again.every((s) => s.cached)).toBe(true);
    // A batch with more samples sends only the new ones.
    const more = await callLlm(createLlmActivities(bucket), { endpoint, calls: taskCalls(endpoint, 2, 14) });
    expect(server.requests()).toHaveLength(14);
    expect(more.map((s) => s.cached)).toEqual([...Array(10).fill(true), ...Array(4).fill(false)]);
  });

  it('retryable failures: the answered calls are stored, the batch fails, the retry sends only the failed ones and counts them apart', async () => {
    const server = await serve(({ body, attempt }) =>
      Number(body.seed) % 3 === 0 && attempt === 1 ? { status: 503 } : { content: answerFor(body) },
    );
    const endpoint = endpointOf(server);
    const calls = taskCalls(endpoint, 3, 6); // seeds 7..12: 9 and 12 fail once
    const llm = createLlmActivities(bucket);
    const failure = await failureOf(callLlm(llm, { endpoint, calls }));
    expect(failure.type).toBe('LlmUnavailable');
    expect(server.requests()).toHaveLength(6);
    const retried = await callLlm(llm, { endpoint, calls }, 2);
    expect(server.requests()).toHaveLength(8);
    // A 503 is no answer: `calls` counts the one that answered, the refused one is counted apart.
    expect(retried.map((s) => [s.status, s.cached, s.calls, s.requestsUnanswered])).toEqual([
      ['ok', true, 1, undefined],
      ['ok', true, 1, undefined],
      ['ok', false, 1, 1],
      ['ok', true, 1, undefined],
      ['ok', true, 1, undefined],
      ['ok', false, 1, 1],
    ]);
    expect((await readLlmRecordAt(bucket, retried[2]!.key))!).toMatchObject({ calls: 1, requestsUnanswered: 1 });
  });

  it('a refused connection is no request: counted nowhere, nothing written; one dropped after sending is counted as unanswered', async () => {
    // A port nobody listens on: every attempt is refused before anything is sent.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const endpoint: LlmEndpoint = {
      id: 'down',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: `m-${uniqueSuffix()}`,
      api: 'completions',
      requestTimeoutS: 10,
    };
    const calls = taskCalls(endpoint, 60, 2);
    const llm = createLlmActivities(bucket);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const failure = await failureOf(callLlm(llm, { endpoint, calls }, attempt));
      expect(failure.type).toBe('LlmUnavailable');
      expect(failure.message).toMatch(/ECONNREFUSED/);
    }
    const group = callGroup({ endpoint, ...calls[0]! });
    const stored: string[] = [];
    for await (const k of listKeys(bucket, `llm-cache/${group}/`)) if (!k.endsWith('inflight.json')) stored.push(k);
    expect(stored).toEqual([]);
    // The endpoint comes up: the first request it reads, it drops without an answer; then it answers.
    let received = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (++received === 1) return void req.socket.destroy();
        const b = JSON.parse(body) as Record<string, unknown>;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'text_completion',
            choices: [{ index: 0, text: answerFor(b), finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const dropped = await failureOf(callLlm(llm, { endpoint, calls }, 4));
      expect(dropped.type).toBe('LlmUnavailable');
      const out = await callLlm(llm, { endpoint, calls }, 5);
      expect(received).toBe(3);
      // Sample 0's request was dropped once (sent, unanswered), then answered; sample 1's answered at once.
      expect(out.map((s) => [s.status, s.calls, s.requestsUnanswered])).toEqual([
        ['ok', 1, 1],
        ['ok', 1, undefined],
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a 4xx is recorded as an error answer (cached, not retried)', async () => {
    const server = await serve(({ body }) =>
      Number(body.seed) === 8 ? { status: 400, message: 'prompt too long' } : { content: answerFor(body) },
    );
    const endpoint = endpointOf(server);
    const calls = taskCalls(endpoint, 4, 3);
    const llm = createLlmActivities(bucket);
    const out = await callLlm(llm, { endpoint, calls });
    expect(out.map((s) => s.status)).toEqual(['ok', 'error', 'ok']);
    const record = (await readLlmRecordAt(bucket, out[1]!.key))!;
    expect(record.error).toEqual({ status: 400, message: expect.stringContaining('prompt too long') });
    // A fresh error's summary names it (a cell that stops on errors says it); the answers carry none.
    expect(out[1]!.error).toContain('prompt too long');
    expect(out.filter((s) => s.error !== undefined)).toHaveLength(1);
    const again = await callLlm(llm, { endpoint, calls }, 2);
    expect(server.requests()).toHaveLength(3);
    // Read from the cache it cost nothing now: no error to count.
    expect(again[1]).toMatchObject({ status: 'error', cached: true });
    expect(again[1]).not.toHaveProperty('error');
  });

  it.each([
    [401, /check the API key/],
    [403, /check the API key/],
    [404, /check models\[scripted\]\.model/],
  ])('a %i is the endpoint refusing us: the batch fails for good, naming the fix, and records nothing', async (status, hint) => {
    let refusing = true;
    const server = await serve(({ body }) => (refusing ? { status, message: 'nope' } : { content: answerFor(body) }));
    const endpoint = endpointOf(server);
    const calls = taskCalls(endpoint, 40 + status, 2);
    const llm = createLlmActivities(bucket);
    const failure = await failureOf(callLlm(llm, { endpoint, calls }));
    expect(failure.type).toBe('LlmConfigError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(`answered ${status}`);
    expect(failure.message).toMatch(hint);
    expect(await segmentsOf(endpoint, calls)).toEqual([]);
    // Fixed (a new key, say), the same calls are sent and answered.
    refusing = false;
    const out = await callLlm(llm, { endpoint, calls }, 2);
    expect(out.map((s) => [s.status, s.cached])).toEqual([
      ['ok', false],
      ['ok', false],
    ]);
  });

  it('a request that keeps timing out is recorded after 5 time-outs (not sent without end); a longer timeout asks it again', async () => {
    let slowMs = 2000;
    const server = await serve(({ body }) => ({ content: answerFor(body), delayMs: Number(body.seed) === 8 ? slowMs : 0 }));
    const endpoint = { ...endpointOf(server), requestTimeoutS: 0.3 };
    const calls = taskCalls(endpoint, 50, 2); // seeds 7 and 8: 8 is slow
    const llm = createLlmActivities(bucket);
    for (let attempt = 1; attempt < 5; attempt++) {
      const failure = await failureOf(callLlm(llm, { endpoint, calls }, attempt));
      expect(failure.type).toBe('LlmTimeout');
      expect(failure.message).toContain('request_timeout_s = 0.3 s');
    }
    const given = await callLlm(llm, { endpoint, calls }, 5);
    // Five time-outs: sent, never answered; no answer was paid for.
    expect(given.map((s) => [s.status, s.calls, s.requestsUnanswered])).toEqual([
      ['ok', 1, undefined],
      ['error', 0, 5],
    ]);
    const record = (await readLlmRecordAt(bucket, given[1]!.key))!;
    expect(record.error).toEqual({
      status: null,
      message: 'timed out 5 times at request_timeout_s = 0.3 s; a longer timeout asks again',
      timeoutS: 0.3,
    });
    const sent = server.requests().length;
    expect(sent).toBe(6);
    // The same timeout: the record stands, nothing is sent.
    expect((await callLlm(llm, { endpoint, calls }, 6)).map((s) => [s.status, s.cached])).toEqual([
      ['ok', true],
      ['error', true],
    ]);
    expect(server.requests()).toHaveLength(sent);
    // A longer timeout asks again, and its answer is what every later reader gets.
    slowMs = 100;
    const longer = { ...endpoint, requestTimeoutS: 5 };
    const answered = await callLlm(llm, { endpoint: longer, calls }, 1);
    expect(answered.map((s) => [s.status, s.cached])).toEqual([
      ['ok', true],
      ['ok', false],
    ]);
    expect([answered[1]!.calls, answered[1]!.requestsUnanswered]).toEqual([1, 5]); // this answer; the five time-outs apart
    expect(server.requests()).toHaveLength(sent + 1);
    for (const e of [longer, endpoint])
      expect((await callLlm(llm, { endpoint: e, calls }, 1)).map((s) => [s.status, s.cached])).toEqual([
        ['ok', true],
        ['ok', true],
      ]);
    expect(server.requests()).toHaveLength(sent + 1);
  });

  it('chat calls of several groups in one batch, run concurrently', async () => {
    const server = await serve(({ body }) => ({ content: `\`\`\`python\n${answerFor(body)}\`\`\`` }));
    const endpoint = endpointOf(server, 'chat');
    const calls = [...taskCalls(endpoint, 5, 4), ...taskCalls(endpoint, 6, 4)];
    const out = await callLlm(createLlmActivities(bucket), { endpoint, calls, concurrency: 3 });
    expect(server.inFlight().max).toBeLessThanOrEqual(3);
    expect(new Set(out.map((s) => s.key.split('#')[0])).size).toBe(2);
    for (const [i, s] of out.entries())
      expect((await readLlmRecordAt(bucket, s.key))!.request).toMatchObject({ sample_index: calls[i]!.sampleIndex });
  });
});

/** The direct method's requests of `perRequest` choices for one task (as generateDirect lays them out). */
function multiChoiceCalls(endpoint: LlmEndpoint, task: number, samples: number, perRequest: number): LlmBatch['calls'] {
  const sampling = { model: endpoint.model, temperature: 0.8, top_p: 0.95, max_tokens: 64, seed: 7 };
  return requestRuns(samples, perRequest).flatMap((run) => {
    const body = directRequestBody(problem(task), endpoint.api, sampling, run[0]!, run.length);
    return run.map((sampleIndex, choice) => ({ body, sampleIndex, choice }));
  });
}

/** Choice j of a request answers its first sample + j: the text names that sample. */
const choicesFor = (body: Record<string, unknown>) =>
  Array.from({ length: Number(body.n ?? 1) }, (_, j) => `    return ${Number(body.seed) + j}\n`);

describe('requests of several choices (samples_per_request)', () => {
  it('requestRuns: aligned runs of consecutive samples, the last one shorter', () => {
    expect(requestRuns(10, 4)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(requestRuns(3, 1)).toEqual([[0], [1], [2]]);
    expect(requestRuns(2, 8)).toEqual([[0, 1]]);
  });

  it('one request per run with n and the seed of its first sample; each sample gets its own choice; usage counted once; nothing sent again', async () => {
    for (const api of ['completions', 'chat'] as const) {
      const server = await serve(({ body }) => ({ content: choicesFor(body) }));
      const endpoint = endpointOf(server, api);
      const calls = multiChoiceCalls(endpoint, 1, 10, 4);
      const summaries = await callLlm(createLlmActivities(bucket), { endpoint, calls, concurrency: 2 });
      const sent = server.requests();
      expect(sent.map((r) => [r.body.n ?? 1, r.body.seed]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
        [4, 7],
        [4, 11],
        [2, 15],
      ]);
      const reader = new LlmRecordReader(bucket);
      const records = await Promise.all(summaries.map((s) => reader.read(s.key)));
      // Sample i's answer is choice i - first of its request: seed 7 + i.
      expect(records.map((r) => r!.text)).toEqual(calls.map((_, i) => `    return ${7 + i}\n`));
      expect(records.map((r) => (r!.request as { sample_index: number }).sample_index)).toEqual(calls.map((c) => c.sampleIndex));
      // Each request is paid once: its calls and usage sit on its first sample.
      expect(summaries.map((s) => s.calls)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
      const promptTokens = sent
        .map((r) => r.body)
        .reduce(
          (sum, b) =>
            sum +
            countTokens(api === 'chat' ? (b.messages as Array<{ content: string }>).map((m) => m.content).join(' ') : String(b.prompt)),
          0,
        );
      expect(summaries.reduce((a, s) => a + s.promptTokens, 0)).toBe(promptTokens);
      expect(summaries.reduce((a, s) => a + s.completionTokens, 0)).toBe(10 * 2);
      expect(records[1]!.response).toEqual({ same_request_as: summaries[0]!.key });
      // Again: everything cached, the same keys.
      const again = await callLlm(createLlmActivities(bucket), { endpoint, calls });
      expect(server.requests()).toHaveLength(3);
      expect(again.map((s) => [s.key, s.cached])).toEqual(summaries.map((s) => [s.key, true]));
    }
  });

  it('a request whose answers are only partly stored: only the missing choice is asked for again (n=1, its own seed) and stored', async () => {
    const server = await serve(({ body }) => ({ content: choicesFor(body) }));
    const endpoint = endpointOf(server);
    const calls = multiChoiceCalls(endpoint, 2, 4, 4);
    const first = await callLlm(createLlmActivities(bucket), { endpoint, calls });
    // Lose sample 2's answer, as a crash between two segment writes would.
    const [segment] = await segmentsOf(endpoint, calls);
    const lost = first[2]!.key.split('#')[1]!;
    const text = (await getText(bucket, segment!))!;
    await putObject(
      bucket,
      segment!,
      text
        .split('\n')
        .filter((l) => l && !l.includes(lost))
        .join('\n') + '\n',
    );
    const again = await callLlm(createLlmActivities(bucket), { endpoint, calls });
    expect(server.requests().map((r) => [r.body.n ?? 1, r.body.seed])).toEqual([
      [4, 7],
      [1, 9],
    ]);
    expect(again.map((s) => s.cached)).toEqual([true, true, false, true]);
    expect(again[2]!.calls).toBe(1);
    expect((await readLlmRecordAt(bucket, again[2]!.key))!.text).toBe('    return 9\n');
  });

  it('a batch that does not hold every choice of its requests fails for good, naming the problem', async () => {
    const server = await serve(({ body }) => ({ content: choicesFor(body) }));
    const endpoint = endpointOf(server);
    const calls = multiChoiceCalls(endpoint, 3, 4, 4);
    const missing = await failureOf(callLlm(createLlmActivities(bucket), { endpoint, calls: calls.slice(0, 3) }));
    expect(missing.nonRetryable).toBe(true);
    expect(missing.message).toMatch(/no sample for choice 3/);
    const twice = await failureOf(callLlm(createLlmActivities(bucket), { endpoint, calls: [...calls, { ...calls[1]! }] }));
    expect(twice.message).toMatch(/claimed twice/);
    expect(server.requests()).toHaveLength(0);
  });

  it('an endpoint that ignores `n`: the missing choices are asked for again, each request counted and paid once; nothing sent again', async () => {
    for (const api of ['completions', 'chat'] as const) {
      const server = await startScriptedLlmServer(({ body }) => ({ content: choicesFor(body) }), { applyStop: false, maxChoices: 1 });
      try {
        const endpoint = endpointOf(server, api);
        const calls = multiChoiceCalls(endpoint, 4, 6, 4);
        const summaries = await callLlm(createLlmActivities(bucket), { endpoint, calls });
        const sent = server.requests();
        // Run [0..3]: n=4, then the 3 left with the next sample's seed, and so on; run [4, 5] likewise.
        expect(sent.map((r) => [r.body.n ?? 1, r.body.seed]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
          [4, 7],
          [3, 8],
          [2, 9],
          [1, 10],
          [2, 11],
          [1, 12],
        ]);
        const records = await Promise.all(summaries.map((s) => readLlmRecordAt(bucket, s.key)));
        // Every sample its own answer, as one request per sample would have brought.
        expect(records.map((r) => r!.text)).toEqual(calls.map((_, i) => `    return ${7 + i}\n`));
        expect(summaries.map((s) => [s.status, s.calls])).toEqual(calls.map(() => ['ok', 1]));
        const tokensOf = (b: Record<string, unknown>) =>
          countTokens(api === 'chat' ? (b.messages as Array<{ content: string }>).map((m) => m.content).join(' ') : String(b.prompt));
        expect(summaries.reduce((a, s) => a + s.promptTokens, 0)).toBe(sent.reduce((a, r) => a + tokensOf(r.body), 0));
        expect(summaries.reduce((a, s) => a + s.completionTokens, 0)).toBe(6 * 2);
        // The record says which request it came from.
        expect((records[2]!.request as { body: { seed: number; n: number } }).body).toMatchObject({ seed: 9, n: 2 });
        const again = await callLlm(createLlmActivities(bucket), { endpoint, calls });
        expect(server.requests()).toHaveLength(6);
        expect(again.map((s) => [s.key, s.cached, s.calls])).toEqual(summaries.map((s) => [s.key, true, 1]));
      } finally {
        await server.close();
      }
    }
  });

  it('an endpoint that caps `n`: the rest in one more request', async () => {
    const server = await startScriptedLlmServer(({ body }) => ({ content: choicesFor(body) }), { applyStop: false, maxChoices: 3 });
    try {
      const endpoint = endpointOf(server);
      const calls = multiChoiceCalls(endpoint, 5, 5, 5);
      const summaries = await callLlm(createLlmActivities(bucket), { endpoint, calls });
      expect(server.requests().map((r) => [r.body.n ?? 1, r.body.seed])).toEqual([
        [5, 7],
        [2, 10],
      ]);
      expect(summaries.map((s) => s.calls)).toEqual([1, 0, 0, 1, 0]);
      expect((await Promise.all(summaries.map((s) => readLlmRecordAt(bucket, s.key)))).map((r) => r!.text)).toEqual(
        calls.map((_, i) => `    return ${7 + i}\n`),
      );
    } finally {
      await server.close();
    }
  });

  it('a follow-up request that fails is retried on its own: the answers already received are kept and not asked for again', async () => {
    let failNext = true;
    const server = await startScriptedLlmServer(
      ({ body }) => {
        if ((body.n ?? 1) === 1 && failNext) {
          failNext = false;
          return { status: 503 };
        }
        return { content: choicesFor(body) };
      },
      { applyStop: false, maxChoices: 1 },
    );
    try {
      const endpoint = endpointOf(server);
      const calls = multiChoiceCalls(endpoint, 6, 2, 2);
      const failure = await failureOf(callLlm(createLlmActivities(bucket), { endpoint, calls }));
      expect(failure.type).toBe('LlmUnavailable');
      const retried = await callLlm(createLlmActivities(bucket), { endpoint, calls }, 2);
      expect(server.requests().map((r) => [r.body.n ?? 1, r.body.seed])).toEqual([
        [2, 7],
        [1, 8],
        [1, 8],
      ]);
      // The refused follow-up is counted, apart, on the answer it finally brought.
      expect(retried.map((s) => [s.cached, s.calls, s.requestsUnanswered])).toEqual([
        [true, 1, undefined],
        [false, 1, 1],
      ]);
      expect((await readLlmRecordAt(bucket, retried[1]!.key))!.text).toBe('    return 8\n');
    } finally {
      await server.close();
    }
  });

  it('a response with a choice beyond the n asked for is malformed: retried, then recorded as an error for every sample of the request', async () => {
    const requests: unknown[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'text_completion',
            choices: [{ index: 2, text: 'one', finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const endpoint: LlmEndpoint = {
        id: 'bad-index',
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        model: `m-${uniqueSuffix()}`,
        api: 'completions',
        requestTimeoutS: 10,
      };
      const calls = multiChoiceCalls(endpoint, 4, 2, 2);
      // Counted per request: an activity's late attempt (its earlier ones lost to other requests'
      // 429s) still retries a request's first malformed answer.
      const failure = await failureOf(callLlm(createLlmActivities(bucket), { endpoint, calls }, 9));
      expect(failure.type).toBe('LlmMalformedResponse');
      expect(failure.message).toMatch(/choice index 2 repeated or beyond the n=2/);
      for (let attempt = 2; attempt < 5; attempt++)
        expect((await failureOf(callLlm(createLlmActivities(bucket), { endpoint, calls }, attempt))).type).toBe('LlmMalformedResponse');
      const last = await callLlm(createLlmActivities(bucket), { endpoint, calls }, 5);
      expect(last.map((s) => [s.status, s.calls])).toEqual([
        ['error', 5],
        ['error', 0],
      ]);
      expect(requests).toHaveLength(5);
      // Recorded: not sent again.
      await callLlm(createLlmActivities(bucket), { endpoint, calls }, 6);
      expect(requests).toHaveLength(5);
    } finally {
      server.close();
    }
  });
});

/** An answer of one word that took the model `durationMs`. */
const answered = (durationMs: number): Omit<LlmRecord, 'key'> => ({
  status: 'ok',
  text: 'x',
  finishReason: 'stop',
  promptTokens: 1,
  completionTokens: 1,
  calls: 1,
  durationMs,
  createdAt: new Date().toISOString(),
  request: {},
  response: {},
});

describe('GroupWriter: when answers are written', () => {
  const record = answered;

  function recordingWriter() {
    const puts: Array<{ key: string; lines: number; at: number }> = [];
    const writer = new GroupWriter('g', async (key, body) => {
      puts.push({ key, lines: body.trim().split('\n').length, at: Date.now() });
      await sleep(5);
    });
    return { puts, writer };
  }

  it('a slow answer is written at once', async () => {
    const { puts, writer } = recordingWriter();
    writer.add('a', record(URGENT_MS));
    await sleep(1);
    expect(puts).toHaveLength(1);
    await writer.drain();
    expect(writer.pending).toBe(0);
  });

  it('answers quicker than URGENT_MS wait for company, even slower than LINGER_MS: one write for several', async () => {
    const { puts, writer } = recordingWriter();
    writer.add('a', record(URGENT_MS - 1));
    await sleep(1);
    expect(puts).toHaveLength(0);
    for (const id of ['b', 'c']) writer.add(id, record(LINGER_MS * 2));
    await writer.drain();
    expect(puts.map((p) => p.lines)).toEqual([3]);
  });

  it('quick answers wait up to LINGER_MS and go out together; drain writes at once', async () => {
    const { puts, writer } = recordingWriter();
    const t0 = Date.now();
    for (const id of ['a', 'b', 'c']) writer.add(id, record(3));
    await sleep(LINGER_MS / 2);
    expect(puts).toHaveLength(0);
    expect(writer.pending).toBe(3);
    await sleep(LINGER_MS);
    expect(puts).toEqual([{ key: expect.stringMatching(/^llm-cache\/g\/.*-0\.jsonl$/), lines: 3, at: expect.any(Number) }]);
    expect(puts[0]!.at - t0).toBeGreaterThanOrEqual(LINGER_MS - 1);
    writer.add('d', record(3));
    const lingerOver = sleep(LINGER_MS).then(() => 'linger over');
    expect(await Promise.race([writer.drain().then(() => 'drained'), lingerOver])).toBe('drained');
    expect(puts.map((p) => p.lines)).toEqual([3, 4]);
  });

  it('a full segment closes: the next answers start another object', async () => {
    const { puts, writer } = recordingWriter();
    const keys = Array.from({ length: SEGMENT_RECORDS + 2 }, (_, i) => writer.add(`id${i}`, record(1)));
    await writer.drain();
    expect(keys[SEGMENT_RECORDS - 1]!.split('#')[0]).toMatch(/-0\.jsonl$/);
    expect(keys[SEGMENT_RECORDS]!.split('#')[0]).toMatch(/-1\.jsonl$/);
    expect(puts.map((p) => p.lines).sort((a, b) => a - b)).toEqual([2, SEGMENT_RECORDS]);
  });

  it('a write that fails for good fails drain', async () => {
    const writer = new GroupWriter('g', async () => {
      throw new Error('S3 is gone');
    });
    writer.add('a', record(1));
    await expect(writer.drain()).rejects.toThrow('S3 is gone');
    expect(writer.failed).toBe(true);
    expect(writer.pending).toBe(1);
  });
});

describe('segments named by the samples they hold', () => {
  const record = answered(1);

  it("a slice's cache check reads only segments that may hold its samples (and those that name none)", async () => {
    const group = `span-${uniqueSuffix()}`;
    const put = (key: string, body: string) => putObject(bucket, key, body);
    const first = new GroupWriter(group, put, { start: 0, end: 3 });
    const second = new GroupWriter(group, put, { start: 3, end: 6 });
    const untagged = new GroupWriter(group, put);
    for (let s = 0; s < 3; s++) first.add(`id${s}`, record, s);
    for (let s = 3; s < 6; s++) second.add(`id${s}`, record, s);
    untagged.add('old', record);
    await Promise.all([first.drain(), second.drain(), untagged.drain()]);
    const keys: string[] = [];
    for await (const k of listKeys(bucket, `llm-cache/${group}/`)) keys.push(k.slice(`llm-cache/${group}/`.length));
    expect(keys.filter((k) => k.startsWith('r0-3_'))).toHaveLength(1);
    expect(keys.filter((k) => k.startsWith('r3-6_'))).toHaveLength(1);

    const ids = async (only?: { start: number; end: number }) => [...(await readGroup(bucket, group, only)).records.keys()].sort();
    expect(await ids()).toEqual(['id0', 'id1', 'id2', 'id3', 'id4', 'id5', 'old']);
    expect(await ids({ start: 3, end: 6 })).toEqual(['id3', 'id4', 'id5', 'old']);
    expect(await ids({ start: 6, end: 9 })).toEqual(['old']);
    expect(await ids({ start: 2, end: 4 })).toEqual(['id0', 'id1', 'id2', 'id3', 'id4', 'id5', 'old']);
    // A record of another sample would hide in a segment its readers skip: refused.
    expect(() => second.add('id6', record, 6)).toThrow("sample 6 is outside this writer's samples [3, 6)");
  });

  it('spanOf: the samples [lowest, highest + 1) of a batch, none for no calls', () => {
    expect(spanOf([4, 2, 3])).toEqual({ start: 2, end: 5 });
    expect(spanOf([])).toBeUndefined();
  });
});

describe('reading records by key', () => {
  it('reads records of the one-object-per-call layout, and says what is wrong with a bad key or segment', async () => {
    const suffix = uniqueSuffix();
    const legacy = `llm-cache/legacy-${suffix}.json`;
    const rec: LlmRecord = {
      key: legacy,
      status: 'ok',
      text: 'hi',
      finishReason: null,
      promptTokens: 0,
      completionTokens: 0,
      calls: 1,
      durationMs: 1,
      createdAt: 'now',
      request: {},
      response: null,
    };
    await putObject(bucket, legacy, JSON.stringify(rec));
    expect(await readLlmRecordAt(bucket, legacy)).toEqual(rec);
    expect(await readLlmRecordAt(bucket, `llm-cache/missing-${suffix}.json`)).toBeNull();
    await expect(readLlmRecordAt(bucket, `${legacy}#abc`)).rejects.toThrow(new RegExp(`${legacy}:1: record key ${legacy} names no call`));

    const segment = `llm-cache/test-${suffix}/w-0.jsonl`;
    await putObject(
      bucket,
      segment,
      `${JSON.stringify({ ...rec, key: `${segment}#one` })}\n{"key": "${segment}#two", "status": "maybe"}\n`,
    );
    await expect(readLlmRecordAt(bucket, `${segment}#one`)).rejects.toThrow(new RegExp(`${segment}:2: .*status`));
    await putObject(bucket, segment, `${JSON.stringify({ ...rec, key: `${segment}#one` })}\n`);
    expect((await readLlmRecordAt(bucket, `${segment}#one`))!.text).toBe('hi');
    expect(await readLlmRecordAt(bucket, `${segment}#two`)).toBeNull();
    await expect(readLlmRecordAt(bucket, segment)).rejects.toThrow(/names a segment of 1 record/);
    // One reader, one object: a key of the other form is refused, not misread.
    const reader = new LlmRecordReader(bucket);
    expect((await reader.read(`${segment}#one`))!.text).toBe('hi');
    await expect(reader.read(segment)).rejects.toThrow(/names a segment, not one record/);
  });
});
