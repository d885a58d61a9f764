/**
 * Batch mode end to end on the shared stack: a HumanEval sweep answered in batches
 * (models[i].batch, against the scripted Batch API server in front of a scripted LLM server) gives
 * the results and samples of the same sweep answered live, every request reaching the model once:
 * in batches of at most max_requests with nothing live after them; with the batch server restarted
 * (its state kept on disk, as a provider's) and the worker killed while a batch is in flight (the
 * batch is not created again); gathering its two cells' requests in the same batches; with a batch that expires half-done
 * (the rest sent live), each answer priced at the price of how it was answered; and a self-repair
 * sweep whose two rounds of requests are two batches.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFileKey, cellRecordsPrefix, sweepResultsKey } from '../../domain/sweep/keys.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { getText, listKeys } from '../../infra/s3.js';
import { readRecordsFile } from '../../infra/recordParts.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedBatchServer, type ScriptedBatchServer, type ScriptedBatchServerOptions } from '../support/scripted-batch-server.js';
import { canonicalBodyKey, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, pbeProblems, scriptedAnswers, SWEEP_SEED } from './support.js';
import { exploraScript, writeScriptedSweep } from '../methods/support.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { z } from 'zod';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-batch-mode-'));
const LIMIT = 3;
const N = 2;
const problems = humanEvalProblems(LIMIT);
// One model name for every sweep here: the same request bodies, so the same answers.
const MODEL = `scripted-${uniqueSuffix()}`;
const servers: Array<{ close: () => Promise<void> }> = [];
const spawned: Spawned[] = [];
const liveId = `batch-live-${uniqueSuffix()}`;
/** The sweep answered live the batch sweeps are compared with: it runs while the cases start theirs. */
let live: Promise<void>;

