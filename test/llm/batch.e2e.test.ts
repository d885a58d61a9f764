/**
 * Batch mode's activities on the real S3 store against a scripted Batch API server (in front of a
 * scripted LLM server): a request set is submitted once however often submission is retried, its
 * answers land in the LLM cache as the live path's would (same text, finish reason and tokens), the
 * live path then sends nothing, and requests a batch failed or left when it expired become a
 * request set of their own.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createBatchActivities, type BatchStatus } from '../../activities/llm/batch.js';
import { isFinalBatchState } from '../../domain/llm/batchLines.js';
import type { LlmCallSummary, LlmEndpoint, LlmRecord } from '../../domain/llm/request.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { laidOut, createLlmActivities } from '../../infra/llm/llm.js';
import { planOf, storeRequestSets, uncachedOf, type RequestSet } from '../../infra/llm/batchPlan.js';
import { readLlmRecordAt } from '../../infra/llm/cache.js';
import { parkingScope } from '../../infra/llm/parking.js';
import { ApplicationFailure } from '@temporalio/common';
import { directRequestBody } from '../../methods/direct/request.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { startScriptedBatchServer, type ScriptedBatchServer, type ScriptedBatchServerOptions } from '../support/scripted-batch-server.js';
import { scriptedServersPerTest } from '../support/scripted-servers.js';

const { config } = testConfig();
const bucket = testBucket(config);
afterAll(() => bucket.s3.destroy());
const serve = scriptedServersPerTest();
const batchServers: ScriptedBatchServer[] = [];
afterEach(async () => {
  await Promise.all(batchServers.splice(0).map((s) => s.close()));
});

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

const sampling = (model: string) => ({ model, temperature: 0.8, top_p: 0.95, max_tokens: 64, seed: 7 });

/** An LLM server whose answer depends on the request only (its prompt and seed), and a batch server before it. */
async function servers(options: Omit<ScriptedBatchServerOptions, 'upstream'> = {}) {
  const llm = await serve(({ body }) => ({
    content: `    return x  # ${String(body.prompt).length} seed ${String(body.seed)} words ${'w '.repeat(Number(body.seed) % 5)}`,
  }));
  const batches = await startScriptedBatchServer({ upstream: llm.url, ...options });
  batchServers.push(batches);
  return { llm, batches };
}

function endpointOf(baseUrl: string, model: string, batch = true): LlmEndpoint {
  return {
    id: 'scripted',
    baseUrl,
    model,
    api: 'completions',
    requestTimeoutS: 10,
    ...(batch ? { batch: { maxRequests: 3, maxBytes: 1024 * 1024, retryRounds: 1, pollS: 0.1, maxPollS: 0.1 } } : {}),
  };
}

function callsOf(endpoint: LlmEndpoint, tasks: number, samples: number) {
  return Array.from({ length: tasks }, (_, t) =>
    laidOut(
      endpoint,
      Array.from({ length: samples }, (_, i) => i),
      (first, choices) => directRequestBody(problem(t), endpoint.api, sampling(endpoint.model), first, choices),
    ),
  );
}

/** The activities as a worker runs them (they heartbeat while files move). */
const real = createBatchActivities(bucket);
const inActivity =
  <I, O>(fn: (input: I) => Promise<O>) =>
  (input: I): Promise<O> =>
    new MockActivityEnvironment().run(fn, input) as Promise<O>;
const acts = {
  submitBatch: inActivity(real.submitBatch),
  pollBatch: inActivity(real.pollBatch),
  collectBatch: inActivity(real.collectBatch),
  cancelBatch: inActivity(real.cancelBatch),
};

async function finish(endpoint: LlmEndpoint, batchId: string): Promise<BatchStatus> {
  for (;;) {
    const s = await acts.pollBatch({ endpoint, batchId });
    if (isFinalBatchState(s.status)) return s;
  }
}

async function submitAndCollect(endpoint: LlmEndpoint, set: RequestSet, prefix: string, round = 1) {
  const batchId = (await acts.submitBatch({ endpoint, set, round, sweepId: 's', cellId: 'c', notBeforeS: 0 })).batchId!;
  const status = await finish(endpoint, batchId);
  return { status, collected: await acts.collectBatch({ endpoint, batchId, set, prefix }) };
}

