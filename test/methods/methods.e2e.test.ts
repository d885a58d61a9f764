/**
 * A sweep over every method x a small PBE World dataset, plain and private-library, on the real
 * stack against the scripted model of support.ts: one results table with pass@k, success@k and
 * cost per method, each figure what the script implies.
 *
 * The cases only wait (on Temporal, the sandbox, the scripted server), so they run at once, each
 * sweep with task queues of its own (so no sweep's worker takes another's tasks) and a model name
 * of its own (so none finds another's answers in the LLM cache).
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
import { classify, exploraScript, SEED, writeScriptedSweep } from './support.js';

const bucket = testBucket(testConfig().config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-methods-e2e-'));
const PLAIN = resolvePbeParams({ count: 2, seed: 51 });
const PRIVATE = resolvePbeParams({ count: 2, seed: 52, library: 'private' });
const problems = [...pbeProblems(PLAIN, 'plain'), ...pbeProblems(PRIVATE, 'private')];
const N = 2;
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer(exploraScript(problems));
});
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Per method: pass@1 and calls per task the script implies (2 subtasks; m = 5; n = 2). */
const EXPECTED: Record<string, { pass1: number; callsPerTask: number; sandboxPerTask: number }> = {
  // Sample 0's answer is wrong, sample 1's canonical.
  direct: { pass1: 0.5, callsPerTask: 2, sandboxPerTask: 2 },
  rag: { pass1: 0.5, callsPerTask: 2, sandboxPerTask: 2 },
  // plan (the budget) + 2 first answers + 1 repair of sample 0; runs: 2 + 1 on the examples, 2 finals.
  'self-repair': { pass1: 1, callsPerTask: 4, sandboxPerTask: 5 },
  // plan + 2 reranks + the global rerank + 2 x 5 explorations + 2 finals; runs: 10 + 2.
  exploracoder: { pass1: 1, callsPerTask: 16, sandboxPerTask: 12 },
  // ... + the authors' debug for subtask 1 (all failed): candidate 0's fix fails, candidate 1's runs.
  'exploracoder-debug': { pass1: 1, callsPerTask: 18, sandboxPerTask: 14 },
  'exploracoder-debug-no-summary': { pass1: 1, callsPerTask: 18, sandboxPerTask: 14 },
  'exploracoder-debug-random-selection': { pass1: 1, callsPerTask: 18, sandboxPerTask: 14 },
  // plan + 2 reranks + the global rerank + 2 finals, no exploration.
  'exploracoder-debug-no-exploration': { pass1: 1, callsPerTask: 6, sandboxPerTask: 2 },
};

interface CellResult {
  cell: { cell: string; method: string; dataset: string };
  tasks: number;
  passAtK: Record<string, number>;
  successAtK: Record<string, number>;
  cost: { calls: number; sandboxRuns: number; promptTokens: number };
}

/**
 * Runs start-sweep.ts on a config file as a user would, with task queues of its own; its output and
 * the finished sweep's cells.
 */
async function runSweep(file: string, id: string): Promise<{ output: string; cells: CellResult[] }> {
  const run = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], testConfig().env);
  expect(run.code, run.output).toBe(0);
  return { output: run.output, cells: (JSON.parse((await getText(bucket, sweepResultsKey(id)))!) as { cells: CellResult[] }).cells };
}

