/**
 * LiveCodeBench (code generation): rows in code_generation_lite's published format load to problems
 * whose tests (public then private, the private ones decoded from base64 of zlib of a pickle), method
 * names and prompts are what LiveCodeBench's own code makes of them (test/families/
 * livecodebench_reference.py, run in the test venv); the contamination window keeps what its
 * --start_date / --end_date keep; and samples graded in the sandbox get LiveCodeBench's result
 * lists (True, -2 wrong answer, -3 time limit, -4 runtime error) on its edge cases: trailing
 * whitespace, its Decimal rule for numbers, a wrong line count, crashes, timeouts, empty answers,
 * tuples and nested lists of functional tasks. Bad rows are named by file, line and field.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { constants, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LCB_RESULT_MARKER } from '../../domain/families/livecodebench/harness.js';
import { zlibDecompress } from '../../domain/families/livecodebench/inflate.js';
import {
  liveCodeBenchFamily,
  LiveCodeBenchEntrySchema,
  type LiveCodeBenchEntry,
  type LiveCodeBenchProblem,
} from '../../domain/families/livecodebench/index.js';
import { privateTestsJson } from '../../domain/families/livecodebench/privateTests.js';
import { LCB_SYSTEM_MESSAGE } from '../../domain/families/livecodebench/prompt.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { parseSweepConfig, SweepConfigError } from '../../domain/sweep/config.js';
import { answerCode } from '../../domain/sweep/textScores.js';
import { chatUserMessage } from '../../methods/direct/request.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { LCB_TASKS, lcbJsonl } from '../support/livecodebench-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'livecodebench_reference.py');
const TIMEOUT = 1;

const entry = (extra: Partial<LiveCodeBenchEntry> = {}): LiveCodeBenchEntry =>
  LiveCodeBenchEntrySchema.parse({ name: 'lcb', family: 'livecodebench', path: 'test5.jsonl', timeout: TIMEOUT, ...extra });
const load = (text: string, extra: Partial<LiveCodeBenchEntry> = {}) =>
  liveCodeBenchFamily.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'test5.jsonl' } });

interface Reference {
  problems: Array<{
    question_id: string;
    tests: Array<{ input: string; output: string }>;
    fn_name: string | null;
    system: string;
    user: string;
  }>;
  graded: Record<string, Array<Array<boolean | number>>>;
  metrics: Record<string, number>;
}

function reference(input: {
  rows: string[];
  start_date?: string;
  end_date?: string;
  samples?: Record<string, string[]>;
  k?: number[];
}): Reference {
  return JSON.parse(
    execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ timeout: TIMEOUT, ...input }), maxBuffer: 1 << 26 }).toString(),
  ) as Reference;
}

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

describe('code_generation_lite rows', () => {
  it("load to LiveCodeBench's tests, method names and prompts", () => {
    const rows = LCB_TASKS.map((t) => t.line);
    const ours = load(lcbJsonl(LCB_TASKS)).problems as LiveCodeBenchProblem[];
    const theirs = reference({ rows }).problems;
    expect(ours.map((p) => p.task_id)).toEqual(theirs.map((p) => p.question_id));
    expect(ours.map((p) => p.oracle.tests)).toEqual(theirs.map((p) => p.tests));
    expect(ours.map((p) => p.oracle.fn_name)).toEqual(theirs.map((p) => p.fn_name));
    expect(ours.map((p) => p.entry_point)).toEqual(theirs.map((p) => p.fn_name ?? '__main__'));
    // A completion model gets LiveCodeBench's user message byte for byte; its system message is the family's constant.
    expect(ours.map((p) => liveCodeBenchFamily.completionPrompt(p))).toEqual(theirs.map((p) => p.user));
    expect(theirs.every((p) => p.system === LCB_SYSTEM_MESSAGE)).toBe(true);
    // A chat model's message (direct) holds the same question, format line and fenced code.
    for (const [i, p] of ours.entries()) {
      const user = chatUserMessage(p);
      expect(user.startsWith(theirs[i]!.user.split('\n```python\n')[0]!)).toBe(true);
      expect(user).toContain(`\`\`\`python\n${theirs[i]!.user.split('\n```python\n')[1]!.split('\n```\n')[0]}\n\`\`\``);
    }
  });

  it.each([
    ['2024-01-01', undefined],
    [undefined, '2024-05-11'],
    ['2024-04-20', '2024-07-06'],
    ['2024-07-06', undefined],
  ])('the window release_after %s, release_before %s keeps what --start_date/--end_date keep', (after, before) => {
    const ours = load(lcbJsonl(LCB_TASKS), { ...(after ? { release_after: after } : {}), ...(before ? { release_before: before } : {}) });
    const theirs = reference({
      rows: LCB_TASKS.map((t) => t.line),
      ...(after ? { start_date: after } : {}),
      ...(before ? { end_date: before } : {}),
    });
    expect(ours.problems.map((p) => p.task_id)).toEqual(theirs.problems.map((p) => p.question_id));
    expect(ours.notes[0]).toMatch(new RegExp(`^test5\\.jsonl: ${theirs.problems.length} problems released`));
  });

  it('an empty window, a bad entry and bad rows are refused naming the file, line and field', () => {
    expect(() => load(lcbJsonl(LCB_TASKS), { release_after: '2030-01-01' })).toThrow(
      'test5.jsonl: no problem released from 2030-01-01 (5 rows)',
    );
    expect(() => load(lcbJsonl(LCB_TASKS), { release_after: '2024-06-01', release_before: '2024-01-01' })).toThrow(
      'release_after 2024-06-01 is after release_before 2024-01-01',
    );
    expect(
      LiveCodeBenchEntrySchema.safeParse({ name: 'l', family: 'livecodebench', path: 'a.jsonl', release_after: '2024-13-01' }).success,
    ).toBe(false);
    expect(
      LiveCodeBenchEntrySchema.safeParse({ name: 'l', family: 'livecodebench', path: 'a.jsonl', release_after: 'May 2024' }).success,
    ).toBe(false);
    const good = LCB_TASKS[0]!.line;
    const bad = (fields: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(good), question_id: 'x9', ...fields });
    const cases: Array<[string, string | RegExp]> = [
      [
        bad({ private_test_cases: 'not base64!' }),
        /^test5\.jsonl:2: private_test_cases: neither JSON nor base64 of zlib data \(not base64\)/,
      ],
      // base64 of zlib of b"hello": not a pickle.
      [bad({ private_test_cases: 'eJzLSM3JyQcABiwCFQ==' }), /^test5\.jsonl:2: private_test_cases: pickle: opcode 0x68 at byte 0/],
      [bad({ public_test_cases: '[{"input": "1"}' }), /^test5\.jsonl:2: public_test_cases: not valid JSON/],
      [
        bad({ public_test_cases: '[{"input": "1", "output": 2, "testtype": "stdin"}]' }),
        /^test5\.jsonl:2: public_test_cases\[0\]\.output: /,
      ],
      [bad({ contest_date: '2024-05-01T00:00:00+00:00' }), /^test5\.jsonl:2: contest_date: .* without a time zone/],
      [bad({ platform: 'topcoder' }), /^test5\.jsonl:2: platform: /],
      [bad({ metadata: '{"func_name": "f"}' }), 'test5.jsonl:2: metadata names func_name f but 3 tests are stdin tests'],
      [bad({ question_id: 'abc300_a' }), 'test5.jsonl:2: duplicate task_id abc300_a (first on line 1)'],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`), second).toThrow(message);
  });

  it("tests too large for the sandbox's program are left out by name; the global timeout stays within the sandbox's", () => {
    const row = JSON.parse(LCB_TASKS[0]!.line) as Record<string, unknown>;
    const huge = JSON.stringify({
      ...row,
      question_id: 'huge',
      private_test_cases: JSON.stringify([{ input: 'x'.repeat(6_500_000), output: '1', testtype: 'stdin' }]),
    });
    const many = JSON.stringify({
      ...row,
      question_id: 'many',
      private_test_cases: JSON.stringify(Array.from({ length: 100 }, () => ({ input: '1\n1\n', output: '1\n1\n', testtype: 'stdin' }))),
    });
    const loaded = load(`${LCB_TASKS[0]!.line}\n${huge}\n${many}\n`, { timeout: 6 });
    expect(loaded.problems.map((p) => p.task_id)).toEqual(['abc300_a', 'many']);
    expect(loaded.notes).toContain("test5.jsonl: 1 problems left out, their tests too large for the sandbox's 8 MiB program: huge");
    // (6 + 1) x 3 + 5 s, as LiveCodeBench's; (6 + 1) x 101 + 5 s is past the sandbox's 600 s.
    expect(loaded.problems.map((p) => liveCodeBenchFamily.limits(p, null, 3000).timeoutMs)).toEqual([26_000, 600_000]);
  });

  it("a model's training_cutoff must fall before the window of every LiveCodeBench dataset of the sweep", () => {
    const config = (lcb: Record<string, unknown>, cutoff = '2024-04-30') => ({
      datasets: [
        { name: 'lcb', family: 'livecodebench', path: 'test5.jsonl', ...lcb },
        { name: 'he', family: 'humaneval', path: 'HumanEval.jsonl.gz' },
      ],
      models: [
        { id: 'old', base_url: 'http://127.0.0.1:1/v1', model: 'm' },
        { id: 'new', base_url: 'http://127.0.0.1:1/v1', model: 'm', training_cutoff: cutoff },
      ],
      methods: ['direct'],
      temperatures: [0.2],
      n_samples: 1,
      k: [1],
    });
    const issues = (value: unknown) => {
      try {
        parseSweepConfig(value);
        return [];
      } catch (error) {
        if (!(error instanceof SweepConfigError)) throw error;
        return error.issues.map((i) => `${i.path}: ${i.message}`);
      }
    };
    expect(issues(config({ release_after: '2024-05-01' }))).toEqual([]);
    expect(parseSweepConfig(config({ release_after: '2024-05-01' })).models[1]!.training_cutoff).toBe('2024-04-30');
    const tooEarly =
      "datasets[0].release_after: model new (models[1]) has training_cutoff 2024-04-30: problems released up to it may be in its training data; set release_after: '2024-05-01' or later, or list the model in another sweep";
    expect(issues(config({ release_after: '2024-04-30' }))).toEqual([tooEarly]);
    expect(issues(config({}))).toEqual([tooEarly]);
    expect(issues(config({ release_after: '2024-05-01' }, 'April 2024'))).toEqual([
      'models[1].training_cutoff: must be a day YYYY-MM-DD (the last day of the training data)',
    ]);
  });

  it('evaluate.ts recognises the rows and reads --release-after / --release-before', () => {
    expect(recognizeFamily(lcbJsonl(LCB_TASKS), 'test5.jsonl')).toBe('livecodebench');
    const { problems } = loadEvaluateProblems({
      text: lcbJsonl(LCB_TASKS),
      source: 'test5.jsonl',
      family: 'livecodebench',
      options: { release_after: '2024-05-01', release_before: '2024-08-01' },
    });
    expect(problems.map((p) => p.task_id)).toEqual(['3143', '3200', '1980A']);
  });

  it("evaluate.ts's problems say which rows the window leaves out, and the window for results.json", () => {
    const { problems, leftOut, cell } = loadEvaluateProblems({
      text: lcbJsonl(LCB_TASKS),
      source: 'test5.jsonl',
      family: 'livecodebench',
      options: { release_after: '2024-05-01', release_before: '2024-08-01' },
    });
    const kept = new Set(problems.map((p) => p.task_id));
    expect(leftOut!.taskIds).toEqual(LCB_TASKS.map((t) => t.question_id).filter((id) => !kept.has(id)));
    expect(leftOut!.why).toContain('released from 2024-05-01 to 2024-08-01 00:00');
    expect(cell).toEqual({
      release_window: 'released from 2024-05-01 to 2024-08-01 00:00',
      release_after: '2024-05-01',
      release_before: '2024-08-01',
    });
  });
});

describe("the code of an answer: LiveCodeBench's extract_code (the last fenced block)", () => {
  const ANSWERS = [
    // Several blocks: an example call, then the solution (explora's own extraction takes the first python one).
    'Try it:\n```python\nprint(solve(3))\n```\nThe solution:\n```python\ndef solve(n):\n    return n * 2\n```\nDone.',
    // A python block, then one of another language: LiveCodeBench takes the last, whatever its language.
    '```python\nx = int(input())\nprint(x)\n```\nRun it with:\n```bash\npython3 main.py\n```',
    // No fence at all: no code.
    'x = int(input())\nprint(x + 1)',
    // One fence line only (an answer cut off): no code.
    'Here:\n```python\nx = 1\nprint(x)',
    // Three backticks inside a line count as a fence line; CRLF lines keep their \r.
    'a\r\n```python\r\nprint(1)\r\n``` end\r\n',
    // An empty block, and blocks one after the other.
    '```\n```\n```python\ny = 2\n```',
    '',
  ];

  it("the family's extraction of a chat answer and of a completion is LiveCodeBench's, on answers with several blocks and none", () => {
    const theirs = (
      JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ extract: ANSWERS }) }).toString()) as { extracted: string[] }
    ).extracted;
    expect(theirs[0]).toBe('def solve(n):\n    return n * 2');
    expect(theirs[2]).toBe('');
    const sweepProblem = load(lcbJsonl(LCB_TASKS)).problems[0]!;
    // As a sweep takes a chat answer's code (its thinking stripped first), then the family's solution.
    expect(ANSWERS.map((a) => liveCodeBenchFamily.solution(sweepProblem, 'chat', answerCode(sweepProblem, 'chat', a, [])))).toEqual(theirs);
    expect(ANSWERS.map((a) => answerCode(sweepProblem, 'chat', `<think>\n\`\`\`\nno\n\`\`\`\n</think>${a}`, []))).toEqual(theirs);
    // A completion model answers LiveCodeBench's chat message: the same extraction.
    expect(
      ANSWERS.map((a) => liveCodeBenchFamily.solution(sweepProblem, 'completions', answerCode(sweepProblem, 'completions', a, []))),
    ).toEqual(theirs);
    // A model's sanitizer still reads the answer instead.
    expect(answerCode(sweepProblem, 'chat', ANSWERS[0]!, [], (raw) => `sanitized ${raw.length}`)).toBe(`sanitized ${ANSWERS[0]!.length}`);
  });
});

describe('private_test_cases as Python writes them', () => {
  it('zlib data of every level and strategy inflates to the bytes node:zlib compressed', () => {
    for (const level of [0, 1, 9])
      for (const strategy of [constants.Z_DEFAULT_STRATEGY, constants.Z_FIXED, constants.Z_HUFFMAN_ONLY])
        for (const size of [0, 1, 1000, 100_000]) {
          const input = Buffer.from(Array.from({ length: size }, (_, i) => (i % 7 === 0 ? 65 + ((i * 31) % 26) : 32 + (i % 3))));
          expect(Buffer.from(zlibDecompress(new Uint8Array(deflateSync(input, { level, strategy }))))).toEqual(input);
        }
  });

  it('pickles of protocols 2 to 5 (framed, and a string past a frame) decode; other pickles are refused', () => {
    const encoded = JSON.parse(
      execFileSync(PYTHON, [
        '-c',
        `import base64, json, pickle, zlib
tests = json.dumps([{"input": "1\\n" + "x" * 200000, "output": "é\\n", "testtype": "stdin"}])
enc = lambda b: base64.b64encode(zlib.compress(b)).decode()
print(json.dumps({"tests": tests, "by_protocol": [enc(pickle.dumps(tests, protocol=p)) for p in (2, 3, 4, 5)], "small": enc(pickle.dumps("[]", protocol=4)), "list": enc(pickle.dumps([tests])), "reduce": enc(pickle.dumps(ValueError("x"), protocol=2))}))`,
      ]).toString(),
    ) as { tests: string; by_protocol: string[]; small: string; list: string; reduce: string };
    for (const field of encoded.by_protocol) expect(privateTestsJson(field)).toBe(encoded.tests);
    expect(privateTestsJson(encoded.small)).toBe('[]');
    expect(() => privateTestsJson(encoded.list)).toThrow(/opcode 0x5d at byte \d+ is not part of a pickled str/);
    expect(() => privateTestsJson(encoded.reduce)).toThrow(/opcode 0x63 at byte \d+ is not part of a pickled str/);
  });
});

describe("graded in the sandbox as LiveCodeBench's evaluator grades", () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 60_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  const stdinRow = JSON.stringify({
    question_title: 'edge',
    question_content: 'Print the two numbers, then their sum with one decimal.',
    platform: 'atcoder',
    question_id: 'edge_stdin',
    contest_id: 'edge',
    contest_date: '2024-06-01T00:00:00',
    starter_code: '',
    difficulty: 'easy',
    public_test_cases: JSON.stringify([{ input: '1 2\n', output: '1 2\n3.0\n', testtype: 'stdin' }]),
    private_test_cases: JSON.stringify([{ input: '10 20\n', output: '10 20\n30.0\n', testtype: 'stdin' }]),
    metadata: '{}',
  });
  const functionalRow = JSON.stringify({
    question_title: 'edge',
    question_content: 'Split nums into pairs.',
    platform: 'leetcode',
    question_id: 'edge_functional',
    contest_id: 'edge',
    contest_date: '2024-06-01T00:00:00',
    starter_code: 'class Solution:\n    def pairs(self, nums: List[int], k: int) -> List[List[int]]:\n        ',
    difficulty: 'medium',
    public_test_cases: JSON.stringify([{ input: '[1, 2, 3, 4]\n2', output: '[[1, 2], [3, 4]]', testtype: 'functional' }]),
    private_test_cases: JSON.stringify([
      { input: '[5]\n1', output: '[[5]]', testtype: 'functional' },
      { input: '[]\n3', output: '[]', testtype: 'functional' },
    ]),
    metadata: '{"func_name": "pairs"}',
  });
  const READ = 'a, b = map(int, input().split())\n';
  const PAIRS = 'class Solution:\n    def pairs(self, nums, k):\n';
  const CASES: Array<[string, 'stdin' | 'functional', string]> = [
    ['right', 'stdin', `${READ}print(a, b)\nprint(float(a + b))`],
    ['trailing whitespace and blank lines', 'stdin', `${READ}print(a, b, '  ')\nprint(float(a + b), end='   \\n\\n\\n')`],
    ['3 for 3.0 (equal Decimals)', 'stdin', `${READ}print(a, b)\nprint(a + b)`],
    ['3.00000001 for 3.0', 'stdin', `${READ}print(a, b)\nprint(a + b + 0.00000001)`],
    ['two spaces between tokens', 'stdin', `${READ}print(a, ' ', b)\nprint(float(a + b))`],
    ['a word for a number', 'stdin', `${READ}print(a, b)\nprint('three')`],
    ['a line too many', 'stdin', `${READ}print(a, b)\nprint(float(a + b))\nprint()\nprint(0)`],
    ['one line only', 'stdin', `${READ}print(a, b, float(a + b))`],
    ['a crash after the output', 'stdin', `${READ}print(a, b)\nprint(float(a + b))\nraise ValueError('late')`],
    ['an endless loop', 'stdin', 'while True:\n    pass'],
    ['an empty answer', 'stdin', ''],
    ['a syntax error', 'stdin', 'print(('],
    [
      'a main guard in double quotes',
      'stdin',
      `def main():\n    ${READ.trim()}\n    print(a, b)\n    print(float(a + b))\nif __name__ == "__main__":\n    main()`,
    ],
    ['exit() after printing', 'stdin', `${READ}print(a, b)\nprint(float(a + b))\nexit()`],
    ['quit()', 'stdin', `${READ}print(a, b)\nprint(float(a + b))\nquit()`],
    ['sys.stdin.buffer.read()', 'stdin', 'import sys\na, b = map(int, sys.stdin.buffer.read().split())\nprint(a, b)\nprint(float(a + b))'],
    [
      'from sys import stdin; stdin.readline()',
      'stdin',
      'from sys import stdin\na, b = map(int, stdin.readline().split())\nprint(a, b)\nprint(float(a + b))',
    ],
    ['input() past the end', 'stdin', `${READ}input()\nprint(a, b)\nprint(float(a + b))`],
    ['right', 'functional', `${PAIRS}        return [nums[i:i + k] for i in range(0, len(nums), k)]`],
    ['a tuple of lists', 'functional', `${PAIRS}        return tuple(nums[i:i + k] for i in range(0, len(nums), k))`],
    ['a list of tuples', 'functional', `${PAIRS}        return [tuple(nums[i:i + k]) for i in range(0, len(nums), k)]`],
    ['wrong on a private test', 'functional', `${PAIRS}        return [nums[i:i + k] for i in range(0, len(nums), k)] if nums else [[]]`],
    ['a crash', 'functional', `${PAIRS}        return nums[10]`],
    ['an endless loop', 'functional', `${PAIRS}        while True:\n            pass`],
    ['a function, no class', 'functional', 'def pairs(nums, k):\n    return [nums[i:i + k] for i in range(0, len(nums), k)]'],
    ['no such method', 'functional', `${PAIRS}        return []\n    def other(self):\n        pass`.replace('def pairs', 'def pair')],
    ['an empty answer', 'functional', ''],
  ];

  let theirs: Reference;
  beforeAll(() => {
    theirs = reference({
      rows: [stdinRow, functionalRow],
      samples: {
        edge_stdin: CASES.filter((c) => c[1] === 'stdin').map((c) => c[2]),
        edge_functional: CASES.filter((c) => c[1] === 'functional').map((c) => c[2]),
      },
      k: [1],
    });
  }, 300_000);

  it("the cases cover every verdict of LiveCodeBench's evaluator (True, False, -2, -3, -4)", () => {
    const verdicts = new Set(Object.values(theirs.graded).flatMap((samples) => samples.flat()));
    expect([...verdicts].sort()).toEqual([-2, -3, -4, false, true].sort());
  });

  async function ours(kind: 'stdin' | 'functional', code: string): Promise<{ results: Array<boolean | number>; passed: boolean }> {
    const [problem] = load(kind === 'stdin' ? stdinRow : functionalRow).problems;
    const program = LANGUAGES.python.assemble({
      solution: liveCodeBenchFamily.embedSolution(problem!, code),
      tests: liveCodeBenchFamily.tests(problem!, null),
    });
    const result = await executor.run({ id: 'lcb', program, limits: liveCodeBenchFamily.limits(problem!, null, 3000) });
    const at = result.stdout.lastIndexOf(LCB_RESULT_MARKER);
    const results =
      at < 0
        ? []
        : (JSON.parse(result.stdout.slice(at + LCB_RESULT_MARKER.length).split('\n')[0]!) as { results: Array<boolean | number> }).results;
    const score = liveCodeBenchFamily.score(problem!, result);
    return { results, passed: score.passed };
  }

  it.each(CASES.map((c, i) => [c[1], c[0], i] as const))('%s: %s', async (kind, _what, i) => {
    const code = CASES[i]![2];
    const index = CASES.filter((c) => c[1] === kind).indexOf(CASES[i]!);
    const expected = theirs.graded[kind === 'stdin' ? 'edge_stdin' : 'edge_functional']![index]!;
    const got = await ours(kind, code);
    expect(got.results).toEqual(expected);
    expect(got.passed).toBe(expected.every((r) => (typeof r === 'boolean' ? r : r > 0)));
  });

  it("the fixture's samples pass as LiveCodeBench's evaluator passes them, and pass@1 is its figure", async () => {
    const graded = reference({
      rows: LCB_TASKS.map((t) => t.line),
      samples: Object.fromEntries(LCB_TASKS.map((t) => [t.question_id, t.samples.map((s) => s.code)])),
      k: [1, 2],
    });
    for (const task of LCB_TASKS) {
      expect(graded.graded[task.question_id]!.map((r) => r.every((x) => (typeof x === 'boolean' ? x : x > 0)))).toEqual(
        task.samples.map((s) => s.passed),
      );
    }
    const problems = load(lcbJsonl(LCB_TASKS)).problems;
    let passedAll = 0;
    for (const [t, task] of LCB_TASKS.entries())
      for (const sample of task.samples) {
        const program = LANGUAGES.python.assemble({
          solution: liveCodeBenchFamily.embedSolution(problems[t]!, sample.code),
          tests: liveCodeBenchFamily.tests(problems[t]!, null),
        });
        const result = await executor.run({ id: 'lcb', program, limits: liveCodeBenchFamily.limits(problems[t]!, null, 3000) });
        expect(liveCodeBenchFamily.score(problems[t]!, result).passed, `${task.question_id} ${sample.what}`).toBe(sample.passed);
        if (sample.passed) passedAll++;
      }
    expect(graded.metrics['pass@1']).toBeCloseTo(passedAll / (LCB_TASKS.length * 2), 12);
    expect(graded.metrics['pass@2']).toBeCloseTo(1, 12);
  }, 120_000);
});
