/**
 * CodeXGLUE code-to-text end to end: scripts/evaluate.ts on Hugging Face's Parquet split and on
 * JSON Lines rows (samples {task_id, completion}; bigcode's `blue` on the metrics line, nothing
 * run), python-left through --subset, a bad row refused; and a sweep through Temporal against the
 * scripted server (a completions model and a chat model) with results, report and --output-dir
 * files, whose requests carry bigcode's stop words (none for the Python subsets, whose closing quotes
 * bigcode keeps: the answers that close the docstring on their line are scored with the quotes).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeToTextPostprocess, codeToTextReference, type CodeToTextSubset } from '../../domain/families/code-to-text/bigcode.js';
import { codeToTextTasks } from '../../domain/families/code-to-text/rows.js';
import { codexglueBleu } from '../../domain/metrics/smoothedBleu.js';
import { sweepReportKey } from '../../domain/report/model.js';
import { getText } from '../../infra/s3.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { CODE_TO_TEXT_ROWS, codeToTextJsonl, type CodeXGlueRow } from '../support/code-to-text-rows.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { RUN_ENTRY } from '../support/processes.js';

const run = promisify(execFile);
const SCRIPT = path.join(PROJECT_ROOT, 'scripts/evaluate.ts');
const PARQUET = (language: string) => path.join(PROJECT_ROOT, `test/support/parquet/code-to-text-${language}-test-00000-of-00001.parquet`);

async function evaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, SCRIPT, ...args], { timeout: 120_000, cwd: PROJECT_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** bigcode's blue for these answers (completions continuing each task's prompt), the first per task. */
function expectedBlue(subset: CodeToTextSubset, rows: readonly CodeXGlueRow[], completions: ReadonlyMap<string, string>): number {
  const tasks = codeToTextTasks(codeToTextJsonl(rows), subset, 'rows');
  return codexglueBleu(
    tasks.map((t) => ({
      reference: codeToTextReference(rows[Number(t.taskId)]!.docstring_tokens),
      prediction: codeToTextPostprocess(subset, t.prompt + completions.get(t.taskId)!),
    })),
  );
}

describe('evaluate.ts on code-to-text rows', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-code-to-text-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const samplesFile = (name: string, samples: Array<{ task_id: string; completion: string }>) => {
    const file = path.join(dir, name);
    writeFileSync(file, samples.map((s) => JSON.stringify(s) + '\n').join(''));
    return file;
  };

  it("Hugging Face's Parquet split: blue on the last line, each task's first sample, every sample scored", async () => {
    const completions = new Map([
      ['0', ' Extracts the video ID from a URL.\n\n"""'],
      ['1', ' Converts XML into a list of URLs.'],
    ]);
    const samples = samplesFile('python.jsonl', [
      { task_id: '0', completion: completions.get('0')! },
      { task_id: '1', completion: completions.get('1')! },
      // A second sample of task 0: scored, not counted (bigcode's gen[0]).
      { task_id: '0', completion: ' Extracts video ID from URL.' },
    ]);
    const { code, stdout, stderr } = await evaluate(['--problems', PARQUET('python'), '--samples', samples]);
    expect(code, stderr).toBe(0);
    const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(Object.keys(metrics)).toEqual(['blue']);
    const expected = expectedBlue('python', CODE_TO_TEXT_ROWS.python, completions);
    expect(Math.abs(metrics.blue! - expected)).toBeLessThan(1e-9);
    expect(expected).toBeGreaterThan(10);
    const rows = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.result)).toEqual(['scored', 'scored', 'scored']);
    expect((rows[2]!.stats as { bleu: number }).bleu).toBeGreaterThan((rows[0]!.stats as { bleu: number }).bleu);
  });

  it('python-left with --subset, on JSON Lines rows; go rows by their language', async () => {
    const rows = path.join(dir, 'python.jsonl.rows.jsonl');
    writeFileSync(rows, codeToTextJsonl(CODE_TO_TEXT_ROWS.python));
    const completions = new Map([
      ['0', 'Extracts video ID from URL.\n        """\n        return match1(url)'],
      ['1', "str->list\n    Convert XML to URL List.\n    '''"],
    ]);
    const samples = samplesFile(
      'left.jsonl',
      [...completions].map(([task_id, completion]) => ({ task_id, completion })),
    );
    const left = await evaluate(['--problems', rows, '--samples', samples, '--subset', 'python-left']);
    expect(left.code, left.stderr).toBe(0);
    const blue = (JSON.parse(left.stdout.trim().split('\n').at(-1)!) as { blue: number }).blue;
    expect(Math.abs(blue - expectedBlue('python-left', CODE_TO_TEXT_ROWS.python, completions))).toBeLessThan(1e-9);
    // Task 0's answer is its reference word for word.
    expect(blue).toBeGreaterThan(50);

    const goSamples = samplesFile('go.jsonl', [{ task_id: '0', completion: 'NewAuthStore creates a new AuthStore.\nmore' }]);
    const go = await evaluate(['--problems', PARQUET('go'), '--samples', goSamples]);
    expect(go.code, go.stderr).toBe(0);
    expect((JSON.parse(go.stdout.trim().split('\n').at(-1)!) as { blue: number }).blue).toBeCloseTo(100, 9);
  });

  it('a bad row is refused before anything is scored, naming the file, the line and the field', async () => {
    const rows = path.join(dir, 'bad.jsonl');
    const good = CODE_TO_TEXT_ROWS.python[0]!;
    writeFileSync(rows, codeToTextJsonl([good, { ...good, id: 1, docstring: 'Not there.' }]));
    const samples = samplesFile('bad-samples.jsonl', [{ task_id: '0', completion: 'x' }]);
    const { code, stderr } = await evaluate(['--problems', rows, '--samples', samples]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`${rows}:2: docstring: not found in code`);
    const subset = await evaluate(['--problems', rows, '--samples', samples, '--subset', 'cobol']);
    expect(subset.code).not.toBe(0);
    expect(subset.stderr).toContain(
      '--subset: must be one of "python", "go", "ruby", "java", "javascript", "php", "python-left", got a string ("cobol")',
    );
  });
});

