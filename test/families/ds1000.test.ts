/**
 * DS-1000 rows: loading its release format (bad rows named by file, line and field), its official
 * postprocessing and program, its tasks run in the real sandbox (numpy and pandas, which the
 * sandbox has), and the refusal of tasks whose library the sandbox's Python lacks.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ds1000Family, Ds1000EntrySchema, ds1000Postprocess, type Ds1000Entry } from '../../domain/families/ds1000/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { DS1000_SCIPY_TASK, DS1000_TASKS, ds1000Jsonl } from '../support/ds1000-rows.js';

const entry = (extra: Partial<Ds1000Entry> = {}): Ds1000Entry =>
  Ds1000EntrySchema.parse({ name: 'ds1000', family: 'ds1000', path: 'ds1000.jsonl', ...extra });
const load = (text: string, extra: Partial<Ds1000Entry> = {}) =>
  ds1000Family.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'ds1000.jsonl' } }).problems;

describe('DS-1000 rows', () => {
  it('loads the release format: ids from metadata, the prompt as is, the official program', () => {
    const problems = load(ds1000Jsonl([...DS1000_TASKS, DS1000_SCIPY_TASK]));
    expect(problems.map((p) => [p.task_id, p.entry_point])).toEqual([
      ['0', 'Numpy'],
      ['1', 'Pandas'],
      ['2', 'Scipy'],
    ]);
    expect(problems[0]!.prompt).toBe(DS1000_TASKS[0]!.prompt);
    expect(load(ds1000Jsonl([...DS1000_TASKS, DS1000_SCIPY_TASK]), { libraries: ['Scipy'] }).map((p) => p.task_id)).toEqual(['2']);
    const context = JSON.parse(DS1000_TASKS[0]!.line).code_context as string;
    const program = LANGUAGES.python.assemble({
      solution: ds1000Family.embedSolution(problems[0]!, 'result = 1\n'),
      tests: ds1000Family.tests(problems[0]!, null),
    });
    expect(program.startsWith(`${context}\ncode = `)).toBe(true);
    expect(program.endsWith('test_execution(code)\ntest_string(code)\n')).toBe(true);
    expect(ds1000Family.tests(problems[1]!, null)).toBe('test_execution(code)\n');
  });

  it('the official postprocessing: cut at </code>, ``` and END SOLUTION; <code> and ```python dropped', () => {
    expect(ds1000Postprocess('result = 1\n</code>\nEND SOLUTION\n')).toBe('result = 1\n');
    expect(ds1000Postprocess('```python\nresult = 2\n```\nExplanation')).toBe('\nresult = 2\n');
    expect(ds1000Postprocess('<code>result = 3\nEND SOLUTION')).toBe('result = 3');
    expect(ds1000Family.stopWords(entry())).toEqual(['</code>', '# SOLUTION END']);
  });

  it('a bad row is named by file, line and field', () => {
    const good = DS1000_TASKS[0]!.line;
    const bad = (change: (r: Record<string, any>) => void) => {
      const r = JSON.parse(DS1000_TASKS[1]!.line);
      change(r);
      return JSON.stringify(r);
    };
    const cases: Array<[string, string | RegExp]> = [
      [
        bad((r) => (r.code_context = 'def f(): pass')),
        "ds1000.jsonl:2: code_context: must define test_execution(solution), as DS-1000's harness does",
      ],
      [bad((r) => (r.metadata.library = 'Polars')), /^ds1000\.jsonl:2: metadata\.library: /],
      [bad((r) => delete r.prompt), /^ds1000\.jsonl:2: prompt: /],
      [bad((r) => (r.metadata.problem_id = 0)), 'ds1000.jsonl:2: duplicate task_id 0 (first on line 1)'],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`)).toThrow(message);
    expect(() => load(`${good}\n`, { libraries: ['Tensorflow'] })).toThrow('ds1000.jsonl: no task of Tensorflow');
  });

  describe("the sandbox's Python must have each task's library", () => {
    let bare: string;
    beforeAll(() => {
      // A Python with nothing installed stands for a sandbox without DS-1000's libraries.
      bare = mkdtempSync(join(tmpdir(), 'explora-bare-venv-'));
      execFileSync(resolvePythonExecutable(), ['-m', 'venv', '--without-pip', bare]);
    });
    afterAll(() => rmSync(bare, { recursive: true, force: true }));

    it('names the dataset, the tasks, the module and the install command', () => {
      const problems = load(ds1000Jsonl([...DS1000_TASKS, DS1000_SCIPY_TASK]));
      const python = join(bare, 'bin', 'python');
      const message = requirementsProblem([{ name: 'ds', family: 'ds1000', problems }], (p) => ds1000Family.requirements(p), python);
      expect(message).toContain(
        `datasets[ds] (family ds1000): 1 DS-1000's Scipy task(s) need the Python module scipy, which the sandbox's Python (${python}) lacks; install it with: bash scripts/install-ds1000.sh`,
      );
      expect(message).toContain('need the Python module numpy');
      expect(
        requirementsProblem([{ name: 'he', family: 'humaneval', problems: [] }], (p) => ds1000Family.requirements(p), python),
      ).toBeNull();
    });
  });
});

describe('DS-1000 tasks in the sandbox (numpy, pandas)', () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 60_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  it('references pass; each sample passes or fails as its test_execution (and test_string) say', async () => {
    const problems = load(ds1000Jsonl(DS1000_TASKS));
    const missing = requirementsProblem([{ name: 'ds', family: 'ds1000', problems }], (p) => ds1000Family.requirements(p));
    expect(missing, 'the sandbox venv (install-sandbox-python.sh) has numpy and pandas').toBeNull();
    const runs = DS1000_TASKS.flatMap((t, i) => [
      { what: `${t.problem_id} reference`, solution: ds1000Family.referenceSolution(problems[i]!)!, passed: true, problem: problems[i]! },
      ...t.samples.map((s) => ({
        what: `${t.problem_id} ${s.what}`,
        solution: ds1000Family.solution(problems[i]!, 'completions', s.answer),
        passed: s.passed,
        problem: problems[i]!,
      })),
    ]);
    const results = await executor.runMany(
      runs.map((r) => ({
        id: r.what,
        program: LANGUAGES.python.assemble({
          solution: ds1000Family.embedSolution(r.problem, r.solution),
          tests: ds1000Family.tests(r.problem, null),
        }),
      })),
    );
    expect(results.map((r, i) => [runs[i]!.what, ds1000Family.score(runs[i]!.problem, r).passed])).toEqual(
      runs.map((r) => [r.what, r.passed]),
    );
  });
});
