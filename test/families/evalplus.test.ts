/**
 * evalplus rows: reading the release format (Python's JSON, every bad row named by file, line and
 * field), and evalplus's comparison semantics, run in the real sandbox: the canonical solution's
 * outputs first, then a sample checked against them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { parsePythonJsonObject } from '../../domain/datasets/pythonJson.js';
import { evalplusFamily, EvalplusEntrySchema, type EvalplusEntry } from '../../domain/families/evalplus/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { memoryReferenceOutputs, ReferenceOutputs, ReferenceOutputsError } from '../../infra/referenceOutputs.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { HUMANEVAL_PLUS_TASKS, jsonl, MBPP_PLUS_TASKS } from '../support/evalplus-rows.js';

const entry = (extra: Partial<EvalplusEntry> = {}): EvalplusEntry =>
  EvalplusEntrySchema.parse({ name: 'he', family: 'evalplus', variant: 'humaneval', path: 'HumanEvalPlus.jsonl', ...extra });

function load(text: string, extra: Partial<EvalplusEntry> = {}, source = 'HumanEvalPlus.jsonl'): SweepProblem[] {
  return evalplusFamily.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: source } }).problems;
}

/** A row of the release format with the given fields replaced (undefined: left out). */
function rowWith(fields: Record<string, unknown>): string {
  const base: Record<string, unknown> = {
    task_id: 'HumanEval/0',
    prompt: 'def f(x):\n',
    entry_point: 'f',
    canonical_solution: '    return x\n',
    contract: '',
    base_input: [[1]],
    plus_input: [[2]],
    atol: 0,
  };
  return JSON.stringify(Object.fromEntries(Object.entries({ ...base, ...fields }).filter(([, v]) => v !== undefined)));
}

describe("Python's JSON", () => {
  it('reads NaN and infinities outside strings, keeps each member as written, leaves strings alone', () => {
    const text = '{"a": "NaN, Infinity", "b": [[NaN], [-Infinity, 1e400]], "c": [[123456789012345678901234567890]], "d": {"x": [1, 2]}}';
    const { value, raw } = parsePythonJsonObject(text);
    expect(value).toEqual({
      a: 'NaN, Infinity',
      b: [[null], [null, Infinity]],
      c: [[Number('123456789012345678901234567890')]],
      d: { x: [1, 2] },
    });
    expect(raw).toEqual({
      a: '"NaN, Infinity"',
      b: '[[NaN], [-Infinity, 1e400]]',
      c: '[[123456789012345678901234567890]]',
      d: '{"x": [1, 2]}',
    });
  });
});

