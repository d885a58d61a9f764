/**
 * The classification sets end to end, scored from the answers' text: scripts/evaluate.ts on a
 * Parquet problems file and a samples file (metrics on the last line), and a sweep over the three
 * sets (CodeComplex as JSON Lines, BigCloneBench and Devign as Parquet) against a scripted server,
 * a completions model and a chat model: accuracy, F1 and the unparseable count are what the
 * scripted answers imply, completions stop at bigcode's "\n", and the results, report and
 * --output-dir files carry the scores.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import type { ClassificationEntry } from '../../domain/families/classification/index.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { sweepPrefix } from '../../domain/sweep/keys.js';
import { datasetText } from '../../infra/datasetText.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { COMPLEXITY_ROWS, jsonl } from '../support/classification-rows.js';
import { RUN_ENTRY } from '../support/processes.js';

const PARQUET = path.resolve(import.meta.dirname, '../support/parquet');
const FILES = {
  defect: path.join(PARQUET, 'defect-test-00000-of-00001.parquet'),
  clone: path.join(PARQUET, 'clone-test-00000-of-00001.parquet'),
};

/**
 * Each task's scripted answer (after the prompt, before the stop word) and what it scores, so that
 * accuracy, F1 and the unparseable count differ between the sets.
 */
const ANSWERS: Record<string, string> = {
  'devign/0': ' YES', // 1: right
  'devign/1': ' No, it frees what it allocates', // 0: right
  'devign/2': ' Perhaps', // 1: unparseable
  'devign/3': ' NO', // 0: right
  'bigclonebench/0': ' YES', // 1: right
  'bigclonebench/1': ' NO', // 0: right
  'bigclonebench/2': ' There is a clone relation', // 0: wrong
  'bigclonebench/3': ' no', // 1: wrong
  'codecomplex/0': ' constant', // right
  'codecomplex/1': ' O(n^2)', // right
  'codecomplex/2': ' linear', // nlogn: wrong
  'codecomplex/3': ' hard to say', // unparseable
};
/** The figures those answers imply (each set's four tasks). */
const EXPECTED = {
  defect: { accuracy: 0.75, f1: 2 / 3, unparseable: 1, answers: 4 },
  clone: { accuracy: 0.5, f1: 0.5, unparseable: 0, answers: 4 },
  complexity: { accuracy: 0.5, unparseable: 1, answers: 4 },
};

async function problemsOf(task: ClassificationEntry['task'], file: string, text?: string): Promise<SweepProblem[]> {
  const entry: ClassificationEntry = { name: task, family: 'classification', task, path: file };
  const rows = text ?? (await datasetText(readFileSync(file), file));
  return FAMILIES.classification.load({ entry, texts: { rows }, sources: { rows: file } }).problems;
}

const run = promisify(execFile);
async function evaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, path.resolve('scripts/evaluate.ts'), ...args], {
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('scripts/evaluate.ts on a Parquet problems file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-classification-eval-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("scores the samples' answers: each task's first sample, metrics on the last line, stats per row", async () => {
    const samples = path.join(dir, 'defect-samples.jsonl');
    const rows = Object.entries(ANSWERS)
      .filter(([id]) => id.startsWith('devign/'))
      .flatMap(([task_id, completion]) => [
        { task_id, completion },
        // A second sample per task: bigcode scores gen[0] only.
        { task_id, completion: ' Perhaps not' },
      ]);
    writeFileSync(samples, jsonl(rows));
    const res = await evaluate(['--problems', FILES.defect, '--samples', samples]);
    expect(res.code, res.stderr).toBe(0);
    const metrics = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(metrics.accuracy).toBeCloseTo(EXPECTED.defect.accuracy, 12);
    expect(metrics.f1).toBeCloseTo(EXPECTED.defect.f1, 12);
    expect(metrics).toMatchObject({ unparseable: 1, answers: 4 });
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(8);
    expect(results[0]).toMatchObject({ task_id: 'devign/0', result: 'scored', stats: { '1->1': 1 } });
    expect(results[4]).toMatchObject({ task_id: 'devign/2', stats: { '-1->1': 1 } });
    // Its second sample ("Perhaps not": "no") has its stats, and is left out of the metrics.
    expect(results[5]).toMatchObject({ task_id: 'devign/2', stats: { '0->1': 1 } });
  });

  it('refuses a row with an unknown label before scoring anything, naming the file, line and label', async () => {
    const problems = path.join(dir, 'complexity.jsonl');
    writeFileSync(problems, jsonl([COMPLEXITY_ROWS[0], { ...COMPLEXITY_ROWS[1], complexity: 'O(n^2)' }]));
    const samples = path.join(dir, 'complexity-samples.jsonl');
    writeFileSync(samples, jsonl([{ task_id: 'codecomplex/0', completion: ' constant' }]));
    const res = await evaluate(['--problems', problems, '--samples', samples]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      `${problems}:2: complexity: unknown label "O(n^2)" (known: constant, logn, linear, nlogn, quadratic, cubic, np)`,
    );
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
  });
});

