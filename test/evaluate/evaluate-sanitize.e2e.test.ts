/**
 * scripts/evaluate.ts --sanitize evalplus, run as a subprocess: chat answers saved as solutions
 * (prose, a helper, an unused function, a __main__ block that would fail) and a completion whose
 * trailing statement would fail score 0 as they stand and 1 once sanitized, as evalplus's
 * sanitize command followed by its evaluator would score them; a bad sanitizer name is a usage error.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ENTRY } from '../support/processes.js';

const run = promisify(execFile);
const SCRIPT = resolve('scripts/evaluate.ts');
const F = '```';

const PROBLEM = {
  task_id: 'test/0',
  prompt: 'def area(r):\n    """Three times r squared."""\n',
  canonical_solution: '    return 3 * r * r\n',
  test: 'def check(candidate):\n    assert candidate(1) == 3\n    assert candidate(2) == 12\n',
  entry_point: 'area',
};

const CHAT_ANSWER =
  `Here is the solution.\n\n${F}python\nimport math\n\nPI = 3\n\ndef unused():\n    return undefined_name\n\n` +
  `def area(r):\n    return PI * r * r\n\nif __name__ == "__main__":\n    assert area(1) == 4\n${F}\n\nIt multiplies by PI.`;
const COMPLETION = '    return 3 * r * r\n\nprint(undefined_name)\n';

let dir: string;
let problems: string;
let samples: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'explora-evaluate-sanitize-'));
  problems = join(dir, 'problems.jsonl');
  writeFileSync(problems, `${JSON.stringify(PROBLEM)}\n`);
  samples = join(dir, 'samples.jsonl');
  writeFileSync(
    samples,
    `${JSON.stringify({ task_id: 'test/0', solution: CHAT_ANSWER })}\n${JSON.stringify({ task_id: 'test/0', completion: COMPLETION })}\n`,
  );
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

function passedOf(resultsFile: string): boolean[] {
  return readFileSync(resultsFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { passed: boolean }).passed);
}

describe('evaluate --sanitize', () => {
  it('scores the answers as they stand without it, and as evalplus sanitizes them with it', async () => {
    const plain = await evaluate(['--problems', problems, '--samples', samples, '--k', '1', '--out', join(dir, 'plain.jsonl')]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(passedOf(join(dir, 'plain.jsonl'))).toEqual([false, false]);

    const out = join(dir, 'sanitized.jsonl');
    const sanitized = await evaluate(['--problems', problems, '--samples', samples, '--k', '1', '--sanitize', 'evalplus', '--out', out]);
    expect(sanitized.code, sanitized.stderr).toBe(0);
    expect(JSON.parse(sanitized.stdout.trim().split('\n').at(-1)!)).toEqual({ 'pass@1': 1 });
    expect(passedOf(out)).toEqual([true, true]);
  }, 240_000);

  it('an unknown sanitizer is a usage error naming the flag', async () => {
    const res = await evaluate(['--problems', problems, '--samples', samples, '--sanitize', 'evalplusplus']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--sanitize');
    expect(res.stderr).toContain('evalplus');
  });
});