describe('evalplus rows', () => {
  it('the release format loads: every task, prompt as written, inputs kept as Python reads them', () => {
    const problems = load(jsonl(HUMANEVAL_PLUS_TASKS));
    expect(problems.map((p) => p.task_id)).toEqual(HUMANEVAL_PLUS_TASKS.map((t) => t.task_id));
    expect(problems[0]!.prompt).toBe(HUMANEVAL_PLUS_TASKS[0]!.prompt);
    // The big integer is not rounded, and NaN stays NaN for Python to read.
    expect(evalplusFamily.read(problems[0]!).oracle).toMatchObject({
      kind: 'evalplus',
      dataset: 'humaneval',
      plus_input: '[[-5, 3], [12345678901234567890123, 1], [0, 0]]',
      atol: 0,
    });
    expect(evalplusFamily.read(problems[2]!).oracle).toMatchObject({ base_input: '[[1.0], [NaN]]' });
    expect(evalplusFamily.read(problems[1]!).oracle).toMatchObject({ atol: 0.001 });
    // evalplus's defaults, and the entry's own.
    expect(evalplusFamily.read(problems[0]!).oracle).toMatchObject({ time_limit_factor: 4, min_time_limit: 4, task_time_limit: 60 });
    expect(evalplusFamily.read(load(jsonl(HUMANEVAL_PLUS_TASKS), { min_time_limit: 0.5, time_limit_factor: 2 })[0]!).oracle).toMatchObject({
      time_limit_factor: 2,
      min_time_limit: 0.5,
    });
  });

  it('MBPP+ rows: prompt continued by completions, chat answers are whole programs, MBPP stop words', () => {
    const [p] = evalplusFamily.load({
      entry: entry({ variant: 'mbpp' }),
      texts: { rows: jsonl(MBPP_PLUS_TASKS) },
      sources: { rows: 'MbppPlus.jsonl' },
    }).problems;
    expect(evalplusFamily.read(p!).oracle).toMatchObject({ dataset: 'mbpp' });
    expect(evalplusFamily.solution(p!, 'completions', 'def similar_elements(a, b): ...')).toBe(
      p!.prompt + 'def similar_elements(a, b): ...',
    );
    expect(evalplusFamily.solution(p!, 'chat', 'def similar_elements(a, b): ...')).toBe('def similar_elements(a, b): ...');
    expect(evalplusFamily.stopWords(entry({ variant: 'mbpp' }))).toContain('\nassert');
    expect(evalplusFamily.stopWords(entry())).toContain('\ndef');
  });

  it('a bad row is refused naming the file, the line and the field', () => {
    const good = rowWith({});
    const cases: Array<[string, RegExp]> = [
      [rowWith({ plus_input: undefined }), /^HumanEvalPlus\.jsonl:2: plus_input: /],
      [rowWith({ base_input: [1, 2] }), /^HumanEvalPlus\.jsonl:2: base_input\.0: must be a list of argument lists/],
      [rowWith({ entry_point: 'not a name' }), /^HumanEvalPlus\.jsonl:2: entry_point: must be a Python function name/],
      [
        rowWith({ task_id: 'Mbpp/3' }),
        /^HumanEvalPlus\.jsonl:2: task_id: Mbpp\/3 is not a HumanEval\+ task \(the entry says variant: humaneval\)/,
      ],
      [rowWith({ task_id: 'HE/3' }), /^HumanEvalPlus\.jsonl:2: task_id: must be HumanEval\/<n> or Mbpp\/<n>/],
      [rowWith({ atol: -1 }), /^HumanEvalPlus\.jsonl:2: atol: /],
      ['{"task_id": "HumanEval/1", "prompt": ', /^HumanEvalPlus\.jsonl:2: not valid JSON/],
      [good, /^HumanEvalPlus\.jsonl:2: duplicate task_id HumanEval\/0 \(first on line 1\)/],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`), second).toThrow(message);
    expect(() => load('\n')).toThrow('HumanEvalPlus.jsonl has no tasks');
    expect(EvalplusEntrySchema.safeParse({ name: 'x', family: 'evalplus', path: 'a.jsonl' }).error?.issues[0]).toMatchObject({
      path: ['variant'],
    });
  });
});

describe("evalplus's comparison, in the sandbox", () => {
  let executor: PythonExecutor;
  let references: ReferenceOutputs;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 20_000 } });
    await executor.start();
    references = new ReferenceOutputs(memoryReferenceOutputs(), (r) => executor.run(r));
  });
  afterAll(() => executor.close());

  let counter = 0;
  /** The base and plus scores of `body` against `canonical` (function bodies of f(x)) on the inputs. */
  async function check(canonical: string, body: string, inputs: { base: unknown[]; plus?: unknown[]; atol?: number; entryPoint?: string }) {
    const ep = inputs.entryPoint ?? 'f';
    const [problem] = load(
      rowWith({
        task_id: `HumanEval/${counter++}`,
        prompt: `import math\n\ndef ${ep}(*args):\n    x = args[0] if len(args) == 1 else args\n`,
        entry_point: ep,
        canonical_solution: canonical,
        base_input: inputs.base,
        plus_input: inputs.plus ?? [],
        atol: inputs.atol ?? 0,
      }),
      { min_time_limit: 1 },
    );
    const reference = await references.for(problem!, evalplusFamily.checking(problem!));
    const program = LANGUAGES.python.assemble({ solution: problem!.prompt + body, tests: evalplusFamily.tests(problem!, reference) });
    const result = await executor.run({ id: 'sample', program, limits: evalplusFamily.limits(problem!, reference, 3000) });
    const score = evalplusFamily.score(problem!, result);
    if (score.kind !== 'named') throw new Error('evalplus scores are named');
    return { ...(score.scores as Record<string, boolean>), status: result.status, message: result.exception?.message };
  }

  it('floats: within atol; atol 0 means 1e-6 for float outputs; no tolerance for ints', async () => {
    expect(await check('    return x / 3\n', '    return x / 3 + 5e-4\n', { base: [[1.0]], atol: 1e-3 })).toMatchObject({ base: true });
    expect(await check('    return x / 3\n', '    return x / 3 + 5e-3\n', { base: [[1.0]], atol: 1e-3 })).toMatchObject({ base: false });
    expect(await check('    return 0.1 + 0.2\n', '    return 0.3\n', { base: [[0]] })).toMatchObject({ base: true });
    expect(await check('    return 0.3\n', '    return 0.3 + 1e-5\n', { base: [[0]] })).toMatchObject({ base: false });
    expect(await check('    return [x / 3, x]\n', '    return [x / 3 + 1e-9, x + 1e-9]\n', { base: [[1.5]] })).toMatchObject({
      base: true,
    });
    // An int where a float is expected: equal values match exactly, unequal ones are not compared with a tolerance.
    expect(await check('    return 2.0\n', '    return 2\n', { base: [[0]] })).toMatchObject({ base: true });
    expect(await check('    return 2.0000001\n', '    return 2\n', { base: [[0]] })).toMatchObject({ base: false });
  });

  it('nested lists and tuples must match in kind; lengths in full', async () => {
    expect(await check('    return [(1, 2), (3, [4])]\n', '    return [(1, 2), (3, [4])]\n', { base: [[0]] })).toMatchObject({
      base: true,
    });
    expect(await check('    return [(1, 2)]\n', '    return [[1, 2]]\n', { base: [[0]] })).toMatchObject({ base: false });
    expect(await check('    return [1.5, 2.5]\n', '    return [1.5, 2.5, 3.5]\n', { base: [[0]] })).toMatchObject({ base: false });
    expect(await check('    return {"a": (1,)}\n', '    return {"a": (1,)}\n', { base: [[0]] })).toMatchObject({ base: true });
  });

  it('NaN: read as input; as an output it never equals itself (evalplus compares with ==, then allclose without equal_nan)', async () => {
    const [problem] = load(
      rowWith({})
        .replace('"base_input":[[1]]', '"base_input":[[NaN], [Infinity]]')
        .replace('"canonical_solution":"    return x\\n"', '"canonical_solution":"    return str(x)\\n"'),
    );
    const reference = await references.for(problem!, evalplusFamily.checking(problem!));
    const program = LANGUAGES.python.assemble({
      solution: 'def f(x):\n    return str(x)\n',
      tests: evalplusFamily.tests(problem!, reference),
    });
    const result = await executor.run({ id: 'nan', program, limits: evalplusFamily.limits(problem!, reference, 3000) });
    expect(evalplusFamily.score(problem!, result)).toMatchObject({ scores: { base: true, plus: true } });
    expect(await check('    return float("nan")\n', '    return float("nan")\n', { base: [[0]] })).toMatchObject({ base: false });
  });

  it('plus runs only after base passes; an exception, a missing function or a slow input fails', async () => {
    expect(await check('    return x\n', '    return x if x < 10 else -1\n', { base: [[1]], plus: [[20]] })).toMatchObject({
      base: true,
      plus: false,
      status: 'failed',
      message: 'plus input 0 of 1: wrong output',
    });
    expect(await check('    return x\n', '    raise ValueError("no")\n', { base: [[1]], plus: [[20]] })).toMatchObject({
      base: false,
      plus: false,
      message: 'base input 0 of 1: ValueError: no',
    });
    expect(await check('    return x\n', '    import time\n    time.sleep(20)\n', { base: [[1]] })).toMatchObject({
      base: false,
      message: expect.stringMatching(/timed out/),
    });
    const missing = await check('    return x\n', '    return x\n\ndel f\n', { base: [[1]] });
    expect(missing).toMatchObject({ base: false, plus: false });
  });

  it("each phase starts from the state the solution left, as in its own process; a phase that kills its process keeps the other's result", async () => {
    // Right for its first two calls in a process, wrong after: base (2 inputs) and plus (2 inputs) each pass in a fresh process.
    const counting = '    global _calls\n    _calls = globals().get("_calls", 0) + 1\n    return x if _calls <= 2 else -x\n';
    expect(await check('    return x\n', counting, { base: [[1], [2]], plus: [[3], [4]] })).toMatchObject({
      base: true,
      plus: true,
      status: 'passed',
    });
    // A plus input that ends the process outright (no exception to catch): base still passes.
    const exits = '    import os\n    if x > 10:\n        os._exit(3)\n    return x\n';
    expect(await check('    return x\n', exits, { base: [[1]], plus: [[2], [20]] })).toMatchObject({
      base: true,
      plus: false,
      message: "plus input 1 of 2: the phase's process ended (exit code 3)",
    });
    // A plus input that hangs where the per-input alarm cannot interrupt it (signals blocked): killed past the phase's budget; base kept.
    const hangs =
      '    import signal, time\n    if x > 10:\n        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n        time.sleep(30)\n    return x\n';
    expect(await check('    return x\n', hangs, { base: [[1]], plus: [[20]] })).toMatchObject({
      base: true,
      plus: false,
      message: 'plus input 0 of 1: the phase ran out of time',
    });
  }, 60_000);

  it("a sample's output, printed or written to its descriptors, does not hide the outcome", async () => {
    expect(
      await check(
        '    return x\n',
        '    import os, sys\n    print("x" * 100000)\n    os.write(1, b"y" * 100000)\n    sys.stderr.write("z")\n    return x\n',
        { base: [[1]], plus: [[2]] },
      ),
    ).toMatchObject({ base: true, plus: true, status: 'passed' });
  });

  it("evalplus's special oracle for HumanEval/32 (find_zero): any zero of the polynomial within atol", async () => {
    const canonical =
      '    xs = x\n    lo, hi = -1.0, 1.0\n    while _p(xs, lo) * _p(xs, hi) > 0:\n        lo, hi = lo * 2, hi * 2\n    while hi - lo > 1e-10:\n        mid = (lo + hi) / 2\n        if _p(xs, mid) * _p(xs, lo) > 0:\n            lo = mid\n        else:\n            hi = mid\n    return lo\n\ndef _p(xs, x):\n    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n';
    // (x - 1)(x + 2) = x^2 + x - 2: the reference finds one zero, the sample the other.
    expect(await check(canonical, '    return -2.0\n', { base: [[[-2, 1, 1]]], atol: 1e-4, entryPoint: 'find_zero' })).toMatchObject({
      base: true,
    });
    expect(await check(canonical, '    return 0.5\n', { base: [[[-2, 1, 1]]], atol: 1e-4, entryPoint: 'find_zero' })).toMatchObject({
      base: false,
    });
  });

  it('a canonical solution that fails on an input is an error naming the task and the input', async () => {
    const [problem] = load(rowWith({ task_id: 'HumanEval/77', canonical_solution: '    return 1 // x\n', base_input: [[1], [0]] }));
    await expect(references.for(problem!, evalplusFamily.checking(problem!))).rejects.toThrow(ReferenceOutputsError);
    await expect(references.for(problem!, evalplusFamily.checking(problem!))).rejects.toThrow(
      /HumanEval\/77.*base input 1: ZeroDivisionError/,
    );
  });
});