describe('a sweep over code-to-text datasets, against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-code-to-text-sweep-'));
  // What the models answer per task: the docstring for even rows, something else for odd ones.
  const answer = (row: CodeXGlueRow, id: number) => (id % 2 === 0 ? row.docstring.split('\n')[0]! : 'Does something else entirely.');
  const datasets = [
    { name: 'ctt-python', subset: 'python' as const, file: PARQUET('python'), rows: CODE_TO_TEXT_ROWS.python },
    { name: 'ctt-left', subset: 'python-left' as const, file: PARQUET('python'), rows: CODE_TO_TEXT_ROWS.python },
    { name: 'ctt-go', subset: 'go' as const, file: PARQUET('go'), rows: CODE_TO_TEXT_ROWS.go },
  ];
  const byPrompt = new Map<string, { text: string; python: boolean }>();
  for (const d of datasets) {
    codeToTextTasks(codeToTextJsonl(d.rows), d.subset, 'rows').forEach((t, i) =>
      byPrompt.set(t.prompt, { text: answer(d.rows[i]!, i), python: d.subset !== 'go' }),
    );
  }
  // A Python completion closes the docstring on its answer line (bigcode keeps those quotes); Go's ends the line.
  const completionOf = (text: string, python: boolean) => (python ? ` ${text}"""\nsecond line` : ` ${text}\n"""\nsecond line`);
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        const known = byPrompt.get(String(req.body.prompt));
        // Past the stop words, as a model goes on: the cell cuts it as bigcode's stopping does.
        return { content: known === undefined ? 'unknown' : completionOf(known.text, known.python) };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const found = [...byPrompt.entries()].find(([prompt]) => user.includes(prompt.trim()))?.[1];
      return { content: found?.text ?? 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("blue per cell is bigcode's for the answers; results, report and --output-dir files; completions stop at bigcode's stop words", async () => {
    const id = `code-to-text-${uniqueSuffix()}`;
    for (const d of datasets) copyFileSync(d.file, path.join(dir, `${d.name}.parquet`));
    const { outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
${datasets.map((d) => `  - name: ${d.name}\n    family: code-to-text\n    path: ${d.name}.parquet\n    subset: ${d.subset}\n`).join('')}${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 10
`,
    });
    expect(results.cells).toHaveLength(6);
    for (const cell of results.cells) {
      const d = datasets.find((x) => x.name === cell.cell.dataset)!;
      const tasks = codeToTextTasks(codeToTextJsonl(d.rows), d.subset, 'rows');
      const expected = codexglueBleu(
        tasks.map((t, i) => ({
          reference: t.reference,
          // The completions model's text as bigcode's stopping ends it (the quotes kept), post-processed as bigcode does.
          prediction: codeToTextPostprocess(
            d.subset,
            t.prompt + (cell.cell.model === 'base' ? ` ${answer(d.rows[i]!, i)}${d.subset === 'go' ? '' : '"""'}` : answer(d.rows[i]!, i)),
          ),
        })),
      );
      expect(cell.tasks).toBe(d.rows.length);
      expect(cell.scores, JSON.stringify(cell)).toMatchObject({ kind: 'text', metric: 'codexglue-bleu', headline: 'blue' });
      expect(Math.abs(cell.scores.figures.blue - expected), `${d.name}/${cell.cell.model}`).toBeLessThan(1e-9);
      expect(cell.passAtK).toEqual({});
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      // bigcode's files: the references are the detokenized docstrings; the metric file holds blue.
      expect(outputJson(outDir, cellId, 'references.json')).toEqual(tasks.map((t) => t.reference));
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, Record<string, number>>;
      expect(metrics[d.name]!.blue).toBeCloseTo(expected, 9);
    }
    // Even rows are answered with their docstring: Go's only row scores 100.
    expect(
      results.cells
        .filter((c: { cell: { dataset: string } }) => c.cell.dataset === 'ctt-go')
        .map((c: { scores: { figures: { blue: number } } }) => c.scores.figures.blue),
    ).toEqual([expect.closeTo(100, 9), expect.closeTo(100, 9)]);
    // The sweep's report (stored beside its results) shows the metric per test set.
    const html = (await getText(bucket, sweepReportKey(id)))!;
    expect(html).toContain('text-scores-table');
    expect(html).toContain('ctt-left');
    expect(html).toContain('blue');
    // Completions requests (one per task: 2 python, 2 python-left, 1 go): Go's carry bigcode's stop word; Python's
    // none, since an API drops the stop sequence it stops at and bigcode scores the quotes.
    expect(stops.filter((s) => s === undefined)).toHaveLength(4);
    expect(stops.filter((s) => JSON.stringify(s) === JSON.stringify(['\n']))).toHaveLength(1);
    expect(stops).toHaveLength(5);
    // The Python answers that closed their docstring on their line kept the quotes, as bigcode's do.
    const python = results.cells.find(
      (c: { cell: { dataset: string; model: string } }) => c.cell.dataset === 'ctt-python' && c.cell.model === 'base',
    );
    const generations = outputJson(outDir, String(python.cell.cell), 'generations.json') as string[][];
    expect(generations.flat().every((g) => g.endsWith('"""'))).toBe(true);
  });
});
