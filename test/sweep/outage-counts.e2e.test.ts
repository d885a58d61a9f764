/**
 * What a sweep counts when its endpoint goes away midway: `calls` is the requests the endpoint
 * answered, `requests_unanswered` those it received and never answered, and the attempts refused
 * while it was down count nowhere (they used to add a call each).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { sleep, waitUntil } from '../support/poll.js';
import { killHard, spawnTs, type Spawned } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer, type Script } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, scriptedAnswers, scriptedModelYaml, SWEEP_SEED } from './support.js';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-outage-'));
const LIMIT = 4;
const N = 3;
const problems = humanEvalProblems(LIMIT);
const servers: ScriptedLlmServer[] = [];
let sweep: Spawned | undefined;

afterAll(async () => {
  if (sweep && sweep.child.exitCode === null && sweep.child.signalCode === null) await killHard(sweep);
  for (const s of servers) await s.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('an endpoint that goes down midway', () => {
  it('counts the requests it answered as calls, those it received and dropped apart, and the refused ones nowhere', async () => {
    const answers = scriptedAnswers(problems);
    // The first server answers slowly, and the 5th request it receives not at all: it is in
    // flight when the server stops.
    const slow: Script = (req) => (req.requestNumber === 5 ? { hang: true } : { ...answers(req), delayMs: 200 });
    const first = await startScriptedLlmServer(slow);
    servers.push(first);
    const id = `outage-${uniqueSuffix()}`;
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(
      file,
      `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
${scriptedModelYaml('m', first.url, `m-${id}`, 'chat')}methods: [direct]
temperatures: [0.2]
n_samples: ${N}
k: [1]
limit: ${LIMIT}
timeout_s: 5
seed: ${SWEEP_SEED}
`,
    );
    sweep = spawnTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    const running = sweep;
    await waitUntil(() => first.requests().length >= 6, { timeoutMs: 120_000, what: () => `six requests to arrive\n${running.output()}` });
    await first.close();
    // Down long enough for the workers' retries to find the port closed.
    await sleep(4000);
    const second = await startScriptedLlmServer(answers, { port: first.port });
    servers.push(second);
    const { code } = await running.exited;
    expect(code, running.output()).toBe(0);

    const received = [...first.requests(), ...second.requests()];
    const answered = received.filter((r) => r.answeredAt !== undefined).length;
    const unanswered = received.length - answered;
    expect(unanswered).toBeGreaterThanOrEqual(1);
    // Every sample's request was answered once: the dropped ones were asked again, nothing twice.
    expect(answered).toBe(LIMIT * N);
    expect(new Set(received.filter((r) => r.answeredAt !== undefined).map((r) => r.key)).size).toBe(LIMIT * N);

    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as {
      cells: Array<{ cell: { cell: string }; cost: { calls: number; requestsUnanswered?: number } }>;
    };
    expect(results.cells).toHaveLength(1);
    expect(results.cells[0]!.cost.calls).toBe(answered);
    expect(results.cells[0]!.cost.requestsUnanswered).toBe(unanswered);
    const detail = JSON.parse((await getText(bucket, cellFileKey(id, results.cells[0]!.cell.cell, 'results.json')))!) as {
      cost: { calls: number; requests_unanswered: number; calls_per_task: number };
    };
    expect(detail.cost).toMatchObject({ calls: answered, requests_unanswered: unanswered, calls_per_task: N });
    expect(running.output()).toMatch(new RegExp(`requests sent but not answered .*: ${results.cells[0]!.cell.cell} ${unanswered}`));
  });
});
