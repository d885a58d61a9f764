/**
 * APPS rows: loading codeparrot/apps's format, bigcode's prompt, the difficulty split, and bad rows
 * named by file, line and field; then the two ways a standard-input program runs, in the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsFamily, AppsEntrySchema, type AppsEntry } from '../../domain/families/apps/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { APPS_TASKS, appsJsonl } from '../support/apps-rows.js';

const entry = (extra: Partial<AppsEntry> = {}): AppsEntry =>
  AppsEntrySchema.parse({ name: 'apps', family: 'apps', path: 'test.jsonl', ...extra });
const load = (text: string, extra: Partial<AppsEntry> = {}) =>
  appsFamily.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'test.jsonl' } });

describe('APPS rows', () => {
  it("loads every task with bigcode's prompt: question, starter code, the call format, ANSWER", () => {
    const { problems } = load(appsJsonl(APPS_TASKS));
    expect(problems.map((p) => p.task_id)).toEqual(['4001', '4002', '4003', '4004']);
    expect(problems[0]!.prompt).toBe(`\nQUESTION:\n${JSON.parse(APPS_TASKS[0]!.line).question}\nUse Standard Input format\nANSWER:\n`);
    expect(problems[2]!.prompt).toMatch(
      /Return the sum of the two largest numbers of the list\.\nclass Solution:\n {4}def topTwo\(self, nums: List\[int\]\) -> int:\n {8}\nUse Call-Based format\nANSWER:\n$/,
    );
    expect(problems[2]!.entry_point).toBe('topTwo');
    expect(problems[0]!.canonical_solution).toContain('print(sum(xs))');
    expect(appsFamily.stopWords(entry())).toEqual(['\nQUESTION', '\n---', '\nANSWER']);
    // A completion that repeats the prompt keeps what follows ANSWER, as bigcode's postprocessing.
    expect(appsFamily.solution(problems[0]!, 'completions', 'QUESTION:\nx\nANSWER:\nprint(1)\n')).toBe('\nprint(1)\n');
  });

  it('difficulty: only the levels named', () => {
    expect(load(appsJsonl(APPS_TASKS), { difficulty: ['interview'] }).problems.map((p) => p.task_id)).toEqual(['4002', '4003']);
    expect(() => load(appsJsonl(APPS_TASKS.slice(0, 1)), { difficulty: ['competition'] })).toThrow(
      'test.jsonl: no task of difficulty competition',
    );
    expect(AppsEntrySchema.safeParse({ name: 'a', family: 'apps', path: 'a.jsonl', difficulty: ['hard'] }).success).toBe(false);
  });

  it('a row without test cases is left out with a note; a bad row is named by file, line and field', () => {
    const good = APPS_TASKS[0]!.line;
    const untested = JSON.stringify({ ...JSON.parse(good), problem_id: 9, input_output: '' });
    const loaded = load(`${good}\n${untested}\n`);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.notes).toEqual(['test.jsonl: 1 rows without test cases (empty input_output) left out']);
    const bad = (fields: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(good), problem_id: 10, ...fields });
    const cases: Array<[string, string | RegExp]> = [
      [bad({ input_output: '{"inputs": ["1"]' }), /^test\.jsonl:2: input_output: not valid JSON/],
      [bad({ input_output: '{"inputs": ["1\\n"], "outputs": []}' }), 'test.jsonl:2: input_output: 1 inputs but 0 outputs'],
      [bad({ input_output: '{"inputs": [], "outputs": []}' }), 'test.jsonl:2: input_output.inputs: must have at least one test case'],
      [bad({ difficulty: 'easy' }), /^test\.jsonl:2: difficulty: /],
      [bad({ question: undefined }), /^test\.jsonl:2: question: /],
      [bad({ solutions: '"print(1)"' }), 'test.jsonl:2: solutions: must be JSON text of a list of programs'],
      [bad({ problem_id: 4001 }), 'test.jsonl:2: duplicate task_id 4001 (first on line 1)'],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`), second).toThrow(message);
  });
});

describe("a standard-input program, as APPS's checker runs it (testing-util) and as written", () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 20_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  /** Test cases passed by `code` on task 4001 (n, then n integers: their sum, then their maximum; 3 cases). */
  async function passed(code: string, stdinForm: AppsEntry['stdin_form']): Promise<number> {
    const [problem] = load(APPS_TASKS[0]!.line, { stdin_form: stdinForm }).problems;
    const program = LANGUAGES.python.assemble({
      solution: appsFamily.embedSolution(problem!, code),
      tests: appsFamily.tests(problem!, null),
    });
    const result = await executor.run({ id: 'apps', program, limits: appsFamily.limits(problem!, null, 3000) });
    const score = appsFamily.score(problem!, result);
    if (score.kind !== 'test_cases') throw new Error('APPS scores are test cases');
    return (score.testCases as { passed: number }).passed;
  }

  it('testing-util is the default', () => {
    expect(entry().stdin_form).toBe('testing-util');
  });

  it.each([
    ['input()', 'n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))\n', 3, 3],
    [
      'sys.stdin.read()',
      'import sys\ndata = sys.stdin.read().split()\nxs = list(map(int, data[1:]))\nprint(sum(xs))\nprint(max(xs))\n',
      3,
      3,
    ],
    [
      'input = sys.stdin.readline',
      'import sys\ninput = sys.stdin.readline\nn = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))\n',
      3,
      3,
    ],
    // The prelude's `from builtins import *` binds the module's `open` before the checker patches
    // builtins.open: open(0) reads the checker's own standard input, not the test's.
    ['open(0).read()', 'data = open(0).read().split()\nxs = list(map(int, data[1:]))\nprint(sum(xs))\nprint(max(xs))\n', 0, 3],
    // An import line stays at the module's top: `stdin` is the standard input of the module's run,
    // whose readline the checker patches to answer the input's lines (without their newline).
    [
      'from sys import stdin; stdin.readline()',
      'from sys import stdin\nn = int(stdin.readline())\nxs = list(map(int, stdin.readline().split()))\nprint(sum(xs))\nprint(max(xs))\n',
      3,
      3,
    ],
    // Wrapped into a function of a module not named __main__, the guarded call never runs.
    [
      'a main guard',
      'import sys\ndef main():\n    data = sys.stdin.read().split()\n    print(sum(map(int, data[1:])))\n    print(max(map(int, data[1:])))\nif __name__ == "__main__":\n    main()\n',
      0,
      3,
    ],
    // Top-level names become locals of code(): `global` finds no module-level one.
    [
      'global of a top-level name',
      'total = 0\ndef add(x):\n    global total\n    total += x\nn = int(input())\nxs = list(map(int, input().split()))\nfor x in xs:\n    add(x)\nprint(total)\nprint(max(xs))\n',
      0,
      3,
    ],
    [
      'sys.exit after printing',
      'import sys\nn = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))\nsys.exit(0)\n',
      3,
      3,
    ],
  ] as const)('%s (test cases passed: testing-util, as-written)', async (_what, code, apps, asWritten) => {
    expect(await passed(code, 'testing-util')).toBe(apps);
    expect(await passed(code, 'as-written')).toBe(asWritten);
  });
});
