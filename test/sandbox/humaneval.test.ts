/** HumanEval's 164 canonical solutions all pass in the sandbox; wrong completions do not. */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { readJsonlText } from '../../infra/sandbox/jsonlFile.js';
import { HumanEvalProblemSchema, type HumanEvalProblem } from '../../domain/execution/humaneval.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { completionProgram } from '../../domain/execution/program.js';

const PROBLEMS = resolve('../shared/reference/humaneval/HumanEval.jsonl.gz');

let executor: PythonExecutor;
let problems: HumanEvalProblem[];

beforeAll(async () => {
  problems = parseJsonl(readJsonlText(PROBLEMS), HumanEvalProblemSchema, PROBLEMS).map(({ row }) => row);
  executor = new PythonExecutor({ limits: { timeoutMs: 10_000 } });
  await executor.start();
});

afterAll(async () => {
  await executor.close();
});

const programOf = (p: HumanEvalProblem, completion: string): string =>
  completionProgram({ prompt: p.prompt, completion, test: p.test, entryPoint: p.entry_point });

describe('HumanEval in the sandbox', () => {
  it('all 164 canonical solutions pass', async () => {
    expect(problems).toHaveLength(164);
    const results = await executor.runMany(problems.map((p) => ({ id: p.task_id, program: programOf(p, p.canonical_solution!) })));
    const notPassed = results
      .filter((r) => r.status !== 'passed')
      .map((r) => `${r.id}: ${r.status} ${r.exception?.type ?? ''} ${r.exception?.message ?? ''}`);
    expect(notPassed).toEqual([]);
  });

  it('a completion that returns nothing fails the tests of every problem', async () => {
    const sample = problems.filter((_, i) => i % 16 === 0);
    const results = await executor.runMany(sample.map((p) => ({ id: p.task_id, program: programOf(p, '    return None\n') })));
    for (const result of results) expect(['failed', 'error'], result.id).toContain(result.status);
    expect(results.some((r) => r.status === 'failed')).toBe(true);
  });
});
