/**
 * DS-1000 end to end: a sweep over its numpy and pandas tasks (rows written by hand in the release
 * format, test/support/ds1000-rows.ts) against a scripted completions server, pass@1 as the answers
 * imply (the sweep's results, and the --output-dir files as stored); a sweep naming a task whose library the sandbox's Python lacks is refused before anything
 * starts, naming the library and the install command; and scripts/evaluate.ts on the same rows.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepConfigKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { DS1000_SCIPY_TASK, DS1000_TASKS, ds1000Jsonl, type Ds1000FixtureTask } from '../support/ds1000-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const N = 3;
const sampleOf = (task: Ds1000FixtureTask, i: number) => task.samples[i % task.samples.length]!;
const run = promisify(execFile);

describe('DS-1000 through a sweep and evaluate.ts', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-ds1000-'));
  const served = new Map<string, number>();
  let server: ScriptedLlmServer;
  let bare: string;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'ds1000.jsonl'), ds1000Jsonl(DS1000_TASKS));
    writeFileSync(path.join(dir, 'ds1000-scipy.jsonl'), ds1000Jsonl([...DS1000_TASKS, DS1000_SCIPY_TASK]));
    bare = path.join(dir, 'bare-venv');
    execFileSync(resolvePythonExecutable(), ['-m', 'venv', '--without-pip', bare]);
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      const task = DS1000_TASKS.find((t) => prompt === t.prompt);
      if (!task) return { content: 'result = None\n' };
      const n = Number(req.body.n ?? 1);
      const first = served.get(prompt) ?? 0;
      served.set(prompt, first + n);
      const texts = Array.from({ length: n }, (_, i) => sampleOf(task, first + i).answer);
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const yaml = (id: string, file: string) => `id: ${id}
datasets:
  - name: ds1000
    family: ds1000
    path: ${file}
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.8]
n_samples: ${N}
k: [1]
timeout_s: 60
`;

  it('pass@1 over the numpy and pandas tasks is what the answers imply; references pass', async () => {
    const id = `ds1000-${uniqueSuffix()}`;
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: yaml(id, 'ds1000.jsonl'),
    });
    expect(output).toContain(`ds1000: ${DS1000_TASKS.length} of ${DS1000_TASKS.length} references pass`);
    const want = DS1000_TASKS.map((t) => Array.from({ length: N }, (_, i) => sampleOf(t, i).passed).filter(Boolean).length / N);
    const passAt1 = want.reduce((a, x) => a + x, 0) / want.length;
    const [cell] = results.cells;
    expect(cell.passAtK['pass@1']).toBeCloseTo(passAt1, 10);
    // --output-dir: the cell's files as stored, bigcode's metric file with the same pass@1 under the dataset's name.
    const cellId = String(cell.cell.cell);
    await expectCellFilesAsStored(bucket, id, outDir, cellId);
    expect(outputJson(outDir, cellId, 'evaluation_results.json').ds1000['pass@1']).toBeCloseTo(passAt1, 10);
  });

  it("a task whose library the sandbox's Python lacks is refused before the sweep starts, naming the library and the command", async () => {
    const id = `ds1000-missing-${uniqueSuffix()}`;
    const file = path.join(dir, 'sweep-scipy.yaml');
    writeFileSync(file, yaml(id, 'ds1000-scipy.jsonl'));
    const python = path.join(bare, 'bin', 'python');
    const result = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], { ...env, EXPLORA_PYTHON: python });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      `datasets[ds1000] (family ds1000): 1 DS-1000's Scipy task(s) need the Python module scipy, which the sandbox's Python (${python}) lacks; install it with: bash scripts/install-ds1000.sh`,
    );
    expect(await getText(bucket, sweepConfigKey(id))).toBeNull();
  });

  it('evaluate.ts: each answer as DS-1000 postprocesses it; refused when a library is missing (exit 2)', async () => {
    const problems = path.join(dir, 'ds1000.jsonl');
    const samples = path.join(dir, 'ds1000_samples.jsonl');
    const rows = DS1000_TASKS.flatMap((t) => t.samples.map((s) => ({ task_id: String(t.problem_id), completion: s.answer })));
    writeFileSync(samples, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const { stdout } = await run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--k', '1'],
      { timeout: 120_000 },
    );
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { passed: boolean });
    expect(results.map((r) => r.passed)).toEqual(DS1000_TASKS.flatMap((t) => t.samples.map((s) => s.passed)));
    const perTask = DS1000_TASKS.map((t) => t.samples.filter((s) => s.passed).length / t.samples.length);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(perTask.reduce((a, x) => a + x, 0) / perTask.length, 12);

    const refused = await run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--python', path.join(bare, 'bin', 'python')],
      { timeout: 120_000 },
    ).catch((e: { code: number; stderr: string }) => e);
    expect('code' in refused ? refused.code : 0).toBe(2);
    expect('stderr' in refused ? refused.stderr : '').toContain('need the Python module numpy');
  });
});
