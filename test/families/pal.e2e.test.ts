/**
 * PAL end to end: a sweep over GSM8K and GSM-HARD rows (test/support/pal-rows.ts, their owners'
 * formats) against a scripted completions server whose five samples per task give known answers:
 * results.json, the sweep's results, the report and the --output-dir files carry greedy and
 * majority-voting accuracy as bigcode computes them; requests stop at bigcode's "\n\n\n"; the
 * references (GSM-HARD's programs) pass. Then scripts/evaluate.ts on files: bigcode's own saved
 * generations score as its test expects ({accuracy: 1, num_failed_execution: 0}), and raw
 * completions are voted on.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAL_STOP_WORDS } from '../../domain/families/pal/index.js';
import { cellFileKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { RUN_ENTRY, runTs } from '../support/processes.js';
import { outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';
import { testBucket } from '../support/s3.js';
import { BIGCODE_SAVED_GENERATIONS, GSM8K_ROWS, GSM_HARD_ROWS, palJsonl } from '../support/pal-rows.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const N = 5;
const run = promisify(execFile);
/** A completion continuing the prompt: a solution() returning `value`, then what follows the stop word. */
const completion = (value: string) => `def solution():\n    return ${value}\n\n\nQ: a question the model went on to ask`;

/**
 * Each task's five samples' return values, by question (GSM-HARD's robe question is GSM8K's, the
 * same prompt: it gets the same samples); the comments give bigcode's two choices.
 */
const SAMPLES = new Map<string, string[]>([
  [GSM8K_ROWS[0]!.question, ['18', '17', '17', '18', '17']], // greedy 18 (right), vote 17
  [GSM8K_ROWS[1]!.question, ['1 / 0', '3', '3', '4', '4']], // greedy 3 (the failed run skipped), vote 3 (first of a tie)
  [GSM8K_ROWS[2]!.question, ['70000.0', 'None', '69999', '70000', '69999']], // greedy right, vote 69999
  [GSM_HARD_ROWS[0]!.input, ['-9867630.0', '-9867630', '1', '2', '3']], // both right (-9867630.0 and -9867630 are two answers)
]);

