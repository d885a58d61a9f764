/**
 * ReCode's perturbed HumanEval end to end. scripts/evaluate.ts on func_name rows in the published
 * format (test/support/recode-rows.ts) with bigcode's task name perturbed-humaneval-func_name-num_seeds_3,
 * the samples a completions model's raw continuations become ({task_id, completion}, cut at the
 * request's stop words): the rows of seed 3 skipped, every sample's solution and outcome in the
 * sandbox (passed; a timeout, a crash, a wrong or empty body failing) and the robust figures are
 * those of bigcode's code (recode_reference.py, its check_correctness and compute_code_eval run in
 * the tests' Python). And one sweep through Temporal against the scripted server (a completions
 * model), whose cell's evaluation_results.json is bigcode's figures on the cell's own generations and
 * outcomes, and evaluate.ts's on those generations with the task name; the report shows them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECODE_STOP_WORDS } from '../../domain/families/recode/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { jsonl, RECODE_FUNC_NAME_GENERATIONS, RECODE_FUNC_NAME_ROWS } from '../support/recode-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'recode_reference.py');
const TASK = 'perturbed-humaneval-func_name-num_seeds_3';
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-recode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reference {
  kept: Array<[string, string, number]>;
  solutions: string[][];
  passed: boolean[][];
  metrics: Record<string, Record<string, number>>;
}

/**
 * bigcode's task on the rows and generations (raw continuations, or generations.json's saved ones):
 * its programs run, or, given `passed`, the metric on those outcomes.
 */
function bigcode(rows: unknown[], generations: string[][], form: 'raw' | 'saved', passed?: boolean[][]): Promise<Reference> {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 1 << 26, timeout: 300_000 }, (error, stdout) =>
      error ? reject(new Error(`recode_reference.py: ${error.message}`)) : resolve(JSON.parse(stdout) as Reference),
    );
    const run = passed ? { passed } : { execute: true };
    child.stdin!.end(JSON.stringify({ rows, num_seeds: 3, generations, generation_form: form, ...run }));
  });
}

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

/** evaluate.ts with bigcode's task name: its metrics line, every sample's line, bigcode's metric file and stderr. */
async function evaluate(name: string, samplesFile: string, args: string[] = []) {
  const rowsFile = path.join(dir, 'func_name.jsonl');
  const out = path.join(dir, `${name}-out`);
  const metricFile = path.join(dir, `${name}-evaluation_results.json`);
  writeFileSync(rowsFile, jsonl(RECODE_FUNC_NAME_ROWS));
  const { stdout, stderr } = await run(
    process.execPath,
    [
      ...[RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samplesFile, '--output-dir', out],
      ...['--tasks', TASK, '--timeout', '3', '--metric_output_path', metricFile, ...args],
    ],
    { timeout: 300_000 },
  );
  const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_id: string; passed: boolean; result: string });
  const generations = JSON.parse(readFileSync(path.join(out, 'generations.json'), 'utf8')) as string[][];
  const metricsFile = JSON.parse(readFileSync(metricFile, 'utf8')) as Record<string, unknown>;
  return { metrics: JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>, lines, generations, stderr, metricsFile };
}

/** Figures equal to rounding, keys in the same order. */
function expectFigures(mine: unknown, reference: unknown) {
  if (typeof reference === 'number') return expect(mine as number).toBeCloseTo(reference, 12);
  expect(Object.keys(mine as object)).toEqual(Object.keys(reference as object));
  for (const [key, value] of Object.entries(reference as object)) expectFigures((mine as Record<string, unknown>)[key], value);
}

