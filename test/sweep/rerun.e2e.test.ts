/**
 * Starting a sweep again: a finished one shows its stored results and starts nothing (no workflow
 * run, no request, no object written, --output-dir still written); a terminated one resumes, keeping
 * the cells it had finished as they are.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cellFileKey,
  cellPrefix,
  cellShardRecordsKey,
  cellShardWorkflowId,
  cellSummaryKey,
  cellWorkflowId,
  sweepPrefix,
  sweepResultsKey,
  sweepWorkflowId,
} from '../../domain/sweep/keys.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { getBytes, getText, headMetadata, putObject } from '../../infra/s3.js';
import { sweepCellWorkflow } from '../../workflows/sweepCell.js';
import type { CellInput } from '../../workflows/sweepTypes.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { lastModifiedUnder, testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { connectClient, withWorkers } from '../support/temporal.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, scriptedAnswers, scriptedModelYaml, SWEEP_SEED } from './support.js';
import { rightAnswer, tinyProblem } from './saved-shard.js';

const { config } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-rerun-'));
const LIMIT = 2;
const N = 2;
const problems = humanEvalProblems(LIMIT);
const answers = scriptedAnswers(problems);
let server: ScriptedLlmServer;
const spawned: Spawned[] = [];

beforeAll(async () => {
  // The `slow` model's answers take long enough for its cell to be unfinished when the sweep stops.
  server = await startScriptedLlmServer((req) => {
    const reply = answers(req);
    return String(req.body.model).startsWith('slow') && 'content' in reply ? { ...reply, delayMs: 2500 } : reply;
  });
});
afterAll(async () => {
  for (const p of spawned) if (p.child.exitCode === null && p.child.signalCode === null) await killHard(p);
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(id: string, models: string[]): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${models.map((m) => scriptedModelYaml(m, server.url, `${m}-${id}`, 'chat')).join('')}methods: [direct]
temperatures: [0.2]
n_samples: ${N}
k: [1]
limit: ${LIMIT}
timeout_s: 5
seed: ${SWEEP_SEED}
`,
  );
  return file;
}

/** Every object under the prefix: its last-modified time and its bytes. */
async function snapshot(prefix: string): Promise<Map<string, { modifiedMs: number; bytes: string }>> {
  const out = new Map<string, { modifiedMs: number; bytes: string }>();
  for (const [key, modifiedMs] of await lastModifiedUnder(bucket, prefix))
    out.set(key, { modifiedMs, bytes: Buffer.from((await getBytes(bucket, key))!).toString('base64') });
  return out;
}

async function runIdOf(workflowId: string): Promise<string> {
  const { client, close } = await connectClient(config);
  try {
    return (await client.workflow.getHandle(workflowId).describe()).runId;
  } finally {
    await close();
  }
}

/** The requests sweep `id` sent: its models' names end in its id. */
const sentBy = (id: string) => server.requests().filter((r) => String(r.body.model).endsWith(`-${id}`)).length;

