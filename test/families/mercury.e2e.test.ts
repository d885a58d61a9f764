/**
 * Mercury end to end. scripts/evaluate.ts with bigcode's task name (`mercury`) on three rows in
 * Elfsong/Mercury's format (test/support/mercury-rows.ts) and bigcode-style saved generations: each
 * sample's status and Beyond from the sandbox, bigcode's evaluation_results.json (pass@k and
 * Beyond@k per difficulty, its status counts) with a fast answer ranked far above a deliberately
 * slow one. And one small sweep through Temporal against the scripted server (a completions model
 * answering fast code, a chat model slow code): the cells' Beyond, files, bigcode's file and the report.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import type { MercurySample } from '../../domain/families/mercury/scores.js';
import { MERCURY_ROWS, mercuryJsonl, PAIRS_FAST, PAIRS_SLOWEST, RUNNING_SUM, RUNNING_SUM_FAILURES } from '../support/mercury-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-mercury-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BIGCODE_ORDER = (groups: string[]) => [...groups.flatMap((g) => [`${g}_pass@1`, `${g}_beyond@1`]), 'Easy', 'Medium', 'Hard'];

describe("evaluate.ts --tasks mercury: bigcode's figures from the sandbox", () => {
  it('each sample scored and ranked; evaluation_results.json in bigcode keys and order', async () => {
    const rows = path.join(dir, 'eval.jsonl');
    const samplesFile = path.join(dir, 'generations.jsonl');
    const out = path.join(dir, 'evaluate-out');
    const bigcodeFile = path.join(dir, 'evaluation_results.json');
    writeFileSync(rows, mercuryJsonl(MERCURY_ROWS));
    const answers: Array<[string, string]> = [
      ['count-pairs', PAIRS_FAST],
      ['count-pairs', PAIRS_SLOWEST],
      ['running-sum-of-1d-array', RUNNING_SUM],
      ['running-sum-of-1d-array', RUNNING_SUM_FAILURES['failed@cases']],
      ['maximum-depth-of-binary-tree', MERCURY_ROWS[2]!.solutions[0]!.solution],
      ['maximum-depth-of-binary-tree', RUNNING_SUM_FAILURES['failed@load']],
    ];
    writeFileSync(
      samplesFile,
      answers.map(([slug, code]) => JSON.stringify({ task_id: `mercury/${slug}`, completion: code }) + '\n').join(''),
    );
    const { stdout } = await run(
      process.execPath,
      [
        ...[RUN_ENTRY, 'scripts/evaluate.ts', '--tasks', 'mercury', '--problems', rows, '--samples', samplesFile],
        ...['--output-dir', out, '--metric_output_path', bigcodeFile, '--k', '1', '--timing-runs', '3'],
      ],
      { timeout: 300_000 },
    );
    // The cell's samples.jsonl: each sample's record, its score as the kind keeps it.
    const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { score: MercurySample }).score);
    expect(lines.map((l) => l.status)).toEqual(['passed', 'passed', 'passed', 'failed@cases', 'passed', 'failed@load']);
    expect(lines[0]!.beyond!).toBeGreaterThan(0.9);
    expect(lines[1]!.beyond).toBe(0);
    expect(lines[1]!.runtime! / lines[0]!.runtime!).toBeGreaterThan(10);
    const metrics = (JSON.parse(readFileSync(bigcodeFile, 'utf8')) as { mercury: Record<string, unknown> }).mercury;
    expect(Object.keys(metrics)).toEqual(BIGCODE_ORDER(['Easy', 'Medium', 'Hard', 'Average']));
    expect(metrics).toMatchObject({ 'Easy_pass@1': 0.5, 'Medium_pass@1': 1, 'Hard_pass@1': 0.5, 'Average_pass@1': 2 / 3 });
    expect(metrics['Medium_beyond@1']).toBe(lines[0]!.beyond);
    expect(metrics.Medium).toEqual({
      'failed@load': 0,
      'failed@eval': 0,
      'failed@cases': 0,
      'failed@timeout': 0,
      'failed@error': 0,
      passed: 2,
    });
    expect(metrics.Hard).toMatchObject({ 'failed@load': 1, passed: 1 });
    // evaluate.ts's own line: explora's pass@1, then bigcode's figures.
    const line = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(line['pass@1']).toBeCloseTo(4 / 6, 12);
    expect(line['Average_beyond@1']).toBe(metrics['Average_beyond@1']);
  }, 300_000);
});

describe('a sweep over Mercury against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const rows = MERCURY_ROWS.slice(0, 2);

  /** By the task's question: the completions model answers fast code, the chat model slow (or wrong) code. */
  const answer = (text: string, fast: boolean): string | undefined => {
    if (text.includes('nums[i] + nums[j] == target')) return fast ? PAIRS_FAST : PAIRS_SLOWEST;
    if (text.includes('running sum')) return fast ? RUNNING_SUM : RUNNING_SUM_FAILURES['failed@cases'];
    return undefined;
  };

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      if (req.api === 'completions') {
        const prompt = String(req.body.prompt);
        return { content: answer(prompt.slice(prompt.lastIndexOf('### Question')), true) ?? 'pass' };
      }
      const user = (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const code = answer(user, false);
      return { content: code ? `Here it is:\n\`\`\`python\n${code}\n\`\`\`\n` : 'no idea' };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it("cells report Beyond@1 and pass@1 per difficulty; the fast model's above the slow one's; files, bigcode's file, report", async () => {
    const id = `mercury-${uniqueSuffix()}`;
    const file = path.join(dir, 'mercury.jsonl');
    writeFileSync(file, mercuryJsonl(rows));
    const { outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: mercury
    family: mercury
    path: ${file}
    timing_runs: 2
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0]
n_samples: 1
k: [1]
timeout_s: 5
`,
    });
    expect(results.cells).toHaveLength(2);
    const beyond: Record<string, number> = {};
    for (const cell of results.cells) {
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      expect(cell.scores.kind).toBe('mercury');
      const metrics = outputJson(outDir, cellId, 'evaluation_results.json') as { mercury: Record<string, number> };
      expect(Object.keys(metrics.mercury)).toEqual(BIGCODE_ORDER(['Easy', 'Medium', 'Average']));
      expect((outputJson(outDir, cellId, 'results.json') as { scores: { bigcode: unknown } }).scores.bigcode).toEqual(metrics.mercury);
      beyond[String(cell.cell.model)] = metrics.mercury['Average_beyond@1']!;
      expect(cell.passAtK['pass@1']).toBe(cell.cell.model === 'base' ? 1 : 0.5);
    }
    // Fast code: near the fastest reference on both tasks; slow code: below the slowest, and a wrong answer.
    expect(beyond.base!).toBeGreaterThan(0.9);
    expect(beyond.chat).toBe(0);

    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    expect(readFileSync(path.join(dir, `report-${id}.html`), 'utf8')).toContain('id="mercury-scores-table"');
  }, 600_000);
});
