/**
 * Spider's execution accuracy through scripts/evaluate.ts: Spider's rows (JSON Lines as its dev.json
 * has them) and samples {task_id, completion}, --spider-databases naming a real database/ folder
 * made here; pass@1 is execution accuracy; a missing folder or database file is refused (exit 2)
 * naming it before anything runs; without the flag the same files are scored by BLEU. Then a sweep
 * through Temporal against the scripted server whose Spider entry names the databases: its cell
 * reports pass@1 (execution accuracy), the queries run in the sandbox workers' jail, and bigcode's
 * BLEU of the same samples beside it (results.json, evaluation_results.json, the report, sweep-status).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spiderPrompt } from '../../domain/families/spider/index.js';
import { bigcodeBleu } from '../../domain/metrics/bleu.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { jsonl } from '../support/oneline-rows.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { makeSpiderDatabases, singerCount } from '../support/spider-db.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-spider-evaluate-'));
let databases: string;
const problems = path.join(dir, 'dev.jsonl');
const samples = path.join(dir, 'samples.jsonl');

const ROWS = [
  { db_id: 'concert_singer', query: 'SELECT count(*) FROM singer', question: 'How many singers do we have?' },
  { db_id: 'concert_singer', query: 'SELECT name ,  age FROM singer ORDER BY age DESC', question: 'Names and ages, oldest first.' },
  { db_id: 'concert_singer', query: "SELECT name FROM singer WHERE country  =  'France'", question: 'Singers from France?' },
  { db_id: 'concert_singer', query: 'SELECT DISTINCT year FROM concert', question: 'Years with concerts?' },
];
// Completions continue the two-shot prompt; the saved form below takes each as the query itself.
const SAMPLES = [
  { task_id: 'Spider/0', completion: 'SELECT COUNT(*) FROM singer' }, // right
  { task_id: 'Spider/1', completion: 'SELECT name, age FROM singer ORDER BY age' }, // wrong order
  { task_id: 'Spider/2', completion: "SELECT name FROM singer WHERE country = 'France' ORDER BY name" }, // right, another order
  // Right: the evaluator drops DISTINCT from both (a GROUP BY year would be wrong against the gold's 4 rows then).
  { task_id: 'Spider/3', completion: 'SELECT distinct year FROM concert' },
  { task_id: 'Spider/3', completion: 'SELECT yeer FROM concert' }, // an error
];

beforeAll(() => {
  databases = makeSpiderDatabases(dir);
  writeFileSync(problems, jsonl(ROWS));
  writeFileSync(samples, jsonl(SAMPLES));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const evaluate = (...args: string[]) =>
  run(process.execPath, [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--k', '1', ...args], {
    timeout: 120_000,
  });

// The cases only wait on their processes (evaluate.ts, start-sweep.ts), each writing files of its own: they run at once.
describe.concurrent('evaluate.ts --spider-databases', () => {
  it('runs every sample and the gold query on the database in the sandbox: pass@1 is execution accuracy', async () => {
    // The same samples from their text alone, meanwhile, their results in a file of their own.
    const textResults = path.join(dir, 'text-only_results.jsonl');
    const [{ stdout, stderr }, textOnly] = await Promise.all([evaluate('--spider-databases', databases), evaluate('--out', textResults)]);
    expect(stderr).toContain('running 5 samples of 4 spider problems');
    const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!);
    // Per task: 1, 0, 1, 1/2.
    expect(metrics['pass@1']).toBeCloseTo((1 + 0 + 1 + 0.5) / 4, 12);
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((r) => r.passed)).toEqual([true, false, true, true, false]);
    // A query that ran with a wrong result reads failed, saying why; one that raised names its exception.
    expect(results.map((r) => r.result.split(':')[0])).toEqual(['passed', 'failed', 'passed', 'passed', 'failed']);
    expect(results[1].result).toBe(
      'failed: the result sets differ: the predicted query returned 5 rows, the gold query 5 rows, compared in order (the gold query has ORDER BY)',
    );
    expect(results[4].result).toContain('no such column: yeer');
    expect(singerCount(databases)).toBe(5);
    // BLEU beside execution accuracy: the figures the same samples get from their text alone, each row with its statistics.
    expect(stderr).toContain("also scored from their text (bleu, each task's first sample: 4)");
    expect(textOnly.stderr).toContain('from their text (bleu');
    const bleu = JSON.parse(textOnly.stdout.trim().split('\n').at(-1)!);
    expect(bleu.bleu).toBeGreaterThan(0);
    expect(metrics).toEqual({ 'pass@1': metrics['pass@1'], ...bleu });
    const textRows = readFileSync(textResults, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((r) => r.stats)).toEqual(textRows.map((r) => r.stats));
  }, 240_000);

  it('a missing folder or database file is refused before anything runs, naming it', async () => {
    const other = path.join(dir, 'other.jsonl');
    writeFileSync(other, jsonl([...ROWS, { db_id: 'pets_1', query: 'SELECT count(*) FROM pets', question: 'How many pets?' }]));
    writeFileSync(samples + '.pets', jsonl([...SAMPLES, { task_id: 'Spider/4', completion: 'SELECT 1' }]));
    // The three runs at once (the one that runs writes its results to a file of its own).
    const missingDir = evaluate('--spider-databases', path.join(dir, 'nowhere'));
    const missingFile = run(
      process.execPath,
      [
        ...[RUN_ENTRY, 'scripts/evaluate.ts', '--problems', other, '--samples', samples, '--ignore-incomplete'],
        ...['--spider-databases', databases, '--out', path.join(dir, 'other_results.jsonl')],
      ],
      { timeout: 120_000 },
    );
    const needsPets = run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', other, '--samples', samples + '.pets', '--spider-databases', databases],
      { timeout: 120_000 },
    );
    for (const p of [missingDir, missingFile, needsPets]) p.catch(() => {}); // each is checked below
    await expect(missingDir).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--spider-databases ${path.join(dir, 'nowhere')}: no such folder`),
    });
    // The pets task has no sample: only attempted tasks' databases are needed.
    await expect(missingFile).resolves.toBeDefined();
    await expect(needsPets).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `need the file ${databases}/pets_1/pets_1.sqlite, which is missing or unreadable; check --spider-databases`,
      ),
    });
  }, 300_000);
});

describe.concurrent('a sweep whose Spider entry names the databases', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  // Two samples per task: right/right, wrong order/right, right/error, right/wrong.
  const ANSWERS = new Map<string, string[]>([
    [spiderPrompt(ROWS[0]!.question), ['SELECT count(*) FROM singer', 'SELECT COUNT(*) FROM singer']],
    [spiderPrompt(ROWS[1]!.question), ['SELECT name, age FROM singer ORDER BY age', 'SELECT name, age FROM singer ORDER BY age DESC']],
    [spiderPrompt(ROWS[2]!.question), ["SELECT name FROM singer WHERE country = 'France'", 'SELECT nome FROM singer']],
    [spiderPrompt(ROWS[3]!.question), ['SELECT DISTINCT year FROM concert', 'SELECT 2014']],
  ]);
  const asked = new Map<string, number>();

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      const prompt = String(req.body.prompt);
      const i = asked.get(prompt) ?? 0;
      asked.set(prompt, i + 1);
      return { content: `${ANSWERS.get(prompt)?.[i % 2] ?? 'none'}\nInstruction:\nmore` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it('each sample and the gold query run on the database in the sandbox; the cell reports pass@1, and BLEU beside it', async () => {
    const id = `spider-exec-${uniqueSuffix()}`;
    const sweepDir = mkdtempSync(path.join(dir, 'sweep-'));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir: sweepDir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: spider
    family: spider
    path: ${problems}
    databases: ${databases}
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.2]
n_samples: 2
k: [1]
timeout_s: 10
`,
    });
    const [cell] = results.cells;
    // Per task: 2, 1, 1 and 1 right of 2.
    expect(cell.passAtK['pass@1']).toBeCloseTo((1 + 0.5 + 0.5 + 0.5) / 4, 12);
    // Wrong results read failed (the query ran; its result is not the gold's), not passed.
    expect(cell.statusCounts).toEqual({ passed: 5, failed: 2, error: 1 });
    expect(singerCount(databases)).toBe(5);

    // BLEU beside it: bigcode's corpus BLEU of each task's first sample (generations.json, in sample order) against the gold.
    const cellId = String(cell.cell.cell);
    await expectCellFilesAsStored(bucket, id, outDir, cellId);
    const generations = outputJson(outDir, cellId, 'generations.json') as string[][];
    const expected = bigcodeBleu(
      generations.map((g) => g[0]!),
      ROWS.map((r) => r.query),
    );
    expect(expected.bleu).toBeGreaterThan(0);
    expect(expected.bleu).toBeLessThan(1);
    expect(cell.alsoText).toMatchObject({ metric: 'bleu', headline: 'bleu', samplesScored: 'first', samples: ROWS.length });
    expect(cell.alsoText.figures.bleu).toBeCloseTo(expected.bleu, 12);
    // Still a run cell: pass@k is its score, BLEU is beside it (not the text-scored cells' `scores`).
    expect(cell.scores).toBeUndefined();
    const cellResults = outputJson(outDir, cellId, 'results.json');
    expect(cellResults['pass@1']).toBe(cell.passAtK['pass@1']);
    expect(cellResults.also_text).toEqual({ metric: 'bleu', samples_scored: 'first', samples: ROWS.length, ...cell.alsoText.figures });
    // bigcode's metric file: both on one line, as evaluate.ts prints them.
    expect(outputJson(outDir, cellId, 'evaluation_results.json').spider).toEqual({
      'pass@1': cell.passAtK['pass@1'],
      ...cell.alsoText.figures,
    });
    const bleuLine = new RegExp(
      `${cellId.replaceAll('.', '\\.')}: also from the text: bleu ${cell.alsoText.figures.bleu.toFixed(4)}; precisions`,
    );
    expect(output).toMatch(bleuLine);
    const [status, report] = await Promise.all([
      runTs('scripts/sweep-status.ts', [id], env),
      runTs('scripts/report.ts', [id, '--out', sweepDir], env),
    ]);
    expect(status.code, status.output).toBe(0);
    expect(status.output).toMatch(bleuLine);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(sweepDir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="also-text-scores-table"');
    expect(html).toContain(`<td>bleu</td><td class="num">${cell.alsoText.figures.bleu.toFixed(4)}</td>`);
  }, 600_000);

  it('a missing databases folder in the entry is refused before anything starts, naming the file', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `id: spider-bad-${uniqueSuffix()}
datasets:
  - name: spider
    family: spider
    path: ${problems}
    databases: ${path.join(dir, 'nowhere')}
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
`,
    );
    const sweep = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], env);
    expect(sweep.code).not.toBe(0);
    expect(sweep.output).toContain(`need the file ${path.join(dir, 'nowhere')}/concert_singer/concert_singer.sqlite, which is missing`);
  }, 120_000);
});
