/**
 * bigcode's instruct_wizard_humaneval end to end: scripts/evaluate.ts with the task's name on
 * HumanEval's rows as published and a WizardCoder-style model's raw completions: every sample's
 * program and outcome in the sandbox (passes, a wrong answer, a crash, a timeout, an empty answer,
 * another function's name) and pass@1 and pass@2 equal bigcode's check_correctness and
 * compute_code_eval on the same answers (wizard_humaneval_reference.py). Its sweep through Temporal
 * shares one with instruct-humaneval's (instruct-humaneval.e2e.test.ts).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { RUN_ENTRY } from '../support/processes.js';
import { jsonl } from '../support/repair-rows.js';
import { WIZARD_GENERATIONS, WIZARD_ROWS } from '../support/wizard-humaneval-rows.js';

const run = promisify(execFile);
const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'wizard_humaneval_reference.py');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-wizard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

it("evaluate.ts --tasks instruct_wizard_humaneval: every sample's program and outcome, pass@1 and pass@2 are bigcode's", async () => {
  // bigcode's clean_comp raises on a fence never closed (instruct-wizard-humaneval.test.ts): here it is closed.
  const generations = WIZARD_GENERATIONS.map((gens) => gens.map((g) => (/```python(?![^]*```)/.test(g) ? `${g}\n\`\`\`` : g)));
  const reference = await new Promise<{ solutions: string[][]; passed: boolean[][]; metrics: Record<string, number> }>(
    (resolve, reject) => {
      const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 1 << 26, timeout: 300_000 }, (error, stdout) =>
        error ? reject(new Error(`wizard_humaneval_reference.py: ${error.message}`)) : resolve(JSON.parse(stdout) as never),
      );
      child.stdin!.end(JSON.stringify({ rows: WIZARD_ROWS, generations, execute: true }));
    },
  );
  const rowsFile = path.join(dir, 'HumanEval.jsonl');
  const samplesFile = path.join(dir, 'samples.jsonl');
  const out = path.join(dir, 'out');
  writeFileSync(rowsFile, jsonl(WIZARD_ROWS));
  writeFileSync(
    samplesFile,
    jsonl(WIZARD_ROWS.flatMap((r, t) => generations[t]!.map((completion) => ({ task_id: r.task_id, completion })))),
  );
  // The samples are raw completions here: --form completion says so (bigcode's saved generations are read as they are).
  const completions = await run(
    process.execPath,
    [
      RUN_ENTRY,
      'scripts/evaluate.ts',
      '--problems',
      rowsFile,
      '--samples',
      samplesFile,
      '--tasks',
      'instruct_wizard_humaneval',
      '--form',
      'completion',
      '--k',
      '1,2',
      '--timeout',
      '3',
      '--output-dir',
      out,
      // bigcode's metric file, which --tasks writes (by default in the working directory).
      '--metric_output_path',
      path.join(dir, 'evaluation_results.json'),
    ],
    { timeout: 300_000 },
  );
  const lines = readFileSync(path.join(out, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { completion: string; passed: boolean; result: string });
  expect(lines.map((l) => l.completion)).toEqual(reference.solutions.flat());
  expect(lines.map((l) => l.passed)).toEqual(reference.passed.flat());
  expect(lines.map((l) => l.result)).toEqual(['passed', 'failed', 'passed', 'passed', 'error', 'error', 'passed', 'timeout', 'error']);
  const metrics = JSON.parse(completions.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  expect(metrics['pass@1']).toBeCloseTo(reference.metrics['pass@1']!, 12);
  expect(metrics['pass@2']).toBeCloseTo(reference.metrics['pass@2']!, 12);
}, 300_000);