describe.concurrent('every method on plain and private-library PBE World', () => {
  it('reports pass@k, success@k and cost per method in one table', async () => {
    const id = `methods-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [
        { name: 'plain', pbe: { count: PLAIN.count, seed: PLAIN.seed } },
        { name: 'private', pbe: { count: PRIVATE.count, seed: PRIVATE.seed, library: 'private' } },
      ],
      baseUrl: server.url,
      modelOptions: { concurrency: 8 },
      methods: Object.keys(EXPECTED),
      // self-repair as before issue 20 (not the paper's): the visible expected outputs are checked.
      methodOptions: { repair_check: 'outputs' },
      nSamples: N,
      k: [1, 2],
    });
    const results = await runSweep(file, id);
    expect(results.cells).toHaveLength(2 * Object.keys(EXPECTED).length);
    for (const c of results.cells) {
      const e = EXPECTED[c.cell.method]!;
      const where = `${c.cell.cell}`;
      expect(c.tasks, where).toBe(2);
      expect(c.passAtK['pass@1'], where).toBeCloseTo(e.pass1, 12);
      // Wrong answers fail an assertion, which is no runtime error: success@1 is 1 throughout.
      expect(c.successAtK['success@1'], where).toBe(1);
      expect(c.cost.calls, where).toBe(2 * e.callsPerTask);
      expect(c.cost.sandboxRuns, where).toBe(2 * e.sandboxPerTask);
      expect(c.cost.promptTokens, where).toBeGreaterThan(0);
      // The table printed at the end has the cell with its pass@1.
      expect(results.output).toMatch(new RegExp(`${c.cell.cell.replace(/\./g, '\\.')}\\s+2\\s+4\\s+${e.pass1.toFixed(4)}`));
    }
    // The variants share plans, reranks and explorations, self-repair shares plans with them and
    // first answers with rag; cells run 4 at a time. Still no request reached the model twice (the
    // batched case's requests, model scripted-batched, share this server).
    const sentTwice = server.requests().filter((r) => r.body.model === 'scripted' && r.attempt > 1);
    expect(
      sentTwice.map((r) => `#${r.requestNumber} ${r.key.slice(0, 160)}`),
      'requests the model received more than once',
    ).toEqual([]);
  });

  it('with samples_per_request, rag answers, self-repair first answers and ExploraCoder finals ask for the samples in one request', async () => {
    const id = `methods-batched-${uniqueSuffix()}`;
    const file = path.join(dir, 'batched.yaml');
    writeScriptedSweep(file, {
      id,
      datasets: [{ name: 'plain', pbe: { count: PLAIN.count, seed: PLAIN.seed } }],
      baseUrl: server.url,
      model: 'scripted-batched',
      modelOptions: { concurrency: 8, samples_per_request: N },
      methods: ['rag', 'self-repair', 'exploracoder'],
      methodOptions: { repair_check: 'outputs' },
      nSamples: N,
      k: [1, 2],
    });
    const results = await runSweep(file, id);
    // One request of N choices per task replaces N requests, and a subtask's 5 candidates go as
    // requests of N choices (3 of them); everything else is as before.
    const batched: Record<string, { callsPerTask: number }> = {
      rag: { callsPerTask: 1 },
      'self-repair': { callsPerTask: EXPECTED['self-repair']!.callsPerTask - (N - 1) },
      exploracoder: { callsPerTask: 1 + 2 + 1 + 2 * 3 + 1 },
    };
    expect(results.cells.map((c) => c.cell.method).sort()).toEqual(Object.keys(batched).sort());
    for (const c of results.cells) {
      const where = c.cell.cell;
      expect(c.passAtK['pass@1'], where).toBeCloseTo(EXPECTED[c.cell.method]!.pass1, 12);
      expect(c.cost.calls, where).toBe(PLAIN.count * batched[c.cell.method]!.callsPerTask);
      expect(c.cost.sandboxRuns, where).toBe(PLAIN.count * EXPECTED[c.cell.method]!.sandboxPerTask);
    }
    const mine = server.requests().filter((r) => r.body.model === 'scripted-batched');
    // rag's requests (self-repair's first answers are the same ones), ExploraCoder's finals, and
    // two of each subtask's three exploration requests (the third carries the fifth candidate alone).
    expect(mine.filter((r) => r.body.n === N)).toHaveLength((1 + 1 + 2 * 2) * PLAIN.count);
    expect(mine.filter((r) => r.attempt > 1)).toEqual([]);
    expect(mine).toHaveLength(PLAIN.count * (1 + (EXPECTED['self-repair']!.callsPerTask - 1 - N) + batched.exploracoder!.callsPerTask));
  });

  it('on an endpoint that ignores `n`: every method gets the answers one request per sample would, each request counted', async () => {
    // The endpoint answers one choice whatever `n` asks (some do): the rest of each request's
    // choices are asked for again, with the next sample's seed, so every candidate and sample is
    // what the one-per-request layout would have got.
    const ignoring = await startScriptedLlmServer(exploraScript(problems), { maxChoices: 1 });
    try {
      const id = `methods-ignores-n-${uniqueSuffix()}`;
      const file = path.join(dir, 'ignores-n.yaml');
      const M = 5; // ExploraCoder's candidates per subtask (its default m)
      writeScriptedSweep(file, {
        id,
        datasets: [{ name: 'plain', pbe: { count: PLAIN.count, seed: PLAIN.seed } }],
        baseUrl: ignoring.url,
        model: 'scripted-ignores-n',
        // Declared: one request of n = m per subtask, n = n_samples for the answers.
        modelOptions: { concurrency: 8, samples_per_request: M },
        methods: ['direct', 'rag', 'self-repair', 'exploracoder', 'capir'],
        methodOptions: { repair_check: 'outputs' },
        nSamples: N,
        k: [1, 2],
      });
      const results = await runSweep(file, id);
      // capir: plan + 2 reranks + N answers (sample 0 wrong, sample 1 canonical, as rag's).
      const expected: Record<string, { pass1: number; callsPerTask: number; sandboxPerTask: number }> = {
        ...EXPECTED,
        capir: { pass1: 0.5, callsPerTask: 1 + 2 + N, sandboxPerTask: N },
      };
      expect(results.cells.map((c) => c.cell.method).sort()).toEqual(['capir', 'direct', 'exploracoder', 'rag', 'self-repair']);
      for (const c of results.cells) {
        const where = c.cell.cell;
        expect(c.passAtK['pass@1'], where).toBeCloseTo(expected[c.cell.method]!.pass1, 12);
        // Every request sent is counted: as many as one request per sample.
        expect(c.cost.calls, where).toBe(PLAIN.count * expected[c.cell.method]!.callsPerTask);
        expect(c.cost.sandboxRuns, where).toBe(PLAIN.count * expected[c.cell.method]!.sandboxPerTask);
      }
      const sent = ignoring.requests();
      expect(sent.filter((r) => r.attempt > 1)).toEqual([]);
      // Per task: each subtask's CoAE asks n = 5, then 4, 3, 2, 1 for the candidates left, each with
      // the seed of the first one it asks for; the N answers of direct, rag (self-repair's first
      // answers), ExploraCoder's finals and capir ask n = 2, then 1.
      const explore = sent.filter((r) => classify(r, problems).role === 'explore');
      expect(explore).toHaveLength(PLAIN.count * 2 * M);
      for (const task of problems.filter((p) => p.dataset === 'plain')) {
        for (const subtask of [0, 1]) {
          const mine = explore.filter((r) => {
            const c = classify(r, problems);
            return c.problem === task && c.subtask === subtask;
          });
          expect(mine.map((r) => [r.body.n, Number(r.body.seed) - SEED])).toEqual([
            [5, 0],
            [4, 1],
            [3, 2],
            [2, 3],
            [1, 4],
          ]);
        }
      }
      const others = sent.filter((r) => ['final', 'generate'].includes(classify(r, problems).role));
      expect(others.map((r) => r.body.n ?? 1).sort()).toEqual([
        ...Array<number>(PLAIN.count * 4).fill(1),
        ...Array<number>(PLAIN.count * 4).fill(2),
      ]);
    } finally {
      await ignoring.close();
    }
  });
});
