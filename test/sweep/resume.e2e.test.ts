import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_MS } from '../../infra/llm/cache.js';
import { estimateAtK } from '../../domain/metrics/passAtK.js';
import { getText, s3ClientFor } from '../../infra/s3.js';
import { parseConfig } from '../../domain/config/env.js';
import { sweepResultsKey, sweepWorkflowId } from '../../domain/sweep/keys.js';
import { stackDown, stackPaths, stackUp } from '../../stack/local-stack.js';
import type { sweepWorkflow } from '../../workflows/sweep.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { TEST_NAMESPACE, uniqueSuffix } from '../support/config.js';
import { expectedCounts, HUMANEVAL_DATASETS_YAML, humanEvalProblems, scriptedAnswers, scriptedModelYaml, SWEEP_SEED } from './support.js';

// A private stack on ports of its own: this file stops and restarts Temporal and SeaweedFS, which
// must not disturb the tests that share the main stack.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'explora-resume-'));
const env: Record<string, string> = {
  TEMPORAL_ADDRESS: '127.0.0.1:7633',
  EXPLORA_TEMPORAL_UI: 'http://127.0.0.1:8733',
  EXPLORA_S3_ENDPOINT: 'http://127.0.0.1:8633',
  // With an endpoint set, keys are given explicitly (unset, the AWS credential chain is used).
  EXPLORA_S3_ACCESS_KEY_ID: 'exploraadmin',
  EXPLORA_S3_SECRET_ACCESS_KEY: 'explora-local-secret',
  EXPLORA_S3_BUCKET: 'resumetest',
  EXPLORA_DATA_DIR: dataDir,
  EXPLORA_WEED_MASTER_PORT: '9633',
  EXPLORA_WEED_FILER_PORT: '9188',
  EXPLORA_WEED_VOLUME_PORT: '9640',
  EXPLORA_WEED_ADMIN_PORT: '9646',
  EXPLORA_STACK_MODEL: 'off',
  EXPLORA_TASK_QUEUE_PREFIX: 'resume',
  // The private stack's server creates the tests' namespace; set here because config reads env alone.
  TEMPORAL_NAMESPACE: TEST_NAMESPACE,
};
const config = parseConfig(env);
const paths = stackPaths({ ...process.env, ...env });
const LIMIT = 4;
/**
 * A killed worker's model calls go to another once their heartbeats are this late: the lowest a
 * config may set but for a margin (they beat every 5 s), not the default 30 s a kill then waits out.
 */
const HEARTBEAT_TIMEOUT_S = 15;
const N = 6;
const problems = humanEvalProblems(LIMIT);
let server: ScriptedLlmServer;
const workers: Spawned[] = [];

beforeAll(async () => {
  await stackUp(config, () => {}, paths);
  // Slow answers, so that there is a "middle" of the sweep to interrupt.
  server = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), 250));
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await killHard(w);
  await server?.close();
  await stackDown(config, () => {}, paths);
  rmSync(dataDir, { recursive: true, force: true });
});

