/**
 * Kill-and-resume in the middle of an exploration chain: the worker is SIGKILLed while subtask 2's
 * candidates are being asked for; a new worker finishes the sweep. The plan, the reranks, subtask
 * 1's explorations and its debug round are never requested again (they are in history and in the
 * cache); only the requests in flight at the kill are sent a second time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { sleep, waitUntil } from '../support/poll.js';
import { testBucket } from '../support/s3.js';
import { connectClient } from '../support/temporal.js';
import { startScriptedLlmServer, type Reply, type ScriptedLlmServer, type ScriptedRequest } from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { classify, exploraScript, writeScriptedSweep, type Classified } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-methods-resume-'));
const PARAMS = resolvePbeParams({ count: 1, seed: 61 });
const problems = pbeProblems(PARAMS);
const workers: Spawned[] = [];
let server: ScriptedLlmServer;
let killed = false;
let reachedSubtask2 = false;

beforeAll(async () => {
  const answer = exploraScript(problems);
  server = await startScriptedLlmServer((req: ScriptedRequest): Reply => {
    const c: Classified = classify(req, problems);
    if (c.role === 'explore' && c.subtask === 1 && !killed) {
      // Until the worker is dead, subtask 2's requests never get an answer: the kill lands mid-step.
      reachedSubtask2 = true;
      return { hang: true };
    }
    return answer(req);
  });
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await killHard(w);
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('an exploration chain survives its worker', () => {
  it('resumes at the subtask it was in, repeating no finished request', async () => {
    const id = `explora-resume-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'pbe', pbe: { count: PARAMS.count, seed: PARAMS.seed } }],
      baseUrl: server.url,
      // This run's own: a server on an earlier run's port would find that run's answers in the
      // tests' shared bucket's cache.
      model: `scripted-${uniqueSuffix()}`,
      modelOptions: { concurrency: 8, request_timeout_s: 300 },
      methods: ['exploracoder-debug'],
      nSamples: 2,
      k: [1],
      // The calls in flight at the kill go to the new worker once their heartbeats are 15 s late,
      // not after the default 30 s.
      extra: { heartbeat_timeout_s: 15 },
    });
    // The worker starts while start-sweep does (each takes seconds to start): it polls until the sweep is there.
    const first = spawnTs('workers/main.ts', ['--sweep-config', file], env);
    workers.push(first);
    const started = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait', '--worker', 'external'], env);
    expect(started.code, started.output).toBe(0);
    await waitUntil(() => reachedSubtask2, { what: 'subtask 2 to be explored', timeoutMs: 240_000, intervalMs: 50 });
    // Let every candidate of subtask 2 reach the server, then kill mid-step.
    await sleep(1000);
    await killHard(first);
    killed = true;
    const before = server.requests().length;
    const inFlight = new Set(
      server
        .requests()
        .filter((r) => r.answeredAt === undefined)
        .map((r) => r.key),
    );
    expect(inFlight.size).toBeGreaterThan(0);

    workers.push(spawnTs('workers/main.ts', ['--sweep-config', file], env));
    const { client, close } = await connectClient(config);
    try {
      await client.workflow.getHandle(sweepWorkflowId(id)).result();
    } finally {
      await close();
    }
    expect(server.requests().length).toBeGreaterThan(before);

    const counts = new Map<string, number>();
    for (const r of server.requests()) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
    for (const [key, count] of counts) expect(count, key.slice(0, 200)).toBe(inFlight.has(key) ? 2 : 1);
    // Everything in flight was a subtask-2 exploration request.
    for (const r of server.requests().filter((x) => inFlight.has(x.key))) {
      const c = classify({ ...r, requestNumber: r.requestNumber } as ScriptedRequest, problems);
      expect([c.role, c.subtask]).toEqual(['explore', 1]);
    }

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    expect(results.cells[0].passAtK['pass@1']).toBe(1);
    // The cost counts each distinct request once: a request whose worker died before its answer
    // was stored leaves no record of the first attempt (a known undercount, in the README).
    expect(results.cells[0].cost.calls).toBe(counts.size);
  });
});
