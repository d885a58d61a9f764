/**
 * scripts/evaluate.ts called as the peers' evaluation commands are: bigcode-evaluation-harness's
 * (`--tasks`, `--load_generations_path`, `--metric_output_path`, `--n_samples`, `--limit`, and its
 * evaluation_results.json), evalplus's (its eval_results.json beside the samples), and MultiPL-E's
 * (a completions directory alone: the problems from its files, a `.results.json.gz` per problem).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { HUMANEVAL_PLUS_TASKS, jsonl as evalplusJsonl } from '../support/evalplus-rows.js';
import { addRow, COMPLETIONS } from '../support/multiple-rows.js';
import { BIGCODE_SAVED_GENERATIONS, GSM8K_ROWS, palJsonl } from '../support/pal-rows.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'explora-peer-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function evaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    // bin/evaluate.mjs runs from any directory: the peers' files are written relative to it, as theirs are.
    const { stdout, stderr } = await run(process.execPath, [path.resolve('bin/evaluate.mjs'), ...args], {
      cwd: dir,
      timeout: 180_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

describe("bigcode-evaluation-harness's command", () => {
  it('--tasks humaneval on saved generations: --limit and --n_samples cut them; evaluation_results.json as bigcode writes it', async () => {
    const humanEval = gunzipSync(readFileSync(path.resolve('../shared/reference/humaneval/HumanEval.jsonl.gz')))
      .toString('utf8')
      .split('\n')
      .slice(0, 3)
      .map((l) => JSON.parse(l) as { prompt: string; canonical_solution: string });
    // Three tasks, each its own solution then a wrong one; only the first two tasks' first samples count.
    const generations = humanEval.map((t) => [t.prompt + t.canonical_solution, t.prompt + '    return None\n']);
    writeFileSync(path.join(dir, 'generations.json'), JSON.stringify(generations));
    const r = await evaluate([
      '--tasks',
      'humaneval',
      '--allow_code_execution',
      '--load_generations_path',
      'generations.json',
      '--metric_output_path',
      'metrics.json',
      '--n_samples',
      '1',
      '--limit',
      '2',
      '--k',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastLine(r.stdout)).toEqual({ 'pass@1': 1 });
    const text = readFileSync(path.join(dir, 'metrics.json'), 'utf8');
    // json.dumps(results, indent=2): no final newline.
    expect(text.endsWith('}')).toBe(true);
    const metrics = JSON.parse(text) as Record<string, Record<string, unknown>>;
    expect(Object.keys(metrics)).toEqual(['humaneval', 'config']);
    expect(metrics.humaneval).toEqual({ 'pass@1': 1 });
    expect(metrics.config).toMatchObject({ tasks: 'humaneval', n_samples: 1, limit: 2, metric_output_path: 'metrics.json' });
    expect(text).toBe(JSON.stringify(metrics, null, 2));
    const rows = readFileSync(path.join(dir, 'generations.json_results.jsonl'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(2);
  });

  it('pal-gsm8k-greedy and -majority_voting lead with their own evaluation type; an unknown task is named', async () => {
    writeFileSync(path.join(dir, 'gsm8k.jsonl'), palJsonl(GSM8K_ROWS.slice(0, 2)));
    // Task 0: its right program first, then two votes for 5; task 1: right alone.
    const returning = (value: number) => `def solution():\n    return ${value}\nprint(solution())`;
    const generations = [
      [BIGCODE_SAVED_GENERATIONS[0]!, returning(5), returning(5)],
      [BIGCODE_SAVED_GENERATIONS[1]!, BIGCODE_SAVED_GENERATIONS[1]!, returning(7)],
    ];
    writeFileSync(path.join(dir, 'pal.json'), JSON.stringify(generations));
    const figures = async (task: string) => {
      const r = await evaluate(['--tasks', task, '--problems', 'gsm8k.jsonl', '--load_generations_path', 'pal.json', '--k', '1']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(readFileSync(path.join(dir, 'evaluation_results.json'), 'utf8')) as Record<string, Record<string, unknown>>)[
        task
      ]!;
    };
    expect(await figures('pal-gsm8k-greedy')).toMatchObject({ accuracy: 1, num_failed_execution: 0 });
    expect(await figures('pal-gsm8k-majority_voting')).toMatchObject({ accuracy: 0.5, majority_voting: { accuracy: 0.5 } });
    const unknown = await evaluate(['--tasks', 'humaneval-x', '--problems', 'gsm8k.jsonl', '--samples', 'pal.json']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--tasks humaneval-x: not a bigcode task explora reads');
    const noRows = await evaluate(['--tasks', 'mbpp', '--load_generations_path', 'pal.json']);
    expect(noRows.code).toBe(2);
    expect(noRows.stderr).toContain('--tasks mbpp: bigcode downloads its dataset; give its rows with --problems FILE');
  });
});

describe("evalplus's and MultiPL-E's commands", () => {
  it("evalplus samples: its eval_results.json beside them, with each sample's statuses and pass@k", async () => {
    writeFileSync(path.join(dir, 'plus.jsonl'), evalplusJsonl(HUMANEVAL_PLUS_TASKS.slice(0, 1)));
    const task = HUMANEVAL_PLUS_TASKS[0]!;
    writeFileSync(
      path.join(dir, 'samples.jsonl'),
      JSON.stringify({ task_id: task.task_id, solution: task.prompt + task.samples.find((x) => x.base && x.plus)!.completion }) + '\n',
    );
    const r = await evaluate(['--problems', 'plus.jsonl', '--samples', 'samples.jsonl', '--k', '1']);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(path.join(dir, 'samples.eval_results.json'), 'utf8')) as {
      eval: Record<string, Array<{ base_status: string; plus_status: string }>>;
      pass_at_k: Record<string, Record<string, number>>;
    };
    expect(results.eval[task.task_id]!.map((s) => [s.base_status, s.plus_status])).toEqual([['pass', 'pass']]);
    expect(results.pass_at_k).toEqual({ base: { 'pass@1': 1 }, plus: { 'pass@1': 1 } });
  });

  it('a MultiPL-E completions directory alone: its problems from its files, a .results.json.gz per problem', async () => {
    const completions = path.join(dir, 'humaneval-js-completions');
    mkdirSync(completions);
    for (const n of [1, 2]) {
      const row = addRow('js', n);
      const file = { ...row, temperature: 0.2, completions: [COMPLETIONS.js.right, COMPLETIONS.js.wrong] };
      writeFileSync(path.join(completions, `${row.name}.json.gz`), gzipSync(JSON.stringify(file)));
    }
    const r = await evaluate(['--samples', completions, '--tasks', 'multiple-js', '--k', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('--problems not given: the problems of the completion files');
    expect(lastLine(r.stdout)).toEqual({ 'pass@1': 0.5 });
    const written = readdirSync(completions)
      .filter((f) => f.endsWith('.results.json.gz'))
      .sort();
    expect(written).toEqual(['HumanEval_1_add.results.json.gz', 'HumanEval_2_add.results.json.gz']);
    const results = JSON.parse(gunzipSync(readFileSync(path.join(completions, written[0]!))).toString('utf8')) as {
      name: string;
      language: string;
      completions?: unknown;
      results: Array<{ status: string; program: string; exit_code: number | null }>;
    };
    expect(results).toMatchObject({ name: 'HumanEval_1_add', language: 'js', temperature: 0.2 });
    expect(results.completions).toBeUndefined();
    expect(results.results.map((x) => x.status)).toEqual(['OK', 'Exception']);
    expect(results.results[0]!.exit_code).toBe(0);
    expect(results.results[0]!.program).toContain(addRow('js', 1).tests.trim().split('\n')[0]!);
  });
});