function writeConfig(id: string, model: string): string {
  const file = path.join(dataDir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${scriptedModelYaml('plain', server.url, model, 'completions')}${scriptedModelYaml('chatty', server.url, `${model}-chat`, 'chat')}methods: [direct]
temperatures: [0.5]
n_samples: ${N}
k: [1, 3]
limit: ${LIMIT}
seed: ${SWEEP_SEED}
heartbeat_timeout_s: ${HEARTBEAT_TIMEOUT_S}
`,
  );
  return file;
}

function startWorker(file: string): Spawned {
  const w = spawnTs('workers/main.ts', ['--sweep-config', file], env);
  workers.push(w);
  return w;
}

/**
 * Starts the sweep without waiting, with a worker of its own (started while start-sweep is: each
 * takes seconds to start), lets `interrupt` do its damage, and returns the sweep's results.
 */
async function runInterrupted(id: string, model: string, interrupt: (file: string, worker: Spawned) => Promise<void>) {
  const file = writeConfig(id, model);
  const worker = startWorker(file);
  const started = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait'], env);
  expect(started.code, started.output).toBe(0);
  await interrupt(file, worker);
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    await client.workflow.getHandle<typeof sweepWorkflow>(sweepWorkflowId(id)).result();
    // The config's heartbeat timeout is what every model call of the sweep was scheduled with.
    expect(await llmHeartbeatTimeouts(client, sweepWorkflowId(id))).toEqual(new Set([HEARTBEAT_TIMEOUT_S]));
  } finally {
    await connection.close();
  }
  const s3 = s3ClientFor(config);
  try {
    const results = JSON.parse((await getText({ s3, name: config.s3.bucket }, sweepResultsKey(id)))!);
    const details = [];
    for (const c of results.cells) details.push(JSON.parse((await getText({ s3, name: config.s3.bucket }, c.resultsKey))!));
    return details.map((d) => ({
      cell: String(d.cell).replace(/^[^.]+\./, ''),
      perTask: d.per_task,
      pass: d['pass@1'],
      pass3: d['pass@3'],
    }));
  } finally {
    s3.destroy();
  }
}

/** The heartbeat timeouts (s) of the activities on the models' queues anywhere under the workflow (children followed). */
async function llmHeartbeatTimeouts(client: Client, workflowId: string, runId?: string): Promise<Set<number>> {
  const out = new Set<number>();
  for (const event of (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.taskQueue?.name?.startsWith(config.taskQueues.llm)) out.add(Number(scheduled.heartbeatTimeout?.seconds));
    const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
    if (child?.workflowId) for (const t of await llmHeartbeatTimeouts(client, child.workflowId, child.runId ?? undefined)) out.add(t);
  }
  return out;
}

function requestsFor(model: string) {
  return server.requests().filter((r) => String(r.body.model).startsWith(model));
}

/**
 * Every distinct request reached the server once — except those whose answer was on its way when
 * the worker died (sent to a dead process, never cached): those, and only those, are sent again.
 */
/** Each request sent once; those in flight at a kill twice; those answered just before it once or twice. */
function expectExactlyOnce(model: string, inFlightAtKill: Set<string> = new Set(), maybeUnstored: Set<string> = new Set()) {
  const counts = new Map<string, number>();
  for (const r of requestsFor(model)) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
  expect(counts.size).toBe(2 * LIMIT * N);
  for (const [key, count] of counts) {
    if (inFlightAtKill.has(key)) expect(count, key).toBe(2);
    else if (maybeUnstored.has(key)) expect([1, 2], key).toContain(count);
    else expect(count, key).toBe(1);
  }
}

/** Requests sent by `time` and not answered: in flight when the worker died. */
function inFlightAt(model: string, time: number): Set<string> {
  return new Set(
    requestsFor(model)
      .filter((r) => r.time <= time && r.answeredAt === undefined)
      .map((r) => r.key),
  );
}

/**
 * Requests answered in the last moments before the kill began: their answers may still have been
 * waiting to be stored (quick answers wait up to LINGER_MS for company, then the write takes a few
 * ms), so they may be asked again; nothing answered earlier may.
 */
function answeredJustBefore(model: string, killStartedAt: number, killedAt: number): Set<string> {
  const from = killStartedAt - LINGER_MS - 100;
  return new Set(
    requestsFor(model)
      .filter((r) => r.answeredAt !== undefined && r.answeredAt >= from && r.answeredAt <= killedAt)
      .map((r) => r.key),
  );
}

/**
 * The results an uninterrupted sweep gives: each task's counts as the script answers them, and
 * pass@k from those. (Every other sweep test runs uninterrupted; a run of its own here only cost time.)
 */
function expectUninterruptedResults(results: Awaited<ReturnType<typeof runInterrupted>>): void {
  const expected = expectedCounts(problems, N);
  const atK = estimateAtK(expected, [1, 3]).averages;
  expect(results.map((r) => r.cell).sort()).toEqual(['chatty.direct.t0.5', 'plain.direct.t0.5']);
  for (const cell of results) {
    expect(cell.perTask.map((t: { task_id: string; n: number; c: number; s: number }) => [t.task_id, t.n, t.c, t.s])).toEqual(
      expected.map((e, i) => [problems[i]!.task_id, e.n, e.c, e.s]),
    );
    expect(cell.pass).toBeCloseTo(atK['1']!, 12);
    expect(cell.pass3).toBeCloseTo(atK['3']!, 12);
  }
}

describe('a sweep survives its infrastructure dying', () => {
  let afterKill: Awaited<ReturnType<typeof runInterrupted>>;

  it('SIGKILL of the worker mid-sweep: a new worker finishes it, identical results; every answered request sent once, only those in flight at the kill again', async () => {
    const model = `kill-${uniqueSuffix()}`;
    let inFlight = new Set<string>();
    let unstored = new Set<string>();
    const results = await runInterrupted(`kill-${uniqueSuffix()}`, model, async (file, first) => {
      await waitUntil(() => requestsFor(model).length >= (2 * LIMIT * N) / 3, {
        what: 'a third of the requests',
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      const killStartedAt = Date.now();
      await killHard(first);
      inFlight = inFlightAt(model, Date.now());
      unstored = answeredJustBefore(model, killStartedAt, Date.now());
      expect(requestsFor(model).length).toBeLessThan(2 * LIMIT * N);
      startWorker(file);
    });
    expectUninterruptedResults(results);
    afterKill = results;
    // At most the two models' concurrency (2 + 2) can have been in flight.
    expect(inFlight.size).toBeLessThanOrEqual(4);
    expectExactlyOnce(model, inFlight, unstored);
    for (const w of workers.splice(0)) await killHard(w);
  });

  it('Temporal and then SeaweedFS stopped and restarted mid-sweep: identical results, every request sent once', async () => {
    const model = `restart-${uniqueSuffix()}`;
    const results = await runInterrupted(`restart-${uniqueSuffix()}`, model, async () => {
      await waitUntil(() => requestsFor(model).length >= (2 * LIMIT * N) / 4, {
        what: 'a quarter of the requests',
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      await stackDown(config, () => {}, paths, ['temporal']);
      await sleep(2000);
      await stackUp(config, () => {}, paths);
      const atRestart = requestsFor(model).length;
      await waitUntil(() => requestsFor(model).length >= Math.min(2 * LIMIT * N, atRestart + 8), {
        what: 'more requests after the Temporal restart',
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      await stackDown(config, () => {}, paths, ['seaweedfs']);
      await sleep(2000);
      await stackUp(config, () => {}, paths);
    });
    expectUninterruptedResults(results);
    // Every field of every task's record the same as after the kill (not only the counts).
    expect(results).toEqual(afterKill);
    expectExactlyOnce(model);
  });
});
