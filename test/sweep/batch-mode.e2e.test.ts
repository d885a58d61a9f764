/**
 * Batch mode end to end on the shared stack: the same HumanEval sweep answered live and answered in
 * batches (models[i].batch, against the scripted Batch API server in front of the same scripted
 * LLM server) gives the same results and samples; every request reaches the model once per sweep,
 * in batches of at most max_requests, and the live path sends nothing after them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedBatchServer, type ScriptedBatchServer } from '../support/scripted-batch-server.js';
import { canonicalBodyKey, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { HUMANEVAL_DATASETS_YAML, humanEvalProblems, scriptedAnswers, SWEEP_SEED } from './support.js';
import { z } from 'zod';

const { config, env } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-batch-mode-'));
const LIMIT = 3;
const N = 2;
const problems = humanEvalProblems(LIMIT);
let llm: ScriptedLlmServer;
let batches: ScriptedBatchServer;

beforeAll(async () => {
  llm = await startScriptedLlmServer(scriptedAnswers(problems));
  batches = await startScriptedBatchServer({ upstream: llm.url });
});
afterAll(async () => {
  await batches.close();
  await llm.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(id: string, baseUrl: string, model: string, batch: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
${HUMANEVAL_DATASETS_YAML}models:
  - id: m
    base_url: ${baseUrl}
    model: ${model}
    api: completions
    concurrency: 2
    request_timeout_s: 10
${batch}methods: [direct]
temperatures: [0.2]
n_samples: ${N}
k: [1, 2]
limit: ${LIMIT}
timeout_s: 5
seed: ${SWEEP_SEED}
`,
  );
  return file;
}

const CELL = 'humaneval.m.direct.t0.2';

/**
 * How often each request reached the model, by its body as the method made it: the live path adds
 * the defaults `n: 1` and `stream: false`, a batch line sends the body as it is.
 */
function requestCounts(): Map<string, number> {
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
async function cellOutcome(sweepId: string) {
  const results = JSON.parse((await getText(bucket, cellFileKey(sweepId, CELL, 'results.json')))!) as Record<string, unknown>;
  const samplesText = (await getText(bucket, cellFileKey(sweepId, CELL, 'samples.jsonl')))!;
  const samples = parseJsonl(samplesText, z.record(z.string(), z.unknown()), 'samples.jsonl').map((r) => r.row);
  return { results: withoutRunFields(results), samples: samples.map(withoutRunFields) };
}

const RUN_FIELD = /(^|_)(ms|seconds|key|keys|at|time|started|finished|wall|duration|llm_key)$|Ms$|Seconds$|Key$|At$/i;
function withoutRunFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRunFields);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !RUN_FIELD.test(k) && k !== 'provenance')
        .map(([k, v]) => [k, withoutRunFields(v)]),
    );
  return value;
}

describe('a sweep in batch mode', () => {
  it('gives the results and samples of the same sweep answered live, each request answered once', async () => {
    const suffix = uniqueSuffix();
    // The same model name in both: the same request bodies reach the scripted model.
    const liveId = `batch-live-${suffix}`;
    const batchId = `batch-mode-${suffix}`;
    const model = `scripted-${suffix}`;
    const live = await runTs('scripts/start-sweep.ts', ['--config', writeConfig(liveId, llm.url, model, ''), '--no-progress'], env);
    expect(live.code, live.output).toBe(0);
    expect([...requestCounts().values()]).toEqual(Array.from({ length: LIMIT * N }, () => 1));

    const batchYaml = `    batch:
      max_requests: 4
      poll_s: 0.2
      max_poll_s: 0.5
`;
    const run = await runTs(
      'scripts/start-sweep.ts',
      ['--config', writeConfig(batchId, batches.url, model, batchYaml), '--no-progress'],
      env,
    );
    expect(run.code, run.output).toBe(0);
    // Each request once more, all of them in batches: 6 requests in sets of 4 and 2, nothing live after.
    expect([...requestCounts().values()]).toEqual(Array.from({ length: LIMIT * N }, () => 2));
    expect(batches.linesAnswered()).toBe(LIMIT * N);
    // The two sets' batches run at once: in either order.
    expect(
      batches
        .batches()
        .map((b) => `${b.status} ${b.request_counts.total}`)
        .sort(),
    ).toEqual(['completed 2', 'completed 4']);
    expect(batches.uploads()).toBe(2);

    const [liveOutcome, batchOutcome] = await Promise.all([cellOutcome(liveId), cellOutcome(batchId)]);
    expect(batchOutcome.samples).toHaveLength(LIMIT * N);
    expect(batchOutcome).toEqual(liveOutcome);
    const sweepResults = JSON.parse((await getText(bucket, sweepResultsKey(batchId)))!) as { cells: Array<{ passAtK: unknown }> };
    const liveResults = JSON.parse((await getText(bucket, sweepResultsKey(liveId)))!) as { cells: Array<{ passAtK: unknown }> };
    expect(sweepResults.cells.map((c) => c.passAtK)).toEqual(liveResults.cells.map((c) => c.passAtK));
  });
});
