/**
 * StudentEval end to end, against bigcode's own task (studenteval_reference.py, which runs each
 * program with python3 as bigcode does): scripts/evaluate.ts with bigcode's task name on the rows
 * in the published format and a model's continuations ({task_id, completion}, cut at the request's
 * stop words): every sample's outcome in the sandbox and the figures per subset in bigcode's
 * evaluation_results.json; and one sweep through Temporal against the scripted server (a
 * completions model, three samples a prompt), whose cell's evaluation_results.json, results.json
 * and report show the same figures.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDENTEVAL_STOP_WORDS, studentEvalFamily } from '../../domain/families/studenteval/index.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { jsonl, STUDENTEVAL_GENERATIONS, STUDENTEVAL_ROWS } from '../support/studenteval-rows.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'studenteval_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-studenteval-'));
const { config, env } = testConfig();
const bucket = testBucket(config);
let server: ScriptedLlmServer;
type Reference = { successes: number[][]; results: Array<{ group: string; pass1: number }> };
let reference: Reference;
let sweepReference: Reference;

const problems = studentEvalFamily.load({
  entry: { name: 'se', family: 'studenteval', path: 'test.jsonl' },
  texts: { rows: jsonl(STUDENTEVAL_ROWS) },
  sources: { rows: 'test.jsonl' },
}).problems;

beforeAll(async () => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const input = JSON.stringify({ rows: STUDENTEVAL_ROWS, generations: STUDENTEVAL_GENERATIONS, execute: true });
  reference = JSON.parse(execFileSync(PYTHON, [SCRIPT], { input, timeout: 300_000 }).toString()) as typeof reference;
  // A sample's continuation by its prompt and its seed (the sample's index): the two students with the same prompt get the same.
  server = await startScriptedLlmServer((req) => {
    const t = problems.findIndex((p) => studentEvalFamily.completionPrompt(p) === req.body.prompt);
    const g = STUDENTEVAL_GENERATIONS[t]?.[Number(req.body.seed)];
    return { content: g === undefined ? '\n    pass' : truncateAtStopWords(g, STUDENTEVAL_STOP_WORDS) };
  });
  // What the sweep's model answers: the first of two tasks with one prompt answers both.
  const answered = problems.map((p) => STUDENTEVAL_GENERATIONS[problems.findIndex((q) => q.prompt === p.prompt)]!);
  const sweepInput = JSON.stringify({ rows: STUDENTEVAL_ROWS, generations: answered, execute: true });
  sweepReference = JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: sweepInput, timeout: 300_000 }).toString()) as typeof reference;
}, 600_000);
afterAll(async () => {
  await server.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** bigcode's records and explora's: the same subsets in the same order, pass1 equal to rounding. */
function expectBigcodeResults(mine: Array<{ group: string; pass1: number }>, expected = reference) {
  expect(mine.map((r) => r.group)).toEqual(expected.results.map((r) => r.group));
  mine.forEach((r, i) => expect(r.pass1).toBeCloseTo(expected.results[i]!.pass1, 12));
}

describe('StudentEval end to end', () => {
  it("evaluate.ts --tasks studenteval: every sample's outcome and the figures per subset are bigcode's", async () => {
    const rowsFile = path.join(dir, 'test.jsonl');
    const samplesFile = path.join(dir, 'samples.jsonl');
    const metricFile = path.join(dir, 'evaluation_results.json');
    writeFileSync(rowsFile, jsonl(STUDENTEVAL_ROWS));
    const samples = problems.flatMap((p, t) =>
      STUDENTEVAL_GENERATIONS[t]!.map((g) => ({ task_id: p.task_id, completion: truncateAtStopWords(g, STUDENTEVAL_STOP_WORDS) })),
    );
    writeFileSync(samplesFile, jsonl(samples));
    const out = path.join(dir, 'evaluate-out');
    const { stdout } = await run(
      process.execPath,
      [
        ...[RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samplesFile, '--output-dir', out],
        ...['--tasks', 'studenteval', '--k', '1', '--metric_output_path', metricFile],
      ],
      { timeout: 300_000 },
    );
    const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; passed: boolean; result: string });
    expect(lines.map((l) => (l.passed ? 1 : 0))).toEqual(reference.successes.flat());
    // A wrong answer fails an assertion, a crash errors, an empty answer (a docstring alone) returns None: fails.
    expect(lines.map((l) => l.result).filter((r) => r !== 'passed')).toContain('error');
    const bigcodeFile = JSON.parse(readFileSync(metricFile, 'utf8')) as { studenteval: Array<{ group: string; pass1: number }> };
    expectBigcodeResults(bigcodeFile.studenteval);
    const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!) as { studenteval: Array<{ group: string; pass1: number }> };
    expectBigcodeResults(metrics.studenteval);
  }, 300_000);

  it('a sweep through Temporal: the cell reports the same figures in its files, bigcode\u2019s file and the report', async () => {
    const id = `studenteval-${uniqueSuffix()}`;
    const rowsFile = path.join(dir, 'sweep-test.jsonl');
    writeFileSync(rowsFile, jsonl(STUDENTEVAL_ROWS));
    const { outDir, results, output } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: studenteval
    family: studenteval
    path: ${rowsFile}
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.8]
n_samples: 3
k: [1]
timeout_s: 5
`,
    });
    expect(output).toContain('1 rows in none of the four subsets left out');
    expect(results.cells).toHaveLength(1);
    const [cell] = results.cells;
    const cellId = String(cell.cell.cell);
    await expectCellFilesAsStored(bucket, id, outDir, cellId);
    // Not the figures of the evaluate.ts run: the two students' prompt was answered alike.
    expect(sweepReference.results).not.toEqual(reference.results);
    expectBigcodeResults(outputJson(outDir, cellId, 'evaluation_results.json').studenteval, sweepReference);
    const cellResults = outputJson(outDir, cellId, 'results.json') as {
      scores: { bigcode: Array<{ group: string; pass1: number }> };
      per_task: Array<{ subset: string; c: number }>;
    };
    expectBigcodeResults(cellResults.scores.bigcode, sweepReference);
    expect(cellResults.per_task.map((t) => t.c)).toEqual(sweepReference.successes.map((s) => s.reduce((a, b) => a + b, 0)));
    expect(cellResults.per_task.map((t) => t.subset)).toEqual(problems.map((p) => studentEvalFamily.read(p).studenteval.group));
    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="studenteval-scores-table"');
    expect(html).toContain('First Success');
  }, 600_000);
});
