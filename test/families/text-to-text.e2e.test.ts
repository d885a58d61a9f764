/**
 * CodeXGLUE text-to-text end to end: scripts/evaluate.ts on the rows as Hugging Face publishes them
 * (JSON Lines of id, source, target) with `--subset da_en` and samples {task_id, completion}, scoring
 * each task's first sample with bigcode's BLEU and starting no sandbox; and a sweep through Temporal
 * against the scripted server (a completions model and a chat model) whose cells report BLEU in the
 * sweep's results, the cells' results.json, the report and --output-dir's peer files.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textToTextFamily } from '../../domain/families/text-to-text/index.js';
import { bigcodeBleu } from '../../domain/metrics/bleu.js';
import { cellFileKey } from '../../domain/sweep/keys.js';
import { textCheckingOf } from '../../domain/sweep/textScores.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { jsonl } from '../support/oneline-rows.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { TEXT_TO_TEXT_ROWS } from '../support/text-to-text-rows.js';

const run = promisify(execFile);
const ROWS = TEXT_TO_TEXT_ROWS.da_en;
const problems = textToTextFamily.load({
  entry: { name: 'tt', family: 'text-to-text', path: 'x.jsonl', subset: 'da_en' },
  texts: { rows: jsonl(ROWS) },
  sources: { rows: 'da_en' },
}).problems;
const references = problems.map((p) => textCheckingOf(p)!.reference);
/** The model's translation of each task: the reference for even tasks, a near miss for odd ones. */
const answers = references.map((r, i) => (i % 2 === 0 ? r : r.split(' ').slice(0, -2).join(' ')));

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-text-to-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("evaluate.ts --subset da_en scores each task's first sample by bigcode's BLEU; without --subset it is refused (exit 2)", async () => {
  const rowsFile = path.join(dir, 'test.jsonl');
  writeFileSync(rowsFile, jsonl(ROWS));
  const samples = path.join(dir, 'samples.jsonl');
  writeFileSync(
    samples,
    jsonl([
      ...answers.map((a, i) => ({ task_id: `codexglue_text_to_text-da_en/${i}`, completion: ` ${a}\n` })),
      { task_id: 'codexglue_text_to_text-da_en/0', completion: 'something else' },
    ]),
  );
  const args = [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', rowsFile, '--samples', samples];
  const { stdout, stderr } = await run(process.execPath, [...args, '--subset', 'da_en', '--python', '/nonexistent/python'], {
    timeout: 120_000,
  });
  const expected = bigcodeBleu(answers, references);
  expect(expected.bleu).toBeGreaterThan(0);
  expect(expected.bleu).toBeLessThan(1);
  const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(metrics.bleu).toBeCloseTo(expected.bleu, 12);
  expect(stderr).toContain("scored 4 samples of 3 text-to-text problems from their text (bleu, each task's first sample: 3)");

  const refused = await run(process.execPath, args, { timeout: 120_000 }).catch((e: { code: number; stderr: string }) => e);
  expect(refused).toMatchObject({ code: 2 });
  expect((refused as { stderr: string }).stderr).toContain('--subset: CodeXGLUE text-to-text rows do not say their language');
}, 180_000);

describe('a sweep over codexglue_text_to_text-da_en against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const stops: unknown[] = [];
  const byPrompt = new Map(problems.map((p, i) => [p.prompt, answers[i]!]));

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        stops.push(req.body.stop);
        // What follows the newline is cut at the stop word.
        return { content: `${byPrompt.get(String(req.body.prompt)) ?? 'none'}\nDanish:\nmore` };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      return { content: `${[...byPrompt.entries()].find(([prompt]) => user.includes(prompt))?.[1] ?? 'none'}\n` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("each cell reports BLEU over each task's first sample, no pass@k, nothing run; report and peer files", async () => {
    const id = `text-to-text-${uniqueSuffix()}`;
    const rowsFile = path.join(dir, 'da_en.jsonl');
    writeFileSync(rowsFile, jsonl(ROWS));
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: tt-da
    family: text-to-text
    path: ${rowsFile}
    subset: da_en
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
timeout_s: 10
`,
    });
    expect(output).toMatch(/: bleu 0\.\d{4}; precisions/);
    expect(results.cells).toHaveLength(2);
    const expected = bigcodeBleu(answers, references);
    for (const cell of results.cells) {
      expect(cell.scores).toMatchObject({ kind: 'text', metric: 'bleu', samplesScored: 'first', samples: ROWS.length });
      expect(cell.scores.figures.bleu, `${cell.cell.cell}`).toBeCloseTo(expected.bleu, 12);
      expect(cell.passAtK).toEqual({});
      expect(cell.statusCounts).toEqual({ scored: ROWS.length });
      expect(cell.cost.sandboxRuns).toBe(0);
      const cellId = String(cell.cell.cell);
      const cellResults = JSON.parse((await getText(bucket, cellFileKey(id, cellId, 'results.json')))!);
      expect(cellResults.scores).toMatchObject({ metric: 'bleu', samples_scored: 'first', bleu: cell.scores.figures.bleu });
      expect(outputJson(outDir, cellId, 'evaluation_results.json')['tt-da']).toEqual(cell.scores.figures);
      expect(outputJson(outDir, cellId, 'references.json')).toEqual(references);
    }
    for (const s of stops) expect(s).toEqual(['\n']);
    expect(stops.length).toBeGreaterThan(0);

    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="text-scores-table"');
    expect(html).toMatch(/<li><b>tt-da<\/b>: [^<]*, bleu 0\.\d{4}<\/li>/);
  }, 600_000);
});
