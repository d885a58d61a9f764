/**
 * DS-1000's insertion mode end to end: a sweep through Temporal against a scripted completions
 * server that answers only the FIM prompts bigcode would send (Qwen2.5-Coder's tokens here), pass@1
 * as the answers imply and the references passing; a model without FIM tokens refused before
 * anything is stored; and scripts/evaluate.ts --ds1000-mode insertion on the same rows.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ds1000InsertionParts } from '../../domain/families/ds1000/index.js';
import { FIM_PRESETS, fimPrompt } from '../../domain/llm/fim.js';
import { sweepConfigKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { DS1000_INSERTION_SAMPLES, DS1000_TASKS, ds1000InsertionJsonl, insertionPrompt } from '../support/ds1000-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const N = 2;
const run = promisify(execFile);
const samplesOf = (problemId: number) => DS1000_INSERTION_SAMPLES[problemId]!;

describe('DS-1000 insertion through a sweep and evaluate.ts', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-ds1000-insertion-'));
  const served = new Map<string, number>();
  const unknownPrompts: string[] = [];
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'ds1000.jsonl'), ds1000InsertionJsonl(DS1000_TASKS));
    const fimOf = new Map(
      DS1000_TASKS.map((t) => [fimPrompt(FIM_PRESETS['qwen2.5-coder'], ds1000InsertionParts(insertionPrompt(t))), t.problem_id]),
    );
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      const id = fimOf.get(prompt);
      if (id === undefined) {
        unknownPrompts.push(prompt);
        return { content: 'result = None\n' };
      }
      const n = Number(req.body.n ?? 1);
      const first = served.get(prompt) ?? 0;
      served.set(prompt, first + n);
      const texts = Array.from({ length: n }, (_, i) => samplesOf(id)[(first + i) % samplesOf(id).length]!.answer);
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const yaml = (id: string, fim: string) => `id: ${id}
datasets:
  - name: ds1000-ins
    family: ds1000
    path: ds1000.jsonl
    mode: insertion
models:
  - id: base
    base_url: ${server.url}
    model: scripted-base
    api: completions
${fim}
methods: [direct]
temperatures: [0.8]
n_samples: ${N}
k: [1]
timeout_s: 60
`;

  it('pass@1 is what the middles imply; the server saw only FIM prompts; references pass', async () => {
    const id = `ds1000-ins-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep.yaml');
    writeFileSync(file, yaml(id, '    fim: qwen2.5-coder'));
    const result = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress', '--check-references'], env);
    expect(result.code, result.output).toBe(0);
    expect(unknownPrompts).toEqual([]);
    expect(result.output).toContain(`ds1000-ins: ${DS1000_TASKS.length} of ${DS1000_TASKS.length} references pass`);
    const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
    const want = DS1000_TASKS.map(
      (t) => Array.from({ length: N }, (_, i) => samplesOf(t.problem_id)[i]!.passed).filter(Boolean).length / N,
    );
    expect(results.cells[0].passAtK['pass@1']).toBeCloseTo(want.reduce((a, x) => a + x, 0) / want.length, 10);
  });

  it('a completion model without FIM tokens is refused before anything is stored, naming the field', async () => {
    const id = `ds1000-ins-nofim-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep-nofim.yaml');
    writeFileSync(file, yaml(id, ''));
    const result = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('models[0].fim: datasets[0] (ds1000-ins) fills in the middle: the model needs its FIM tokens');
    expect(await getText(bucket, sweepConfigKey(id))).toBeNull();
  });

  it('evaluate.ts --ds1000-mode insertion: each completion is the middle, postprocessed as bigcode does', async () => {
    const problems = path.join(dir, 'ds1000.jsonl');
    const samples = path.join(dir, 'ins_samples.jsonl');
    const rows = DS1000_TASKS.flatMap((t) => samplesOf(t.problem_id).map((s) => ({ task_id: String(t.problem_id), completion: s.answer })));
    writeFileSync(samples, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const { stdout } = await run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--k', '1', '--ds1000-mode', 'insertion'],
      { timeout: 120_000 },
    );
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { passed: boolean });
    expect(results.map((r) => r.passed)).toEqual(DS1000_TASKS.flatMap((t) => samplesOf(t.problem_id).map((s) => s.passed)));
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(0.5, 12);
  });
});