describe(`evaluate.ts --tasks ${TASK}, against bigcode's own scoring`, () => {
  it("every kept sample's solution and outcome, and the robust figures per perturbation, are bigcode's", async () => {
    const reference = await bigcode(RECODE_FUNC_NAME_ROWS, RECODE_FUNC_NAME_GENERATIONS, 'raw');
    // Lines as a completions endpoint answers them: cut at the first four stop words the request carries.
    const samplesFile = path.join(dir, 'samples.jsonl');
    writeFileSync(
      samplesFile,
      jsonl(
        RECODE_FUNC_NAME_ROWS.flatMap((r, t) =>
          RECODE_FUNC_NAME_GENERATIONS[t]!.map((g) => ({
            task_id: `${r.task_id}/${r.perturbation_name}/s${r.seed}`,
            completion: truncateAtStopWords(g, RECODE_STOP_WORDS.slice(0, 4)),
          })),
        ),
      ),
    );
    const { metrics, lines, generations, stderr, metricsFile } = await evaluate('samples', samplesFile, ['--k', '1,2,5']);
    expect(stderr).toContain('6 samples of 3 problems skipped: their seeds are not below num_seeds 3');
    expect(lines.map((l) => l.task_id)).toEqual(
      reference.kept.flatMap(([task, perturbation, seed]) => [0, 1].map(() => `${task}/${perturbation}/s${seed}`)),
    );
    // The cell's generations.json (bigcode's) holds the kept rows' solutions, prompt included.
    expect(generations).toEqual(reference.solutions);
    expect(lines.map((l) => l.passed)).toEqual(reference.passed.flat());
    // The edge cases ran as bigcode's: a timeout, a crash, a wrong body and an empty one fail.
    expect(new Set(lines.filter((l) => !l.passed).map((l) => l.result))).toEqual(new Set(['timeout', 'error', 'failed']));
    // bigcode's evaluation_results.json: per perturbation its two figures, nothing else.
    expect(Object.keys(reference.metrics)).toEqual(['FuncRenameSwapChar', 'FuncRenameCamelCase']);
    expectFigures(metricsFile[TASK], reference.metrics);
    // evaluate.ts's line: pass@k over the variants, then per perturbation bigcode's figures and robust pass@k (k = 5 > n = 2 dropped).
    for (const [name, figures] of Object.entries(reference.metrics)) {
      expect(Object.keys(metrics[name] as object)).toEqual([...Object.keys(figures), 'robust-pass@1', 'robust-pass@2']);
      expectFigures((metrics[name] as Record<string, number>)['robust-pass@1'], figures['robust-pass-at-1']);
    }
    const passes = reference.passed.flat();
    expect(metrics['pass@1']).toBeCloseTo(passes.filter(Boolean).length / passes.length, 12);
  }, 300_000);
});

describe('a sweep over func_name rows against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  /** The renamed functions the scripted completions model gets wrong: two of seed 1's. */
  const wrongFor = ['srtlen(', 'dad('];

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      const row = RECODE_FUNC_NAME_ROWS.find((r) => prompt.includes(`def ${r.entry_point}(`));
      if (req.api !== 'completions' || !row) return { content: 'pass' };
      const body = wrongFor.some((name) => prompt.includes(`def ${name}`)) ? '    return None\n' : row.canonical_solution;
      return { content: `\n${body}\n\nprint(1)\n` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("the cell's evaluation_results.json is bigcode's figures on its generations, as evaluate.ts gives them; the report", async () => {
    const id = `recode-${uniqueSuffix()}`;
    const rowsFile = path.join(dir, 'sweep-func_name.jsonl');
    writeFileSync(rowsFile, jsonl(RECODE_FUNC_NAME_ROWS));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: func_name
    family: recode
    path: ${rowsFile}
    num_seeds: 3
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
`,
    });
    // The rows of seed < 3, whose dataset solutions (after the prompt as written) pass.
    expect(output).toContain('func_name: 12 of 12 references pass');
    expect(results.cells).toHaveLength(1);
    // SwapChar: only truncate_number right under every seed; CamelCase's one seed all right.
    const expected: Record<string, number> = { FuncRenameSwapChar: 1 / 3, FuncRenameCamelCase: 1 };
    for (const cell of results.cells) {
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      // bigcode's metric on the cell's generations and the outcomes its samples had (their runs are checked against bigcode's above).
      const generations = outputJson(outDir, cellId, 'generations.json') as string[][];
      const samples = readFileSync(path.join(outDir, cellId, 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { task_id: string; passed: boolean });
      const kept = RECODE_FUNC_NAME_ROWS.filter((r) => r.seed < 3);
      const passed = kept.map((r) =>
        samples.filter((l) => l.task_id === `${r.task_id}/${r.perturbation_name}/s${r.seed}`).map((l) => l.passed),
      );
      const reference = await bigcode(kept, generations, 'saved', passed);
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, unknown>;
      expectFigures(metrics.func_name, reference.metrics);
      for (const [name, rp1] of Object.entries(expected))
        expect(reference.metrics[name]!['robust-pass-at-1'], `${cellId} ${name}`).toBeCloseTo(rp1, 12);
      // results.json carries them under scores.bigcode.
      expectFigures((outputJson(outDir, cellId, 'results.json') as { scores: { bigcode: unknown } }).scores.bigcode, reference.metrics);
      // evaluate.ts on the cell's generations.json with bigcode's task name: the same figures.
      const { metricsFile } = await evaluate('sweep-generations', path.join(outDir, cellId, 'generations.json'));
      expectFigures(metricsFile[TASK], reference.metrics);
    }
    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="recode-scores-table"');
    expect(html).toContain('FuncRenameSwapChar');
  }, 600_000);
});
