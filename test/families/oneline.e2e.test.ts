/**
 * CoNaLa, Concode and Spider (BLEU) end to end: scripts/evaluate.ts on the owners' files (Parquet,
 * JSON Lines) with samples {task_id, completion}, scoring each task's first sample with bigcode's
 * BLEU and starting no sandbox; and a sweep through Temporal against the scripted server (a
 * completions model and a chat model, two samples per task) whose cells report BLEU, not pass@k,
 * in results.json, the sweep's results, the report and --output-dir's evaluation_results.json,
 * with every sample `scored` and no sandbox run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../domain/families/registry.js';
import { bigcodeBleu } from '../../domain/metrics/bleu.js';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { textCheckingOf } from '../../domain/sweep/textScores.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { CONALA_ROWS, CONCODE_ROWS, jsonl, SPIDER_ROWS } from '../support/oneline-rows.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const run = promisify(execFile);
const PARQUET = path.resolve(import.meta.dirname, '../support/parquet');
const ROWS = { conala: CONALA_ROWS, concode: CONCODE_ROWS, spider: SPIDER_ROWS } as const;
type Id = keyof typeof ROWS;
const problemsOf = (id: Id) =>
  FAMILIES[id].load({ entry: { name: id, family: id, path: 'x.jsonl' } as never, texts: { rows: jsonl(ROWS[id]) }, sources: { rows: id } })
    .problems;
const referencesOf = (id: Id) => problemsOf(id).map((p) => textCheckingOf(p)!.reference);

/** The model's one line for each task: the reference for even tasks, a near miss for odd ones. */
function answerFor(id: Id, index: number): string {
  const reference = referencesOf(id)[index]!;
  return index % 2 === 0 ? reference : reference.split(' ').slice(0, -2).join(' ');
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-oneline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The cases only wait on their processes (evaluate.ts, start-sweep.ts, report.ts, compare.ts): they run at once,
// each on files (and the sweeps on task queues) of its own.
describe.concurrent('evaluate.ts on the owners files', () => {
  it("scores each task's first sample in the file by bigcode's BLEU, rows marked scored, no sandbox started", async () => {
    const problems = path.join(PARQUET, 'conala-test-00000-of-00001.parquet');
    const samples = path.join(dir, 'conala_samples.jsonl');
    const firsts = CONALA_ROWS.map((_, i) => answerFor('conala', i));
    // Second samples first in the file for task 1: the file's first row of a task is its gen[0].
    const rows = [
      { task_id: 'CoNaLa/1', completion: ` ${firsts[1]}\n` },
      ...firsts.flatMap((c, i) => (i === 1 ? [] : [{ task_id: `CoNaLa/${i}`, completion: c }])),
      { task_id: 'CoNaLa/0', completion: 'something else' },
      { task_id: 'CoNaLa/1', completion: 'something else' },
    ];
    writeFileSync(samples, jsonl(rows));
    // An interpreter that does not exist: nothing may need it.
    const { stdout, stderr } = await run(
      process.execPath,
      [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--python', '/nonexistent/python'],
      { timeout: 120_000 },
    );
    const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!);
    const expected = bigcodeBleu(firsts, referencesOf('conala'));
    expect(metrics.bleu).toBeCloseTo(expected.bleu, 12);
    expect(metrics).toEqual({ ...expected, bleu: metrics.bleu });
    expect(stderr).toContain("scored 6 samples of 4 conala problems from their text (bleu, each task's first sample: 4)");
    const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((r) => [r.task_id, r.result])).toEqual(rows.map((r) => [r.task_id, 'scored']));
    expect(results[0].stats).toHaveProperty('matches_1');
    expect(results[0]).not.toHaveProperty('passed');
  }, 180_000);

  it('Concode (JSON Lines, Java, no toolchain asked) and a bad row refused naming file, line and field (exit 2)', async () => {
    const problems = path.join(dir, 'dev.jsonl');
    writeFileSync(problems, jsonl(CONCODE_ROWS));
    const samples = path.join(dir, 'concode_samples.jsonl');
    const answers = CONCODE_ROWS.map((_, i) => answerFor('concode', i));
    writeFileSync(samples, jsonl(answers.map((completion, i) => ({ task_id: `Concode/${i}`, completion }))));
    const { stdout } = await run(process.execPath, [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples], {
      timeout: 120_000,
      env: { ...process.env, PATH: '/nonexistent' },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!).bleu).toBeCloseTo(bigcodeBleu(answers, referencesOf('concode')).bleu, 12);

    writeFileSync(problems, jsonl([CONCODE_ROWS[0]!, { ...CONCODE_ROWS[1], code: null }]));
    const refused = await run(process.execPath, [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples], {
      timeout: 120_000,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toMatch(new RegExp(`${problems.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: code: `));
  }, 180_000);
});

describe.concurrent('a sweep over CoNaLa, Concode and Spider against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];
  const byPrompt = new Map<string, string>();
  for (const id of Object.keys(ROWS) as Id[]) problemsOf(id).forEach((p, i) => byPrompt.set(p.prompt, answerFor(id, i)));

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        // What follows the newline is cut at the stop word.
        return { content: `${byPrompt.get(String(req.body.prompt)) ?? 'none'}\nInstruction:\nmore` };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const answer = [...byPrompt.entries()].find(([prompt]) => user.includes(prompt))?.[1] ?? 'none';
      return { content: `Here:\n\`\`\`sql\n${answer}\n\`\`\`\n` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("each cell reports BLEU over each task's first sample, and no pass@k; every sample scored, nothing run", async () => {
    const id = `oneline-${uniqueSuffix()}`;
    const spiderJson = path.join(dir, 'dev.json');
    writeFileSync(spiderJson, JSON.stringify(SPIDER_ROWS, null, 2));
    const concodeJsonl = path.join(dir, 'concode.jsonl');
    writeFileSync(concodeJsonl, jsonl(CONCODE_ROWS));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: conala
    family: conala
    path: ${path.join(PARQUET, 'conala-test-00000-of-00001.parquet')}
  - name: concode
    family: concode
    path: ${concodeJsonl}
  - name: spider
    family: spider
    path: ${spiderJson}
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0.2]
n_samples: 2
k: [1]
timeout_s: 10
# All six cells at once (a layout setting: no result changes).
max_parallel_cells: 6
`,
    });
    expect(output).toMatch(/: bleu 0\.\d{4}; precisions/);
    expect(results.cells).toHaveLength(6);
    for (const cell of results.cells) {
      const dataset = cell.cell.dataset as Id;
      const expected = bigcodeBleu(
        ROWS[dataset].map((_, i) => answerFor(dataset, i)),
        referencesOf(dataset),
      );
      expect(expected.bleu).toBeGreaterThan(0);
      expect(expected.bleu).toBeLessThan(1);
      expect(cell.scores).toMatchObject({ kind: 'text', metric: 'bleu', samplesScored: 'first', samples: ROWS[dataset].length });
      expect(cell.scores.figures.bleu, `${cell.cell.cell}`).toBeCloseTo(expected.bleu, 12);
      expect(cell.passAtK).toEqual({});
      expect(cell.statusCounts).toEqual({ scored: 2 * ROWS[dataset].length });
      expect(cell.cost.sandboxRuns).toBe(0);
      const cellId = String(cell.cell.cell);
      const cellResults = JSON.parse((await getText(bucket, cellFileKey(id, cellId, 'results.json')))!);
      expect(cellResults.scores).toMatchObject({ metric: 'bleu', samples_scored: 'first', bleu: cell.scores.figures.bleu });
      expect(cellResults).not.toHaveProperty('pass@1');
      // bigcode's metric file: {"<dataset>": {bleu, precisions, ...}, config}.
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json');
      expect(metrics[dataset]).toEqual(cell.scores.figures);
      expect(outputJson(outDir, cellId, 'references.json')).toEqual(referencesOf(dataset));
      const samples = readFileSync(path.join(outDir, cellId, 'samples.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(samples.every((s) => s.result === 'scored' && s.score.kind === 'text')).toBe(true);
    }
    for (const s of stops) expect(s).toEqual(['\n']);
    expect(stops.length).toBeGreaterThan(0);

    const [report, compared] = await Promise.all([
      runTs('scripts/report.ts', [id, '--out', dir], env),
      runTs('scripts/compare.ts', [`${id}/conala.base.direct.t0.2`, `${id}/conala.chat.direct.t0.2`, '--json'], env, { untilClosed: true }),
    ]);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="text-scores-table"');
    expect(html).toMatch(/<li><b>spider<\/b>: [^<]*, bleu 0\.\d{4}<\/li>/);
    // Both models answer alike: compared on BLEU (paired bootstrap over tasks), never on pass@k's zeros.
    expect(html).toMatch(/data-metric="bleu" data-diff="0" data-p="1"/);
    expect(compared.code, compared.output).toBe(0);
    const cmp = JSON.parse(compared.output.slice(compared.output.indexOf('{')));
    expect(cmp.pairs[0].metrics).toMatchObject([
      { metric: 'bleu', test: 'paired-bootstrap', diff: 0, p: 1, bootstrap: { low: 0, high: 0 } },
    ]);
    expect(cmp.pairs[0].metrics[0].a).toBeCloseTo(
      bigcodeBleu(
        ROWS.conala.map((_, i) => answerFor('conala', i)),
        referencesOf('conala'),
      ).bleu,
      12,
    );
  }, 600_000);

  it("evaluate-only scores bigcode's saved generations; generation-only scores too (nothing to run)", async () => {
    const conala = path.join(PARQUET, 'conala-test-00000-of-00001.parquet');
    const config = (id: string) => `id: ${id}
datasets:
  - name: conala
    family: conala
    path: ${conala}
models:
  - id: base
    base_url: ${server.url}
    model: scripted-base
    api: completions
methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
`;
    // bigcode's generations.json: per task its post-processed generations (gen[0] is scored).
    const generations = path.join(dir, 'generations.json');
    const saved = CONALA_ROWS.map((_, i) => [answerFor('conala', 3 - i), answerFor('conala', i)]);
    writeFileSync(generations, JSON.stringify(saved));
    const evalId = `oneline-eval-${uniqueSuffix()}`;
    writeFileSync(path.join(dir, 'eval.yaml'), config(evalId));
    const genId = `oneline-gen-${uniqueSuffix()}`;
    writeFileSync(path.join(dir, 'gen.yaml'), config(genId));
    // Both sweeps at once, each on task queues of its own.
    const [evaluated, generated] = await Promise.all([
      runTs(
        'scripts/start-sweep.ts',
        ['--config', path.join(dir, 'eval.yaml'), '--no-progress', '--evaluate-only', '--load-generations', generations],
        testConfig().env,
      ),
      runTs('scripts/start-sweep.ts', ['--config', path.join(dir, 'gen.yaml'), '--no-progress', '--generation-only'], testConfig().env),
    ]);
    expect(evaluated.code, evaluated.output).toBe(0);
    // An evaluate-only sweep's id adds the generations' hash to the config's.
    const evalSweep = /^sweep (\S+): http/m.exec(evaluated.output)![1]!;
    expect(evalSweep).toMatch(new RegExp(`^${evalId}-eval-[0-9a-f]{10}$`));
    const [cell] = JSON.parse((await getText(bucket, sweepResultsKey(evalSweep)))!).cells;
    const firsts = saved.map((g) => g[0]!);
    expect(cell.scores.figures.bleu).toBeCloseTo(bigcodeBleu(firsts, referencesOf('conala')).bleu, 12);
    // n_samples 1: each task's first saved generation is its sample.
    expect(cell.statusCounts).toEqual({ scored: 4 });

    expect(generated.code, generated.output).toBe(0);
    const [genCell] = JSON.parse((await getText(bucket, sweepResultsKey(genId)))!).cells;
    expect(genCell.statusCounts).toEqual({ scored: 4 });
    expect(genCell.scores.figures.bleu).toBeCloseTo(
      bigcodeBleu(
        CONALA_ROWS.map((_, i) => answerFor('conala', i)),
        referencesOf('conala'),
      ).bleu,
      12,
    );
  }, 600_000);
});
