/**
 * Two sweeps started at the same moment whose grids overlap (same dataset, model, temperature and
 * seed; both run ExploraCoder, and each one more method) on the real stack, each with its own
 * workers: every request reaches the model once, and the shared cells' results are identical.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../infra/s3.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { pbeProblems } from '../sweep/support.js';
import { exploraScript, writeScriptedSweep } from './support.js';

const { env } = testConfig();
const bucket = testBucket(testConfig().config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-overlap-e2e-'));
const PLAIN = resolvePbeParams({ count: 2, seed: 53 });
const problems = pbeProblems(PLAIN, 'plain');
let server: ScriptedLlmServer;

beforeAll(async () => {
  const script = exploraScript(problems);
  // Slow enough that the two sweeps' requests for the same calls are in flight together.
  server = await startScriptedLlmServer((req) => ({ ...script(req), delayMs: 200 }));
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

type Results = {
  cells: Array<{
    cell: { method: string };
    passAtK: Record<string, number>;
    cost: { calls: number; sandboxRuns: number; promptTokens: number; completionTokens: number };
  }>;
};

describe('two sweeps on overlapping grids at once', () => {
  it('send every request once between them, and agree on the cells they share', async () => {
    const model = `scripted-overlap-${uniqueSuffix()}`;
    const sweeps = [
      { id: `overlap-a-${uniqueSuffix()}`, methods: ['exploracoder', 'direct'] },
      { id: `overlap-b-${uniqueSuffix()}`, methods: ['exploracoder', 'rag'] },
    ];
    const runs = await Promise.all(
      sweeps.map((s) => {
        const file = path.join(dir, `${s.id}.yaml`);
        writeScriptedSweep(file, {
          id: s.id,
          datasets: [{ name: 'plain', pbe: { count: PLAIN.count, seed: PLAIN.seed } }],
          baseUrl: server.url,
          model,
          modelOptions: { concurrency: 8 },
          methods: s.methods,
          nSamples: 2,
          k: [1],
        });
        return runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
      }),
    );
    for (const run of runs) expect(run.code, run.output).toBe(0);
    const [a, b] = await Promise.all(sweeps.map(async (s) => JSON.parse((await getText(bucket, sweepResultsKey(s.id)))!) as Results));
    const explora = (r: Results) => r.cells.find((c) => c.cell.method === 'exploracoder')!;
    expect(explora(a!).passAtK).toEqual(explora(b!).passAtK);
    const paid = (r: Results) => ({ ...explora(r).cost, wallSeconds: undefined });
    expect(paid(a!)).toEqual(paid(b!));
    // plan + 2 reranks + the global rerank + 2 x 5 explorations + 2 finals per task (methods.e2e.test.ts).
    expect(explora(a!).cost.calls).toBe(PLAIN.count * 16);

    const mine = server.requests().filter((r) => r.body.model === model);
    expect(
      mine.filter((r) => r.attempt > 1).map((r) => `#${r.requestNumber} ${r.key.slice(0, 160)}`),
      'requests the model received more than once',
    ).toEqual([]);
    // ExploraCoder's calls once, plus direct's and rag's 2 per task.
    expect(mine).toHaveLength(PLAIN.count * (16 + 2 + 2));
  });
});
