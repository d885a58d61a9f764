/**
 * Statement tasks (MonkeyEval's script completions): a chat model's answer, whether the whole script
 * or just the end of its last line, becomes a program that passes exactly when the answer is right,
 * run in the real sandbox on real pandas.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { prepareProgram } from '../../domain/apidocs/runtime.js';
import { isStatementTask, type SweepProblem } from '../../domain/datasets/problems.js';
import { loadPrivateLibraryDataset } from '../../domain/families/renamed-library/loader.js';
import { normalizeRow, solutionFromGeneration } from '../../domain/families/humanevalStyle.js';
import { chatUserMessage } from '../../methods/direct/request.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const REF = path.join(PROJECT_ROOT, '..', 'shared', 'reference', 'private-library');
const loaded = loadPrivateLibraryDataset({
  rows: gunzipSync(readFileSync(path.join(REF, 'real_monkey_eval_v3.jsonl.gz'))).toString('utf8'),
  keywords: readFileSync(path.join(REF, 'pandas_keywords.jsonl'), 'utf8'),
  mapping: readFileSync(path.join(REF, 'pandas_keyword_mapping.json'), 'utf8'),
  kind: 'monkey',
});
const row = loaded.problems.find((p) => p.task_id === 'PandasEval/10')!;
const problem: SweepProblem = normalizeRow(row as never, 'completion', 'renamed-library');
const executor = new PythonExecutor({ concurrency: 2 });

beforeAll(() => executor.start());
afterAll(() => executor.close());

async function run(answer: string): Promise<string> {
  const prepared = prepareProgram(loaded.library.library.runtime, {
    solution: solutionFromGeneration(problem, 'chat', answer),
    rest: `${problem.test}\ncheck(${problem.entry_point})`,
  });
  if (!prepared.ok) return `refused: ${prepared.error.message}`;
  return (await executor.run({ id: answer.slice(0, 40), program: prepared.program, limits: { timeoutMs: 20_000 } })).status;
}

describe('statement tasks', () => {
  it('are recognised and asked for as a script', () => {
    expect(isStatementTask(problem)).toBe(true);
    expect(chatUserMessage(problem)).toMatch(/^Complete the following Python script/);
    expect(chatUserMessage(problem)).not.toContain('function `None`');
  });

  it('pass with the whole script or the end of the last line, fail when wrong', async () => {
    expect(await run(`${problem.prompt}${row.canonical_solution}\n`)).toBe('passed');
    expect(await run(String(row.canonical_solution).trim())).toBe('passed');
    expect(await run('mk.Collections([1, 2])')).toBe('failed');
    // An original pandas name is refused even in a statement.
    expect(await run('import pandas as pd\nmy_collections = pd.Series([56, 24, 421, 90])')).toMatch(/^refused: .*pandas/);
  });
});