describe('a sweep over the three sets, against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-classification-'));
  const complexityFile = path.join(dir, 'data.jsonl');
  writeFileSync(complexityFile, jsonl(COMPLEXITY_ROWS));
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];
  let problems: SweepProblem[] = [];

  beforeAll(async () => {
    problems = [
      ...(await problemsOf('defect', FILES.defect)),
      ...(await problemsOf('clone', FILES.clone)),
      ...(await problemsOf('complexity', complexityFile)),
    ];
    const completionPrompts = new Map(problems.map((p) => [FAMILIES.classification.completionPrompt(p), p.task_id]));
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        const id = completionPrompts.get(String(req.body.prompt));
        // After the stop word, an answer that would flip the label: the cut must drop it.
        return { content: `${id ? ANSWERS[id]! : ' ???'}\nNo, there is no defect and no clone; linear.` };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const problem = problems.find((p) => user.includes(p.prompt) && user.includes(FAMILIES.classification.chatInstruction(p)));
      return { content: problem ? `${ANSWERS[problem.task_id]!.trim()}.\n\nThat is my answer.` : 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("each cell's accuracy, F1 and unparseable count are the scripted answers'; results, report and --output-dir carry them", async () => {
    const id = `classification-${uniqueSuffix()}`;
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - { name: defect, family: classification, task: defect, path: ${FILES.defect} }
  - { name: clone, family: classification, task: clone, path: ${FILES.clone} }
  - { name: complexity, family: classification, task: complexity, path: ${complexityFile} }
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 10
`,
    });
    // Nothing to run: --check-references finds no reference to run, and says so.
    expect(output).toContain('defect: 0 of 0 references pass; 4 tasks have none');
    expect(results.cells).toHaveLength(6);
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as keyof typeof EXPECTED;
      const scores = cell.scores as Record<string, unknown>;
      expect(scores, `${cell.cell.cell}`).toMatchObject({ kind: 'text', metric: `${dataset}-classification`, samples: 4 });
      const figures = scores.figures as Record<string, number>;
      for (const [name, value] of Object.entries(EXPECTED[dataset]))
        expect(figures[name], `${cell.cell.cell} ${name}`).toBeCloseTo(value, 10);
      // Nothing ran: no pass@k.
      expect(cell.passAtK).toEqual({});
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      const cellResults = outputJson(outDir, cellId, 'results.json') as Record<string, unknown>;
      expect(JSON.stringify(cellResults)).toContain('"unparseable"');
    }
    // The report's table of text scores shows each set's headline figure.
    const report = (await getText(bucket, `${sweepPrefix(id)}report.html`))!;
    expect(report).toContain('text-scores-table');
    expect(report).toContain('clone-classification');
    expect(stops.length).toBe(12);
    for (const s of stops) expect(s).toEqual(['\n']);
  });
});
