/**
 * The in-flight ledger: activities that want the same LLM calls at the same time (two sweeps on the
 * same cells, parallel samples of one task) send each request once, on the real S3 store and
 * against a real HTTP server; a dead holder's entry lapses, and its own retry takes it over at once.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/poll.js';
import { createLlmActivities, type LlmBatch } from '../../infra/llm/llm.js';
import { callGroup, callIdentity, inflightKey } from '../../infra/llm/cache.js';
import { InflightEntry } from '../../infra/llm/inflightLedger.js';
import { getText, headMetadata, putObject, supportsConditionalWrites } from '../../infra/s3.js';
import { EMPTY_LEDGER, heldByOthers, LEASE_MS, withHolder, type InflightLedger } from '../../domain/llm/inflight.js';
import type { LlmCallSummary, LlmEndpoint } from '../../domain/llm/request.js';
import { directRequestBody } from '../../methods/direct/request.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import type { ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { scriptedServersPerTest } from '../support/scripted-servers.js';

const { config } = testConfig();
const bucket = testBucket(config);
afterAll(() => bucket.s3.destroy());

const serve = scriptedServersPerTest();

const problem = {
  family: 'humaneval',
  task_id: 'T/0',
  prompt: 'def f(x):\n    """Twice x."""\n',
  entry_point: 'f',
  test: 'def check(f):\n    assert f(1) == 2\n',
  form: 'completion',
} as SweepProblem;

function setup(server: ScriptedLlmServer) {
  const endpoint: LlmEndpoint = {
    id: 'scripted',
    baseUrl: server.url,
    model: `m-${uniqueSuffix()}`,
    api: 'completions',
    requestTimeoutS: 10,
  };
  const sampling = { model: endpoint.model, temperature: 0.8, top_p: 0.95, max_tokens: 64, seed: 3 };
  const calls = (indices: number[]): LlmBatch['calls'] =>
    indices.map((s) => ({ body: directRequestBody(problem, 'completions', sampling, s), sampleIndex: s }));
  const group = callGroup({ endpoint, ...calls([0])[0]! });
  return { endpoint, calls, group };
}

/** callLlm as the activity `holder` (a workflow's activity) would run it. */
function callAs(holder: string, batch: LlmBatch, attempt = 1): Promise<LlmCallSummary[]> {
  const llm = createLlmActivities(bucket);
  const env = new MockActivityEnvironment({
    attempt,
    activityId: holder,
    workflowExecution: { workflowId: `sweep-${holder}`, runId: 'run' },
  });
  return env.run(llm.callLlm, batch) as Promise<LlmCallSummary[]>;
}
const holderOf = (activity: string) => `sweep-${activity}/run/${activity}`;

const exists = async (key: string) => (await headMetadata(bucket, key)) !== null;

describe('the ledger (pure)', () => {
  it('others hold what their live entries list; lapsed entries hold nothing and are dropped on the next write', () => {
    let ledger: InflightLedger = withHolder(EMPTY_LEDGER, 'a', ['x', 'y'], 1_000, 'v1');
    ledger = withHolder(ledger, 'b', ['z'], 2_000, 'v2');
    expect([...heldByOthers(ledger, 'a', 2_000)]).toEqual(['z']);
    expect([...heldByOthers(ledger, 'c', 2_000)].sort()).toEqual(['x', 'y', 'z']);
    // a's lease ends at 1000 + LEASE_MS: then only b holds anything.
    expect([...heldByOthers(ledger, 'c', 1_000 + LEASE_MS)]).toEqual(['z']);
    const rewritten = withHolder(ledger, 'c', ['w'], 1_000 + LEASE_MS, 'v3');
    expect(Object.keys(rewritten.holders).sort()).toEqual(['b', 'c']);
    // Leaving removes the entry.
    expect(Object.keys(withHolder(rewritten, 'c', [], 1_000 + LEASE_MS, 'v4').holders)).toEqual(['b']);
  });
});

describe('the store', () => {
  it('honours conditional writes and deletes (the probe every LLM worker runs at start), and the probe leaves nothing', async () => {
    const key = `_explora/probes/test-${uniqueSuffix()}`;
    expect(await supportsConditionalWrites(bucket, key)).toBe(true);
    expect(await exists(key)).toBe(false);
  });
});