describe('batch mode activities', () => {
  it('answer every request once, in the cache as the live path would have, and the live path sends nothing', async () => {
    const { llm, batches } = await servers();
    const model = `m-${uniqueSuffix()}`;
    const endpoint = endpointOf(batches.url, model);
    const prefix = `test-batch/${uniqueSuffix()}/`;
    const perTask = callsOf(endpoint, 2, 4);
    const plan = perTask.flatMap((calls) => planOf(endpoint, calls));
    const sets = await storeRequestSets(bucket, endpoint, await uncachedOf(bucket, endpoint, plan), prefix);
    // max_requests 3: 8 requests in sets of 3, 3 and 2.
    expect(sets.map((s) => s.requests)).toEqual([3, 3, 2]);

    for (const set of sets) {
      const first = await acts.submitBatch({ endpoint, set, round: 1, sweepId: 's', cellId: 'c', notBeforeS: 0 });
      const firstId = first.batchId!;
      // A retried submission (its report lost) finds the batch by its metadata: no second upload, no second batch.
      const again = await acts.submitBatch({ endpoint, set, round: 1, sweepId: 's', cellId: 'c', notBeforeS: 0 });
      expect(first.created).toBe(true);
      expect(again).toEqual({ batchId: first.batchId, created: false });
      expect((await finish(endpoint, firstId)).status).toBe('completed');
      const collected = await acts.collectBatch({ endpoint, batchId: firstId, set, prefix });
      expect(collected.left).toBeUndefined();
      expect(collected.samples).toBe(set.samples);
      // Collected twice (a retried activity): nothing stored again, nothing counted again.
      expect((await acts.collectBatch({ endpoint, batchId: firstId, set, prefix })).requests).toBe(0);
    }
    expect(batches.uploads()).toBe(3);
    expect(batches.batches()).toHaveLength(3);
    expect(llm.received()).toEqual({ requests: 8, repeats: 0 });

    // The live path finds every answer cached and sends nothing more.
    const live = createLlmActivities(bucket, {});
    const env = new MockActivityEnvironment();
    const summaries = await Promise.all(perTask.map((calls) => env.run(live.callLlm, { endpoint, calls }) as Promise<LlmCallSummary[]>));
    expect(summaries.flat().every((s) => s.cached && s.status === 'ok')).toBe(true);
    expect(await uncachedOf(bucket, endpoint, plan)).toEqual([]);
    expect(llm.received()).toEqual({ requests: 8, repeats: 0 });

    // The same requests answered live (another base URL, so other cache identities): the same records but for how they came.
    const liveEndpoint = endpointOf(llm.url, model, false);
    const liveSummaries = await Promise.all(
      callsOf(liveEndpoint, 2, 4).map((calls) => env.run(live.callLlm, { endpoint: liveEndpoint, calls }) as Promise<LlmCallSummary[]>),
    );
    const essence = (r: LlmRecord | null) => ({
      text: r?.text,
      finishReason: r?.finishReason,
      status: r?.status,
      promptTokens: r?.promptTokens,
      completionTokens: r?.completionTokens,
      calls: r?.calls,
    });
    const batchRecords = await Promise.all(summaries.flat().map((s) => readLlmRecordAt(bucket, s.key)));
    const liveRecords = await Promise.all(liveSummaries.flat().map((s) => readLlmRecordAt(bucket, s.key)));
    expect(batchRecords.map(essence)).toEqual(liveRecords.map(essence));
    expect(batchRecords.every((r) => r?.batchId?.startsWith('batch_'))).toBe(true);
    expect(liveRecords.every((r) => r?.batchId === undefined)).toBe(true);
  });

  it('a request of several choices (samples_per_request) answers each of its samples, as live', async () => {
    const llm = await serve(({ body }) => {
      const n = typeof body.n === 'number' ? body.n : 1;
      return { content: Array.from({ length: n }, (_, j) => `    return ${Number(body.seed) + j}  # choice ${j} of ${n}`) };
    });
    const batches = await startScriptedBatchServer({ upstream: llm.url });
    batchServers.push(batches);
    const model = `m-${uniqueSuffix()}`;
    const endpoint = { ...endpointOf(batches.url, model), samplesPerRequest: 2 };
    const prefix = `test-batch/${uniqueSuffix()}/`;
    const [calls] = callsOf(endpoint, 1, 4);
    const plan = planOf(endpoint, calls!);
    expect(plan.map((l) => l.members.map((m) => m.sampleIndex))).toEqual([
      [0, 1],
      [2, 3],
    ]);
    const [set] = await storeRequestSets(bucket, endpoint, plan, prefix);
    const { collected } = await submitAndCollect(endpoint, set!, prefix);
    expect([collected.requests, collected.samples, collected.left]).toEqual([2, 4, undefined]);

    const env = new MockActivityEnvironment();
    const live = createLlmActivities(bucket, {});
    const batched = (await env.run(live.callLlm, { endpoint, calls: calls! })) as LlmCallSummary[];
    expect(batched.every((s) => s.cached)).toBe(true);
    expect(llm.received().requests).toBe(2);
    const liveEndpoint = { ...endpointOf(llm.url, model, false), samplesPerRequest: 2 };
    const [liveCalls] = callsOf(liveEndpoint, 1, 4);
    const asked = (await env.run(live.callLlm, { endpoint: liveEndpoint, calls: liveCalls! })) as LlmCallSummary[];
    const texts = async (summaries: LlmCallSummary[]) =>
      Promise.all(summaries.map(async (s) => (await readLlmRecordAt(bucket, s.key))?.text));
    expect(await texts(batched)).toEqual(await texts(asked));
    expect(await texts(batched)).toEqual([
      '    return 7  # choice 0 of 2',
      '    return 8  # choice 1 of 2',
      '    return 9  # choice 0 of 2',
      '    return 10  # choice 1 of 2',
    ]);
    expect(batched.map((s) => s.calls)).toEqual([1, 0, 1, 0]);
  });

  it('a batch that fails lines and expires half-done leaves those requests as a set of their own, answered by the next', async () => {
    // Batch 1: line 1 fails (500), lines from 3 on expire; batch 2 answers the rest.
    const { llm, batches } = await servers({
      lineOutcome: (_line, index, batchNumber) => (batchNumber === 1 && index === 1 ? { status: 500 } : 'answer'),
      expire: { batchNumber: 1, answered: 3 },
    });
    const endpoint = { ...endpointOf(batches.url, `m-${uniqueSuffix()}`), batch: { ...endpointOf('', '').batch!, maxRequests: 100 } };
    const prefix = `test-batch/${uniqueSuffix()}/`;
    const plan = callsOf(endpoint, 1, 6).flatMap((calls) => planOf(endpoint, calls));
    const [set] = await storeRequestSets(bucket, endpoint, plan, prefix);
    const first = await submitAndCollect(endpoint, set!, prefix);
    expect(first.status.status).toBe('expired');
    expect(first.collected.requests).toBe(2);
    expect(first.collected.left?.requests).toBe(4);
    const second = await submitAndCollect(endpoint, first.collected.left!, prefix, 2);
    expect(second.status.status).toBe('completed');
    expect(second.collected.requests).toBe(4);
    expect(second.collected.left).toBeUndefined();
    expect(await uncachedOf(bucket, endpoint, plan)).toEqual([]);
    // Each request reached the model once: the failed line never did, the expired ones only in batch 2.
    expect(llm.received()).toEqual({ requests: 6, repeats: 0 });
    expect(batches.batches().map((b) => b.status)).toEqual(['expired', 'completed']);
  });

  it('a cancelled batch answers nothing, and every request is left', async () => {
    const { llm, batches } = await servers({ pollsToFinish: 5 });
    const endpoint = endpointOf(batches.url, `m-${uniqueSuffix()}`);
    const prefix = `test-batch/${uniqueSuffix()}/`;
    const plan = callsOf(endpoint, 1, 2).flatMap((calls) => planOf(endpoint, calls));
    const [set] = await storeRequestSets(bucket, endpoint, plan, prefix);
    const batchId = (await acts.submitBatch({ endpoint, set: set!, round: 1, sweepId: 's', cellId: 'c', notBeforeS: 0 })).batchId!;
    await acts.cancelBatch({ endpoint, batchId });
    expect((await finish(endpoint, batchId)).status).toBe('cancelled');
    // Cancelling a finished batch is no error: there is nothing to stop.
    await acts.cancelBatch({ endpoint, batchId });
    const collected = await acts.collectBatch({ endpoint, batchId, set: set!, prefix });
    expect(collected.requests).toBe(0);
    expect(collected.left?.requests).toBe(2);
    expect(llm.received().requests).toBe(0);
  });

  it('parking (multi-round methods): a step asked to park stores what the cache lacks and sends nothing; asked again after its batch, what the batch left goes live', async () => {
    // Its batch answers the first 2 of the 3 requests and fails the last.
    const { llm, batches } = await servers({ lineOutcome: (_line, index) => (index === 2 ? { status: 500 } : 'answer') });
    const endpoint = endpointOf(batches.url, `park-${uniqueSuffix()}`);
    const prefix = `test-parking/${uniqueSuffix()}/`;
    const live = createLlmActivities(bucket, {});
    const env = new MockActivityEnvironment();
    const calls = callsOf(endpoint, 1, 3)[0]!;
    const ask = (after: string[]) =>
      env.run(() => parkingScope({ parkRequests: { prefix, after } }, () => live.callLlm({ endpoint, calls }))) as Promise<
        LlmCallSummary[]
      >;
    const parked = await ask([]).catch((err: unknown) => err);
    expect(parked).toBeInstanceOf(ApplicationFailure);
    expect((parked as ApplicationFailure).type).toBe('LlmParked');
    const sets = (parked as ApplicationFailure).details![0] as RequestSet[];
    expect(sets.map((s) => s.requests)).toEqual([3]);
    expect(llm.received().requests).toBe(0);
    const { collected } = await submitAndCollect(endpoint, sets[0]!, prefix);
    expect(collected.left?.requests).toBe(1);
    expect(llm.received()).toEqual({ requests: 2, repeats: 0 });
    // Asked again (the step knows what it parked): the request its batch left is sent live, once.
    const answered = await ask(sets.map((s) => s.planKey));
    expect(answered.map((a) => [a.status, a.cached])).toEqual([
      ['ok', true],
      ['ok', true],
      ['ok', false],
    ]);
    expect(llm.received()).toEqual({ requests: 3, repeats: 0 });
    // Outside parking mode (the live path): all cached, nothing sent.
    expect((await (env.run(live.callLlm, { endpoint, calls }) as Promise<LlmCallSummary[]>)).every((a) => a.cached)).toBe(true);
    expect(llm.received()).toEqual({ requests: 3, repeats: 0 });
  });
});