describe('PAL through a sweep and evaluate.ts', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-pal-'));
  const served = new Map<string, number>();
  const stops: unknown[] = [];
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'test.jsonl'), palJsonl(GSM8K_ROWS));
    writeFileSync(path.join(dir, 'gsmhardv2.jsonl'), palJsonl(GSM_HARD_ROWS));
    server = await startScriptedLlmServer((req) => {
      stops.push(req.body.stop);
      const prompt = String(req.body.prompt);
      const question = [...SAMPLES.keys()].find((q) => prompt.endsWith(`Q: ${q}\n\n# solution in Python:\n\n\n`));
      if (question === undefined) return { content: 'pass\n' };
      const n = Number(req.body.n ?? 1);
      const first = served.get(prompt) ?? 0;
      served.set(prompt, first + n);
      const texts = Array.from({ length: n }, (_, i) => completion(SAMPLES.get(question)![(first + i) % N]!));
      return { content: n === 1 ? texts[0]! : texts };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('greedy and majority-voting accuracy are what the samples imply, in results, report and bigcode files', async () => {
    const id = `pal-${uniqueSuffix()}`;
    const { output, outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      flags: ['--check-references'],
      yaml: `id: ${id}
datasets:
  - name: pal-gsm8k
    family: pal
    path: test.jsonl
  - name: pal-gsmhard
    family: pal
    path: gsmhardv2.jsonl
${scriptedModelsYaml(server.url, { chat: false })}methods: [direct]
temperatures: [0.8]
n_samples: ${N}
k: [1]
timeout_s: 10
`,
    });
    // GSM-HARD's rows carry their PAL program: each answers its target. GSM8K's have none.
    expect(output).toContain(`pal-gsmhard: ${GSM_HARD_ROWS.length} of ${GSM_HARD_ROWS.length} references pass`);
    expect(output).toContain('accuracy greedy 1.0000 (0 failed), majority voting 0.3333 (0 failed)');
    expect(output).toContain('accuracy greedy 1.0000 (0 failed), majority voting 1.0000 (0 failed)');
    for (const s of stops) expect(s).toEqual(PAL_STOP_WORDS);

    const byDataset = (name: string) => results.cells.find((c: { cell: { dataset: string } }) => c.cell.dataset === name);
    const gsm8k = byDataset('pal-gsm8k');
    const hard = byDataset('pal-gsmhard');
    expect(gsm8k.scores).toEqual({
      kind: 'voting',
      greedy: { accuracy: 1, numFailedExecution: 0 },
      majorityVoting: { accuracy: expect.closeTo(1 / 3, 12), numFailedExecution: 0 },
    });
    expect(hard.scores).toEqual({
      kind: 'voting',
      greedy: { accuracy: 1, numFailedExecution: 0 },
      majorityVoting: { accuracy: 1, numFailedExecution: 0 },
    });
    // pass@1: the share of right samples (18 twice; 3 twice; 70000.0 and 70000), then GSM-HARD's two of five, twice.
    expect(gsm8k.passAtK['pass@1']).toBeCloseTo(2 / 5, 12);
    expect(hard.passAtK['pass@1']).toBeCloseTo(2 / 5, 12);

    const cellId = String(gsm8k.cell.cell);
    const cellResults = JSON.parse((await getText(bucket, cellFileKey(id, cellId, 'results.json')))!);
    expect(cellResults.scores).toEqual({
      greedy: { accuracy: 1, num_failed_execution: 0 },
      majority_voting: { accuracy: expect.closeTo(1 / 3, 12), num_failed_execution: 0 },
    });
    expect(cellResults.per_task[0].answers).toEqual([
      { answer: '18', votes: 2, correct: true },
      { answer: '17', votes: 3, correct: false },
    ]);
    // The saved programs are bigcode's postprocessed generations; the references its answers.
    const generations = outputJson(outDir, cellId, 'generations.json') as string[][];
    expect(generations[0]![0]).toBe('def solution():\n    return 18\nprint(solution())');
    expect(readFileSync(path.join(outDir, cellId, 'references.json'), 'utf8')).toContain('__explora_pal_run(__explora_pal_source, 70000)');
    // bigcode's metric file: several samples per task, so pal-*-majority_voting's figures lead.
    const metrics = outputJson(outDir, cellId, 'evaluation_results.json');
    expect(metrics['pal-gsm8k']).toMatchObject({
      accuracy: expect.closeTo(1 / 3, 12),
      num_failed_execution: 0,
      greedy: { accuracy: 1, num_failed_execution: 0 },
    });

    const report = await runTs('scripts/report.ts', [id, '--out', dir], env);
    expect(report.code, report.output).toBe(0);
    const html = readFileSync(path.join(dir, `report-${id}.html`), 'utf8');
    expect(html).toContain('id="voting-scores-table"');
    expect(html).toContain('33.3%');
  });

  it("evaluate.ts: bigcode's saved generations score as its own test expects; raw completions are voted on", async () => {
    const problems = path.join(dir, 'gsm8k-2.jsonl');
    writeFileSync(problems, palJsonl(GSM8K_ROWS.slice(0, 2)));
    const saved = path.join(dir, 'saved.jsonl');
    writeFileSync(
      saved,
      BIGCODE_SAVED_GENERATIONS.map((completion, i) => JSON.stringify({ task_id: String(i), completion }) + '\n').join(''),
    );
    const evaluate = (samples: string, extra: string[] = []) =>
      run(process.execPath, [RUN_ENTRY, 'scripts/evaluate.ts', '--problems', problems, '--samples', samples, '--k', '1', ...extra], {
        timeout: 120_000,
      });
    const greedy = JSON.parse((await evaluate(saved)).stdout.trim().split('\n').at(-1)!);
    expect(greedy).toMatchObject({ 'pass@1': 1, accuracy: 1, num_failed_execution: 0 });
    const rows = readFileSync(`${saved}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.answer, r.passed])).toEqual([
      ['18', true],
      ['3.0', true],
    ]);

    const raw = path.join(dir, 'raw.jsonl');
    const rawRows = [0, 1].flatMap((task) =>
      SAMPLES.get(GSM8K_ROWS[task]!.question)!.map((value) => ({ task_id: String(task), completion: completion(value) })),
    );
    writeFileSync(raw, rawRows.map((r) => JSON.stringify(r) + '\n').join(''));
    const voted = JSON.parse((await evaluate(raw, ['--form', 'completion'])).stdout.trim().split('\n').at(-1)!);
    expect(voted).toEqual({
      'pass@1': expect.closeTo(2 / 5, 12),
      accuracy: 0.5,
      num_failed_execution: 0,
      greedy: { accuracy: 1, num_failed_execution: 0 },
      majority_voting: { accuracy: 0.5, num_failed_execution: 0 },
    });
  });
});