describe('callLlm with the in-flight ledger', () => {
  it('two activities asking for the same calls at once (two sweeps): each request is sent once, both get every answer', async () => {
    const server = await serve(({ body }) => ({ content: `    return 2 * x  # ${String(body.seed)}\n`, delayMs: 400 }));
    const { endpoint, calls, group } = setup(server);
    const batch = { endpoint, calls: calls([0, 1, 2, 3, 4, 5]), concurrency: 3 };
    const [a, b] = await Promise.all([callAs('a', batch), callAs('b', batch)]);
    expect(server.requests()).toHaveLength(6);
    expect(new Set(server.requests().map((r) => r.key)).size).toBe(6);
    expect(b.map((s) => s.key)).toEqual(a.map((s) => s.key));
    // The calls were paid once, by whichever activity sent each: no sample is counted twice.
    expect(a.map((s, i) => (s.cached ? 0 : s.calls) + (b[i]!.cached ? 0 : b[i]!.calls))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await exists(inflightKey(group))).toBe(false);
  });

  it('parallel activities with different samples of one task share the ledger and never wait for each other', async () => {
    // The first 8 requests are answered only once all 8 have arrived: an activity that waited for
    // another's answer before sending would hold the others up until the 10 s safety valve.
    let release!: () => void;
    const allArrived = new Promise<void>((r) => (release = r));
    let arrived = 0;
    const server = await serve(async ({ body, requestNumber }) => {
      if (++arrived === 8) release();
      if (requestNumber <= 8) await Promise.race([allArrived, sleep(10_000)]);
      return { content: `    return ${String(body.seed)}\n` };
    });
    const { endpoint, calls, group } = setup(server);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => callAs(`s${i}`, { endpoint, calls: calls([2 * i, 2 * i + 1]) })));
    expect(server.requests()).toHaveLength(16);
    expect(results.flat().every((s) => s.status === 'ok' && !s.cached)).toBe(true);
    // Nobody waited for another's answers: all 8 activities' first requests (each activity sends
    // one at a time) were out before any answer came back.
    const firstAnswer = Math.min(...server.requests().map((r) => r.answeredAt!));
    expect(server.requests().filter((r) => r.time <= firstAnswer)).toHaveLength(8);
    expect(await exists(inflightKey(group))).toBe(false);
  });

  it('waits while another live holder has the calls, then takes the answers it stored; the rest it sends itself', async () => {
    const server = await serve(({ body }) => ({ content: `    return ${String(body.seed)}\n` }));
    const { endpoint, calls, group } = setup(server);
    const batch = { endpoint, calls: calls([0, 1, 2]) };
    const identities = batch.calls.map((c) => callIdentity({ endpoint, ...c }));
    // Another activity holds sample 1's call.
    const other = new InflightEntry(bucket, inflightKey(group), holderOf('other'), true);
    expect([...(await other.enter([identities[1]!]))]).toEqual([]);
    const waiting = callAs('me', batch);
    await sleep(1_500);
    // Samples 0 and 2 were sent at once; sample 1 waits for its holder.
    expect(
      server
        .requests()
        .map((r) => r.body.seed)
        .sort(),
    ).toEqual([3, 5]);
    // The holder stores its answer (through the same cache) and leaves.
    await callAs('other', { endpoint, calls: [batch.calls[1]!] });
    await other.leave();
    const summaries = await waiting;
    expect(server.requests()).toHaveLength(3);
    expect(summaries.map((s) => s.cached)).toEqual([false, true, false]);
    expect(await exists(inflightKey(group))).toBe(false);
  });

  it('a holder that left without storing the answer (it failed): the waiter sends the call itself', async () => {
    const server = await serve(({ body }) => ({ content: `    return ${String(body.seed)}\n` }));
    const { endpoint, calls, group } = setup(server);
    const batch = { endpoint, calls: calls([0]) };
    const other = new InflightEntry(bucket, inflightKey(group), holderOf('other'), true);
    await other.enter([callIdentity({ endpoint, ...batch.calls[0]! })]);
    const waiting = callAs('me', batch);
    await sleep(800);
    expect(server.requests()).toHaveLength(0);
    await other.leave();
    const [summary] = await waiting;
    expect(server.requests()).toHaveLength(1);
    expect(summary!.cached).toBe(false);
  });

  it("a dead holder's entry: its own retry takes it over at once; anyone else ignores it once its lease lapsed", async () => {
    const server = await serve(({ body }) => ({ content: `    return ${String(body.seed)}\n` }));
    const { endpoint, calls, group } = setup(server);
    const identity = (s: number) => callIdentity({ endpoint, ...calls([s])[0]! });
    // A worker died while its activity 'dead' held sample 0's call, and another's entry for
    // sample 1 was last renewed more than a lease ago.
    const now = Date.now();
    let ledger = withHolder(EMPTY_LEDGER, holderOf('dead'), [identity(0)], now, 'x');
    ledger = {
      ...ledger,
      holders: { ...ledger.holders, [holderOf('gone')]: { identities: [identity(1)], renewedAt: now - LEASE_MS - 1, leaseMs: LEASE_MS } },
    };
    await putObject(bucket, inflightKey(group), JSON.stringify(ledger));
    const started = Date.now();
    const retried = await callAs('dead', { endpoint, calls: calls([0]) }, 2);
    const other = await callAs('someone', { endpoint, calls: calls([1]) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests()).toHaveLength(2);
    expect([retried[0]!.cached, other[0]!.cached]).toEqual([false, false]);
    // The lapsed entry was dropped by the first write after its lease; the ledger is gone.
    expect(await getText(bucket, inflightKey(group))).toBeNull();
  });

  it('a ledger that is not one is an error naming the object, and nothing is sent', async () => {
    const server = await serve(({ body }) => ({ content: `    return ${String(body.seed)}\n` }));
    const { endpoint, calls, group } = setup(server);
    await putObject(bucket, inflightKey(group), '{"holders": 3}');
    await expect(callAs('me', { endpoint, calls: calls([0]) })).rejects.toThrow(`${inflightKey(group)} is not an in-flight ledger`);
    expect(server.requests()).toHaveLength(0);
  });
});