// The cases run at once, each on task queues of its own (its own in-process workers), with sweep ids
// and model names of its own: their sweeps' waits overlap.
describe.concurrent('start-sweep on a sweep that was started before', () => {
  it('a finished sweep: its stored results are printed and --output-dir written; nothing started, sent or stored', async () => {
    const { env } = testConfig();
    const id = `rerun-${uniqueSuffix()}`;
    const file = writeConfig(id, ['fast']);
    const first = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(first.code, first.output).toBe(0);
    const before = await snapshot(sweepPrefix(id));
    expect(before.has(sweepResultsKey(id))).toBe(true);
    const runId = await runIdOf(sweepWorkflowId(id));
    const cellRunId = await runIdOf(cellWorkflowId(id, 'humaneval.fast.direct.t0.2'));
    const sent = sentBy(id);
    expect(sent).toBe(LIMIT * N);
    // Later than the first run's writes by more than the store's time resolution: a rewrite would show.
    await sleep(1100);

    const out = path.join(dir, `${id}-out`);
    const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress', '--output-dir', out], env);
    expect(again.code, again.output).toBe(0);
    expect(sentBy(id)).toBe(sent);
    expect(await runIdOf(sweepWorkflowId(id))).toBe(runId);
    expect(await runIdOf(cellWorkflowId(id, 'humaneval.fast.direct.t0.2'))).toBe(cellRunId);
    expect(await snapshot(sweepPrefix(id))).toEqual(before);
    expect(again.output).toMatch(new RegExp(`sweep ${id} has finished: its stored results follow; nothing was started`));
    expect(again.output).toMatch(/humaneval\.fast\.direct\.t0\.2\s+2\s+4/);
    expect(again.output).toContain(`results: s3://${config.s3.bucket}/${sweepResultsKey(id)}`);
    for (const f of ['generations.json', 'references.json', 'results.json', 'samples.jsonl'] as const) {
      const stored = Buffer.from((await getBytes(bucket, cellFileKey(id, 'humaneval.fast.direct.t0.2', f)))!);
      expect(readFileSync(path.join(out, 'humaneval.fast.direct.t0.2', f)).equals(stored), f).toBe(true);
    }
  });

  it('a terminated sweep resumes: the cells it finished are kept as they are (not run again), the others finish', async () => {
    const { env } = testConfig();
    const id = `rerun-stop-${uniqueSuffix()}`;
    const file = writeConfig(id, ['fast', 'slow']);
    const fast = 'humaneval.fast.direct.t0.2';
    const slow = 'humaneval.slow.direct.t0.2';
    const first = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    spawned.push(first);
    await waitUntil(() => headMetadata(bucket, cellSummaryKey(id, fast)), {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: () => `cell ${fast} to finish\n${first.output()}`,
    });
    expect(await headMetadata(bucket, cellSummaryKey(id, slow))).toBeNull();
    const { client, close } = await connectClient(config);
    try {
      await client.workflow.getHandle(sweepWorkflowId(id)).terminate('the test stops the sweep midway');
    } finally {
      await close();
    }
    const stopped = await first.exited;
    expect(stopped.code, first.output()).not.toBe(0);
    const fastBefore = await snapshot(cellPrefix(id, fast));
    const fastRunId = await runIdOf(cellWorkflowId(id, fast));
    const fastRequests = () => server.requests().filter((r) => r.body.model === `fast-${id}`).length;
    expect(fastRequests()).toBe(LIMIT * N);
    await sleep(1100);

    const again = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(again.code, again.output).toBe(0);
    expect(again.output).not.toMatch(/has finished/);
    // The finished cell: no new run of its workflow, not one of its objects written again.
    expect(await runIdOf(cellWorkflowId(id, fast))).toBe(fastRunId);
    expect(await snapshot(cellPrefix(id, fast))).toEqual(fastBefore);
    expect(fastRequests()).toBe(LIMIT * N);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { cell: string }; samples: number; cost: { wallSeconds: number } }>;
    };
    expect(results.cells.map((c) => [c.cell.cell, c.samples])).toEqual([
      [fast, LIMIT * N],
      [slow, LIMIT * N],
    ]);
    // The kept cell's summary is the one stored when it finished, its wall time included.
    const storedFast = JSON.parse((await getText(bucket, cellSummaryKey(id, fast)))!) as { cost: { wallSeconds: number } };
    expect(results.cells[0]!.cost.wallSeconds).toBe(storedFast.cost.wallSeconds);
  });

  it('a cell started again keeps the shards an earlier run finished: not run again, their records not rewritten; sharded otherwise, it keeps none', async () => {
    const own = testConfig().config;
    const sweepId = `rerun-shards-${uniqueSuffix()}`;
    const cellId = 'ds.loaded';
    // Three one-task shards run one at a time; the last one's program takes 6 s, time to stop the cell.
    const code = (i: number) => rightAnswer(i, i === 2 ? 6 : 0);
    const datasetKey = `${sweepPrefix(sweepId)}datasets/ds.jsonl`;
    await putObject(bucket, datasetKey, [0, 1, 2].map((i) => JSON.stringify(tinyProblem(i)) + '\n').join(''));
    const savedKey = `${sweepPrefix(sweepId)}inputs/generations.json`;
    await putObject(bucket, savedKey, JSON.stringify([0, 1, 2].map((i) => [code(i)])));
    const queues = {
      workflows: own.taskQueues.workflows,
      storage: own.taskQueues.storage,
      sandbox: own.taskQueues.sandbox,
      llmBase: own.taskQueues.llm,
    };
    const input: CellInput = {
      sweepId,
      cell: {
        id: cellId,
        dataset: 'ds',
        model: 'loaded',
        method: 'loaded',
        temperature: 0,
        endpoint: { id: 'loaded', baseUrl: 'http://127.0.0.1:9/v1', model: 'loaded', api: 'completions', requestTimeoutS: 1 },
        sampling: { model: 'loaded', temperature: 0, top_p: 1, max_tokens: 1 },
        stop: [],
      },
      mode: 'evaluate-only',
      datasetKey,
      savedGenerationsKey: savedKey,
      tasks: 3,
      nSamples: 1,
      k: [1],
      timeoutS: 20,
      queues,
      tasksPerShard: 1,
      maxParallelShards: 1,
      maxHistoryEvents: 8_000,
    };
    const workflowId = cellWorkflowId(sweepId, cellId);
    const { client, close } = await connectClient(own);
    try {
      await withWorkers(own, ['workflows', 'storage', 'sandbox'], async () => {
        const first = await client.workflow.start(sweepCellWorkflow, { workflowId, taskQueue: queues.workflows, args: [input] });
        await waitUntil(() => headMetadata(bucket, cellShardRecordsKey(sweepId, cellId, 1)), {
          timeoutMs: 120_000,
          intervalMs: 200,
          what: 'shards 0 and 1 to finish',
        });
        expect(await headMetadata(bucket, cellShardRecordsKey(sweepId, cellId, 2))).toBeNull();
        await first.terminate('the test stops the cell midway');
        await client.workflow
          .getHandle(cellShardWorkflowId(sweepId, cellId, 2))
          .terminate()
          .catch(() => undefined);
        const shardRuns = await Promise.all(
          [0, 1].map(async (i) => (await client.workflow.getHandle(cellShardWorkflowId(sweepId, cellId, i)).describe()).runId),
        );
        const records = await snapshot(`${cellPrefix(sweepId, cellId)}records/`);
        expect(records.size).toBe(2);
        await sleep(1100);

        const again = await client.workflow.start(sweepCellWorkflow, { workflowId, taskQueue: queues.workflows, args: [input] });
        const summary = (await again.result()) as CellSummary;
        expect([summary.samples, summary.tasks, summary.passAtK['pass@1']]).toEqual([3, 3, 1]);
        // The finished shards: no new run, their records as they were; the stopped one ran again.
        expect(
          await Promise.all(
            [0, 1].map(async (i) => (await client.workflow.getHandle(cellShardWorkflowId(sweepId, cellId, i)).describe()).runId),
          ),
        ).toEqual(shardRuns);
        const after = await snapshot(`${cellPrefix(sweepId, cellId)}records/`);
        for (const [key, v] of records) expect(after.get(key), key).toEqual(v);
        expect(after.has(cellShardRecordsKey(sweepId, cellId, 2))).toBe(true);

        // Started again sharded otherwise (two tasks a shard, as newer code may shard a restarted
        // sweep): the stored shards hold other tasks than shards 0 and 1 now do, so neither is
        // kept; both run and replace them, and every task is counted once.
        await sleep(1100);
        const resharded = await client.workflow.start(sweepCellWorkflow, {
          workflowId,
          taskQueue: queues.workflows,
          args: [{ ...input, tasksPerShard: 2 }],
        });
        const regrouped = (await resharded.result()) as CellSummary;
        expect([regrouped.samples, regrouped.tasks, regrouped.passAtK['pass@1']]).toEqual([3, 3, 1]);
        const tasksOf = async (shard: number) =>
          (await getText(bucket, cellShardRecordsKey(sweepId, cellId, shard)))!
            .trim()
            .split('\n')
            .map((line) => (JSON.parse(line) as { task_index: number }).task_index);
        expect([await tasksOf(0), await tasksOf(1)]).toEqual([[0, 1], [2]]);
      });
    } finally {
      await close();
    }
  });
});
