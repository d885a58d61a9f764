/**
 * SantaCoder FIM end to end: a sweep through Temporal against a scripted completions server that
 * answers only the FIM prompts bigcode would send (StarCoder's tokens here), scored by exact match
 * from the text with nothing run: results.json and the --output-dir files carry bigcode's
 * per-language figures; and scripts/evaluate.ts on the same rows and samples.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIM_PRESETS, fimPrompt } from '../../domain/llm/fim.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { testBucket } from '../support/s3.js';
import { FIM_ROWS, fimJsonl, type FimFixtureRow } from '../support/santacoder-fim-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, sweepWithOutputDir } from '../support/sweep-output.js';
import { RUN_ENTRY } from '../support/processes.js';

const N = 2;
const run = promisify(execFile);

/** Sample i of a row: sample 0 is its line (indented otherwise, then a stop word) except for java; sample 1 is wrong. */
function answer(row: FimFixtureRow, i: number): string {
  return i === 0 && row.language !== 'java' ? `  ${row.canonical_solution.trim()}\n<|endoftext|>more` : 'pass  # not it';
}
const EXPECTED = { 'py Exact Match': 0.5, 'js Exact Match': 0.5, 'java Exact Match': 0 };
const right = FIM_ROWS.filter((r) => r.language !== 'java').length;
const OVERALL = right / (N * FIM_ROWS.length);

describe('SantaCoder FIM through a sweep and evaluate.ts', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-santacoder-fim-'));
  const served = new Map<string, number>();
  const unknownPrompts: string[] = [];
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'fim.jsonl'), fimJsonl(FIM_ROWS));
    const rowOf = new Map(FIM_ROWS.map((r) => [fimPrompt(FIM_PRESETS.starcoder, { prefix: r.prompt, suffix: r.suffix }), r]));
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      const row = rowOf.get(prompt);
      if (!row) {
        unknownPrompts.push(prompt);
        return { content: '' };
      }
      const n = Number(req.body.n ?? 1);
      const first = served.get(prompt) ?? 0;
      served.set(prompt, first + n);
      const texts = Array.from({ length: n }, (_, i) => answer(row, first + i));
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exact match per language as bigcode reports it, from the text; the server saw only FIM prompts', async () => {
    const id = `santacoder-fim-${uniqueSuffix()}`;
    const { outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      // A FIM model: scriptedModelsYaml's two have no `fim:`.
      yaml: `id: ${id}
datasets:
  - name: fim
    family: santacoder-fim
    path: fim.jsonl
models:
  - id: star
    base_url: ${server.url}
    model: scripted-starcoder
    api: completions
    fim: starcoder
methods: [direct]
temperatures: [0.2]
n_samples: ${N}
k: [1]
`,
    });
    expect(unknownPrompts).toEqual([]);
    const cell = JSON.stringify(results.cells[0]);
    for (const [key, value] of Object.entries(EXPECTED)) expect(cell).toContain(`"${key}":${value}`);
    expect(cell).toContain(`"Exact Match":${OVERALL}`);
    // --output-dir: the cell's files as stored; bigcode's evaluation_results.json holds its figures under the dataset's name.
    const cellId = String(results.cells[0].cell.cell);
    await expectCellFilesAsStored(bucket, id, outDir, cellId);
    expect(outputJson(outDir, cellId, 'evaluation_results.json').fim).toMatchObject(EXPECTED);
  });

  it('evaluate.ts: the samples file scored from its text, figures on the last line', async () => {
    const problems = path.join(dir, 'fim.jsonl');
    const samples = path.join(dir, 'fim_samples.jsonl');
    const rows = FIM_ROWS.flatMap((r) => Array.from({ length: N }, (_, i) => ({ task_id: r.name, completion: answer(r, i) })));
    writeFileSync(samples, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const { stdout } = await run(process.execPath, [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples], {
      timeout: 120_000,
    });
    const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(figures).toMatchObject(EXPECTED);
    expect(figures['Exact Match']).toBeCloseTo(OVERALL, 12);
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((r: { result: string }) => r.result)).toEqual(rows.map(() => 'scored'));
  });
});
