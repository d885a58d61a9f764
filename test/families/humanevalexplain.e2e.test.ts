/**
 * HumanEvalExplain end to end, on HumanEvalPack's Python rows in their published format
 * (test/support/humanevalpack-rows.ts). scripts/evaluate.ts with bigcode's two task names: describe
 * is refused as bigcode refuses to score it; synthesize reads the describe step's generations with
 * --load_data_path (two descriptions a row: a task per (row, description), bigcode's order) and
 * scores bigcode's saved syntheses (the canonical function passes, the buggy one fails); a file of
 * the wrong count of rows, or none, is refused by name. And one sweep through Temporal against the
 * scripted server (a completions and a chat model), where each sample describes, then writes from
 * its own description: every request is sent once, sample i's synthesis is asked with sample i's
 * description, and each cell's pass@1 is the pairs' (even seeds described "good", odd "bad").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { jsonl, PYTHON_ROWS } from '../support/humanevalpack-rows.js';
import { runTs } from '../support/processes.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { testBucket } from '../support/s3.js';
import { expectCellFilesAsStored, outputJson, scriptedModelsYaml, sweepWithOutputDir } from '../support/sweep-output.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-humanevalexplain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rowsFile = path.join(dir, 'python.jsonl');
writeFileSync(rowsFile, jsonl(PYTHON_ROWS));

describe("evaluate.ts with bigcode's HumanEvalExplain task names", () => {
  const { env } = testConfig();
  const file = (name: string, value: unknown) => {
    const f = path.join(dir, name);
    writeFileSync(f, JSON.stringify(value));
    return f;
  };
  const evaluate = (args: string[]) => runTs('scripts/evaluate.ts', ['--problems', rowsFile, ...args], env);

  it('synthesize scores the functions written from each description; describe and bad files are refused', async () => {
    const descriptions = file('describe.json', [
      ['Says whether two numbers are close.', 'Something else.'],
      ['The decimal part.', 'Another one.'],
    ]);
    // bigcode's saved syntheses: one list per (row, description), the right function then the buggy one.
    const generations = file(
      'synthesize.json',
      PYTHON_ROWS.flatMap((row) => [0, 1].map(() => [row.prompt + row.canonical_solution, row.prompt + row.buggy_solution])),
    );
    const out = path.join(dir, 'evaluate-out');
    const metricsFile = path.join(dir, 'evaluation_results.json');
    const task = 'humanevalexplainsynthesize-python';
    const args = ['--tasks', task, '--load_generations_path', generations, '--k', '1'];
    const [scored, describeRun, wrongCount, missing, none] = await Promise.all([
      evaluate([...args, '--load_data_path', descriptions, '--output-dir', out, '--metric_output_path', metricsFile]),
      evaluate(['--tasks', 'humanevalexplaindescribe-python', '--load_generations_path', descriptions]),
      evaluate([...args, '--load_data_path', file('short.json', [['only one task']])]),
      evaluate([...args, '--load_data_path', path.join(dir, 'nowhere.json')]),
      evaluate(args),
    ]);
    expect(scored.code, scored.output).toBe(0);
    const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; passed: boolean });
    expect(lines.map((l) => l.task_id)).toEqual([
      'Python/0#0',
      'Python/0#0',
      'Python/0#1',
      'Python/0#1',
      'Python/2#0',
      'Python/2#0',
      'Python/2#1',
      'Python/2#1',
    ]);
    expect(lines.map((l) => l.passed)).toEqual([true, false, true, false, true, false, true, false]);
    expect((JSON.parse(readFileSync(metricsFile, 'utf8')) as Record<string, Record<string, number>>)[task]!['pass@1']).toBe(0.5);

    expect(describeRun.code).toBe(2);
    expect(describeRun.output).toContain('humanevalexplaindescribe-python has no score');
    expect(wrongCount.code).toBe(2);
    expect(wrongCount.output).toMatch(/short\.json: 1 lists of descriptions, but the problems have 2 tasks/);
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/--load_data_path .*nowhere\.json: no such file/);
    expect(none.code).toBe(2);
    expect(none.output).toContain("give the describe step's generations with --load_data_path");
  }, 300_000);
});

describe('a sweep over HumanEvalExplain against a scripted server', () => {
  const { config, env } = testConfig();
  const bucket = testBucket(config);
  let server: ScriptedLlmServer;
  const DESCRIBE = 'Provide a concise natural language description';
  /** The synthesize prompt (instruct: the description, then the instruction) from a good description, and nothing else before it. */
  const GOOD = /(^|\n)It is the good one\.\nWrite functional code in Python/;
  const rowOf = (text: string) => PYTHON_ROWS.find((row) => text.includes(`def ${row.entry_point}(`))!;

  beforeAll(async () => {
    server = await startScriptedLlmServer((req) => {
      const text =
        req.api === 'completions'
          ? String(req.body.prompt)
          : (req.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
      const seed = Number(req.body.seed);
      // The chat model reasons first: its reasoning is no part of the description.
      const description = `${req.api === 'chat' ? '<think>Which one?</think>' : ''}  It is the ${seed % 2 === 0 ? 'good' : 'bad'} one.\n`;
      if (text.includes(DESCRIBE)) return { content: description };
      const row = rowOf(text);
      const body = GOOD.test(text) ? row.canonical_solution : row.buggy_solution;
      return { content: req.api === 'completions' ? `\n${body}` : `\`\`\`python\n${row.declaration}${body}\`\`\`\n` };
    });
  });
  afterAll(async () => {
    await server.close();
    bucket.s3.destroy();
  });

  it('each sample describes, then writes from its own description; every request once; pass@1 of the pairs', async () => {
    const id = `humanevalexplain-${uniqueSuffix()}`;
    const { outDir, results } = await sweepWithOutputDir({
      dir,
      id,
      env,
      bucket,
      yaml: `id: ${id}
datasets:
  - name: explain-python
    family: humanevalexplain
    path: ${rowsFile}
    language: python
${scriptedModelsYaml(server.url)}methods: [direct]
temperatures: [0.8]
n_samples: 2
k: [1]
timeout_s: 5
`,
    });
    const requests = server.requests();
    const describes = requests.filter((r) => JSON.stringify(r.body).includes(DESCRIBE));
    const syntheses = requests.filter((r) => !JSON.stringify(r.body).includes(DESCRIBE));
    // 2 tasks x 2 samples x 2 models, each step once: nothing asked twice.
    expect(describes).toHaveLength(8);
    expect(syntheses).toHaveLength(8);
    expect([...server.countByKey().values()].every((n) => n === 1)).toBe(true);
    // Sample i's synthesis is asked with sample i's description (its seed's).
    for (const r of syntheses) {
      const text = r.api === 'completions' ? String(r.body.prompt) : JSON.stringify(r.body.messages);
      expect(text.includes('It is the good one.')).toBe(Number(r.body.seed) % 2 === 0);
    }
    expect(results.cells).toHaveLength(2);
    for (const cell of results.cells) {
      const cellId = String(cell.cell.cell);
      await expectCellFilesAsStored(bucket, id, outDir, cellId);
      expect(cell.passAtK['pass@1'], cellId).toBe(0.5);
      expect((outputJson(outDir, cellId, 'evaluation_results.json') as Record<string, unknown>)['explain-python']).toEqual(cell.passAtK);
    }
  }, 600_000);
});