beforeAll(() => {
  live = (async () => {
    const llm = await startScriptedLlmServer(scriptedAnswers(problems));
    servers.push(llm);
    const run = await runTs('scripts/start-sweep.ts', ['--config', writeConfig(liveId, llm.url, ''), '--no-progress'], caseEnv());
    expect(run.code, run.output).toBe(0);
    expect([...requestCounts(llm).values()]).toEqual(Array.from({ length: LIMIT * N }, () => 1));
  })();
  // Awaited by each case that compares with it (a failure fails those cases).
  live.catch(() => undefined);
});
afterAll(async () => {
  for (const p of spawned) if (p.child.exitCode === null && p.child.signalCode === null) await killHard(p);
  await Promise.all(servers.map((s) => s.close()));
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The environment of one case's processes: task queues of its own, so that the cases run at once
 * and a worker one case kills holds no task of another's.
 */
const caseEnv = () => ({ ...env, EXPLORA_TASK_QUEUE_PREFIX: `test-${uniqueSuffix()}` });

/** A scripted LLM server of the test's own (its own URL: no answer cached by another test), and a Batch API server before it. */
async function batchServers(options: Omit<ScriptedBatchServerOptions, 'upstream'> = {}) {
  const llm = await startScriptedLlmServer(scriptedAnswers(problems));
  const batches = await startScriptedBatchServer({ upstream: llm.url, ...options });
  servers.push(batches, llm);
  return { llm, batches };
}

function writeConfig(id: string, baseUrl: string, batch: string, temperatures = '[0.2]'): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
  - id: m
    base_url: ${baseUrl}
    model: ${MODEL}
    api: completions
    concurrency: 2
    request_timeout_s: 10
${batch}methods: [direct]
temperatures: ${temperatures}
n_samples: ${N}
k: [1, 2]
limit: ${LIMIT}
timeout_s: 5
seed: ${SWEEP_SEED}
`,
  );
  return file;
}

const batchYaml = (fields: string) => `    batch:
      poll_s: 0.2
      max_poll_s: 0.5
${fields}`;

const CELL = 'humaneval.m.direct.t0.2';
// Per million tokens: 10 cents a live token, half (prompt) and a quarter (completion) of it in batches.
const LIVE_PRICE = { input: 100_000, output: 100_000 };
const BATCH_PRICE = { input: 50_000, output: 25_000 };

/**
 * How often each request reached the model, by its body as the method made it: the live path adds
 * the defaults `n: 1` and `stream: false`, a batch line sends the body as it is.
 */
function requestCounts(llm: ScriptedLlmServer): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of llm.requests()) {
    const { stream: _stream, n, ...rest } = r.body;
    const key = canonicalBodyKey(n === 1 ? rest : { ...rest, n });
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * What a cell's results and samples say, without what differs between any two runs (times, keys)
 * and the provenance (the two sweeps' configs and endpoints differ: the batch server's URL).
 */
async function cellOutcome(sweepId: string, cell = CELL) {
  const results = JSON.parse((await getText(bucket, cellFileKey(sweepId, cell, 'results.json')))!) as Record<string, unknown>;
  const samplesText = (await getText(bucket, cellFileKey(sweepId, cell, 'samples.jsonl')))!;
  const samples = parseJsonl(samplesText, z.record(z.string(), z.unknown()), 'samples.jsonl').map((r) => r.row);
  return { results: withoutRunFields(results), samples: samples.map(withoutRunFields) };
}

const RUN_FIELD = /(^|_)(ms|seconds|key|keys|at|time|started|finished|wall|duration|llm_key)$|Ms$|Seconds$|Key$|At$/i;
function withoutRunFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRunFields);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        // How an answer was answered (its batch, the cell's batch-answered tokens) is not a result.
        .filter(([k]) => !RUN_FIELD.test(k) && k !== 'provenance' && !/^batch/.test(k))
        .map(([k, v]) => [k, withoutRunFields(v)]),
    );
  return value;
}

/** The batch sweep's outcome equals the live one's, and its pass@k in the sweep's results too. */
async function expectSameAsLive(batchId: string) {
  await live;
  const [liveOutcome, batchOutcome] = await Promise.all([cellOutcome(liveId), cellOutcome(batchId)]);
  expect(batchOutcome.samples).toHaveLength(LIMIT * N);
  expect(batchOutcome).toEqual(liveOutcome);
  const passAtK = async (id: string) =>
    (JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as { cells: Array<{ passAtK: unknown }> }).cells.map((c) => c.passAtK);
  expect(await passAtK(batchId)).toEqual(await passAtK(liveId));
}

const once = () => Array.from({ length: LIMIT * N }, () => 1);
const statuses = (batches: ScriptedBatchServer) =>
  batches
    .batches()
    .map((b) => `${b.status} ${b.request_counts.total}`)
    .sort();

// The cases wait on their sweeps' processes (each case its own servers and task queues): all at once
// (vitest's maxConcurrency, 5). Started together on a loaded machine, a sweep's processes took up to
// 95 s to start its workers: the waits for a batch in flight allow 300 s.
describe.concurrent('a sweep in batch mode', () => {
  it('gives the results and samples of the same sweep answered live, each request answered once, in batches', async () => {
    const { llm, batches } = await batchServers();
    const id = `batch-mode-${uniqueSuffix()}`;
    const run = await runTs(
      'scripts/start-sweep.ts',
      ['--config', writeConfig(id, batches.url, batchYaml('      max_requests: 4\n')), '--no-progress'],
      caseEnv(),
    );
    expect(run.code, run.output).toBe(0);
    // 6 requests in sets of 4 and 2 (their batches run at once: in either order), nothing live after.
    expect([...requestCounts(llm).values()]).toEqual(once());
    expect(batches.linesAnswered()).toBe(LIMIT * N);
    expect(statuses(batches)).toEqual(['completed 2', 'completed 4']);
    expect(batches.uploads()).toBe(2);
    await expectSameAsLive(id);
  });

  it('gathering by model: its two cells share batches (fewer, larger), each request answered once', async () => {
    const own = caseEnv();
    const { llm, batches } = await batchServers();
    const id = `batch-gather-${uniqueSuffix()}`;
    const file = writeConfig(id, batches.url, batchYaml('      max_requests: 8\n      gather: model\n'), '[0.2, 0.8]');
    const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], own);
    expect(run.code, run.output).toBe(0);
    // 12 requests of two cells in sets of 8 and 4 (each cell's own would be 6 and 6), nothing live after.
    expect(statuses(batches)).toEqual(['completed 4', 'completed 8']);
    expect(batches.uploads()).toBe(2);
    expect([...requestCounts(llm).values()]).toEqual(Array.from({ length: 2 * LIMIT * N }, () => 1));
    expect(batches.linesAnswered()).toBe(2 * LIMIT * N);
    await live;
    const [liveOutcome, gathered] = await Promise.all([cellOutcome(liveId), cellOutcome(id)]);
    expect(gathered).toEqual(liveOutcome);
  });

  it('with the batch server restarted and its worker killed while a batch is in flight: resumed, the batch is not created again', async () => {
    const own = caseEnv();
    const { llm, batches } = await batchServers({ held: true, stateDir: mkdtempSync(path.join(dir, 'provider-')) });
    const id = `batch-kill-${uniqueSuffix()}`;
    const file = writeConfig(id, batches.url, batchYaml(''));
    const first = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], own);
    spawned.push(first);
    await waitUntil(() => batches.batches()[0]?.status === 'in_progress' || undefined, {
      timeoutMs: 300_000,
      intervalMs: 100,
      what: () => `the batch in progress\n${first.output()}`,
    });
    await sleep(500); // a poll or two more
    // The provider goes down and comes back from its disk (connections dropped, memory gone); the
    // worker's polls fail meanwhile and are retried against the restarted server.
    await batches.restart();
    expect(batches.batches().map((b) => b.status)).toEqual(['in_progress']);
    await sleep(1500);
    await killHard(first);
    batches.release();
    const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], own);
    expect(again.code, again.output).toBe(0);
    expect(batches.batches().map((b) => b.status)).toEqual(['completed']);
    expect(batches.uploads()).toBe(1);
    expect([...requestCounts(llm).values()]).toEqual(once());
    await expectSameAsLive(id);
  });

  it('and a live sweep on the same grid while its batch is in flight: the live one waits for it, each request answered once', async () => {
    const own = caseEnv();
    const { llm, batches } = await batchServers({ held: true });
    const id = `batch-shared-${uniqueSuffix()}`;
    const batchRun = spawnTs('scripts/start-sweep.ts', ['--config', writeConfig(id, batches.url, batchYaml('')), '--no-progress'], own);
    spawned.push(batchRun);
    await waitUntil(() => batches.batches()[0]?.status === 'in_progress' || undefined, {
      timeoutMs: 300_000,
      intervalMs: 100,
      what: () => `the batch in progress\n${batchRun.output()}`,
    });
    // The same grid answered live (same endpoint URL and model: the same cache identities), while the batch holds its requests.
    const liveTwin = `batch-shared-live-${uniqueSuffix()}`;
    const liveRun = spawnTs('scripts/start-sweep.ts', ['--config', writeConfig(liveTwin, batches.url, ''), '--no-progress'], own);
    spawned.push(liveRun);
    await sleep(4000); // its shards are asking by now, and wait
    expect(llm.requests()).toHaveLength(0);
    // sweep-status shows the batch sweep's batch, its state and counts (its batch-progress query).
    const status = await runTs('scripts/sweep-status.ts', [id], own);
    expect(status.output).toMatch(new RegExp(`batches: ${batches.batches()[0]!.id} in_progress 0/${LIMIT * N} done`));
    batches.release();
    const [batchEnd, liveEnd] = await Promise.all([batchRun.exited, liveRun.exited]);
    expect(batchEnd.code, batchRun.output()).toBe(0);
    expect(liveEnd.code, liveRun.output()).toBe(0);
    expect(batches.linesAnswered()).toBe(LIMIT * N);
    expect([...requestCounts(llm).values()]).toEqual(once());
    await expectSameAsLive(id);
    await expectSameAsLive(liveTwin);
  });

  it('with a batch that expires half-done and retry_rounds 0: the rest is sent live, each request once, each at its price', async () => {
    const own = caseEnv();
    const { llm, batches } = await batchServers({ expire: { batchNumber: 1, answered: 2 } });
    const id = `batch-expire-${uniqueSuffix()}`;
    // Prices of 10 cents a token and a money cap, so the sweep's closing budget line says what it spent (to 4 decimals, under 100 USD).
    const priced =
      `    price: { input_per_mtok: ${LIVE_PRICE.input}, output_per_mtok: ${LIVE_PRICE.output}, currency: USD }\n` +
      batchYaml(
        `      retry_rounds: 0\n      price: { input_per_mtok: ${BATCH_PRICE.input}, output_per_mtok: ${BATCH_PRICE.output}, currency: USD }\n`,
      ) +
      'budget: { money: 1000 }\n';
    const run = await runTs('scripts/start-sweep.ts', ['--config', writeConfig(id, batches.url, priced), '--no-progress'], own);
    expect(run.code, run.output).toBe(0);
    expect(statuses(batches)).toEqual(['expired 6']);
    expect(batches.linesAnswered()).toBe(2);
    expect([...requestCounts(llm).values()]).toEqual(once());
    await expectSameAsLive(id);
    // Two samples answered by the batch, four live; the cost is each at its own price.
    const samples: SampleRecord[] = [];
    for await (const key of listKeys(bucket, cellRecordsPrefix(id, CELL))) samples.push(...((await readRecordsFile(bucket, key)) ?? []));
    expect(samples).toHaveLength(LIMIT * N);
    const byBatch = samples.filter((r) => r.batch_id !== undefined);
    expect(byBatch).toHaveLength(2);
    expect(byBatch.every((r) => r.batch_id === batches.batches()[0]!.id)).toBe(true);
    const dollars = (rows: readonly SampleRecord[], p: { input: number; output: number }) =>
      rows.reduce((a, r) => a + (r.prompt_tokens * p.input + r.completion_tokens * p.output) / 1_000_000, 0);
    const live = samples.filter((r) => r.batch_id === undefined);
    const expected = dollars(byBatch, BATCH_PRICE) + dollars(live, LIVE_PRICE);
    expect(expected).toBeLessThan(dollars(samples, LIVE_PRICE));
    expect(expected).toBeLessThan(100);
    expect(run.output).toContain(`budget budget.money: spent ${expected.toFixed(4).replace(/\.?0+$/, '')} USD of 1000 USD`);
    const results = JSON.parse((await getText(bucket, cellFileKey(id, CELL, 'results.json')))!) as { cost: Record<string, number> };
    expect(results.cost).toMatchObject({
      batch_prompt_tokens: byBatch.reduce((a, r) => a + r.prompt_tokens, 0),
      batch_completion_tokens: byBatch.reduce((a, r) => a + r.completion_tokens, 0),
    });
  });

  it('self-repair sends each round of its requests as one batch: results of a live run, each request answered once', async () => {
    const own = caseEnv();
    // Two PBE World tasks of 2 samples against the methods' scripted model: round 1 is each task's
    // plan and first answers (3 requests a task), round 2 the repair of sample 0's wrong answer.
    const params = resolvePbeParams({ count: 2, seed: 51 });
    const pbe = pbeProblems(params, 'pbe');
    const liveLlm = await startScriptedLlmServer(exploraScript(pbe));
    const batchLlm = await startScriptedLlmServer(exploraScript(pbe));
    const batches = await startScriptedBatchServer({ upstream: batchLlm.url });
    servers.push(batches, batchLlm, liveLlm);
    const sweep = (id: string, baseUrl: string, batch?: object) => {
      const file = path.join(dir, `${id}.yaml`);
      writeScriptedSweep(file, {
        id,
        datasets: [{ name: 'pbe', pbe: { count: params.count, seed: params.seed } }],
        baseUrl,
        model: MODEL,
        modelOptions: batch ? { batch } : {},
        methods: ['self-repair'],
        // Sample 0's first answer runs but returns the wrong values: checked against them, it is repaired.
        methodOptions: { repair_check: 'outputs' },
        nSamples: 2,
        k: [1, 2],
      });
      return file;
    };
    const liveTwin = `rounds-live-${uniqueSuffix()}`;
    const id = `rounds-batch-${uniqueSuffix()}`;
    const [live, batched] = await Promise.all([
      runTs('scripts/start-sweep.ts', ['--config', sweep(liveTwin, liveLlm.url), '--no-progress'], own),
      runTs('scripts/start-sweep.ts', ['--config', sweep(id, batches.url, { poll_s: 0.2, max_poll_s: 0.5 }), '--no-progress'], own),
    ]);
    expect(live.code, live.output).toBe(0);
    expect(batched.code, batched.output).toBe(0);
    // Two rounds, two batches: 2 plans + 4 first answers, then 2 repairs; nothing live.
    expect(statuses(batches)).toEqual(['completed 2', 'completed 6']);
    expect(batches.linesAnswered()).toBe(8);
    expect([...requestCounts(batchLlm).values()]).toEqual(Array.from({ length: 8 }, () => 1));
    expect(requestCounts(liveLlm).size).toBe(8);
    const cell = 'pbe.chat.self-repair.t0.8';
    const [liveOutcome, batchOutcome] = await Promise.all([cellOutcome(liveTwin, cell), cellOutcome(id, cell)]);
    expect(batchOutcome.samples).toHaveLength(4);
    expect(batchOutcome).toEqual(liveOutcome);
  });
});
