/**
 * Mercury: the rows in Elfsong/Mercury's format (test/support/mercury-rows.ts) loaded with bigcode's
 * prompt and post-processing; bigcode's Beyond arithmetic and its aggregation (compute_beyond_eval,
 * transcribed in mercury_reference.py and run in the tests' Python, its sandbox's runs scripted)
 * against explora's score kind on the edge cases (all failing, runtimes beyond the references' range
 * either way, ties, failing references, the cases where bigcode's code raises); then the harness in
 * the sandbox: bigcode's statuses, and a deliberately slow answer ranked far below a fast one.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beyondOf, MERCURY_STATUSES, type MercuryStatus } from '../../domain/families/mercury/beyond.js';
import { mercuryFamily, MercuryEntrySchema, MERCURY_STOP_WORDS, type MercuryEntry } from '../../domain/families/mercury/index.js';
import { MERCURY_SCORES, type MercurySample } from '../../domain/families/mercury/scores.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { PythonExecutor } from '../../infra/sandbox/pythonExecutor.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import {
  MERCURY_ROWS,
  mercuryJsonl,
  PAIRS_FAST,
  PAIRS_QUADRATIC,
  PAIRS_SLOWEST,
  RUNNING_SUM,
  RUNNING_SUM_FAILURES,
} from '../support/mercury-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'mercury_reference.py');

const entry = (extra: Partial<MercuryEntry> = {}): MercuryEntry =>
  MercuryEntrySchema.parse({ name: 'mercury', family: 'mercury', path: 'eval.jsonl', ...extra });
const load = (text: string, extra: Partial<MercuryEntry> = {}) =>
  mercuryFamily.load({ entry: entry(extra), texts: { rows: text }, sources: { rows: 'eval.jsonl' } }).problems;

type Run = [MercuryStatus, number];
interface ScriptedTask {
  difficulty: 'Easy' | 'Medium' | 'Hard';
  /** Each reference's one run. */
  references: Run[];
  /** Each generation's five runs (bigcode averages them; here they are equal, so its mean is explora's least). */
  generations: Run[][];
}
interface Reference {
  prompts: string[];
  postprocessed: string[];
  cases: Array<{ results?: Record<string, unknown>; error?: string }>;
}

/** The peer's side, once for the file. */
let reference: Reference;
const five = (status: MercuryStatus, runtime: number): Run[] => Array.from({ length: 5 }, () => [status, runtime]);

const CASES: Record<string, ScriptedTask[]> = {
  'runtimes inside, beyond and at the ends of the range; failing references and generations; ties': [
    {
      difficulty: 'Easy',
      references: [
        ['passed', 0.2],
        ['failed@cases', 0.01],
        ['passed', 0.6],
        ['passed', 0.2],
      ],
      generations: [
        five('passed', 0.3),
        five('passed', 0.05),
        five('passed', 0.9),
        five('failed@eval', 0),
        five('passed', 0.2),
        five('passed', 0.6),
      ],
    },
    {
      difficulty: 'Medium',
      references: [
        ['passed', 1.5],
        ['passed', 0.5],
        ['failed@timeout', 10],
      ],
      generations: [
        five('failed@load', 0),
        five('passed', 1.0),
        five('failed@cases', 0.7),
        five('passed', 0.75),
        five('failed@error', 0),
        five('passed', 1.4),
      ],
    },
    {
      difficulty: 'Hard',
      references: [
        ['passed', 2],
        ['passed', 3],
      ],
      generations: [
        five('failed@timeout', 10),
        five('failed@eval', 0),
        five('failed@cases', 0),
        five('failed@load', 0),
        five('failed@error', 0),
        five('failed@cases', 0),
      ],
    },
  ],
  'samples per task differ: only the k every task reaches': [
    {
      difficulty: 'Easy',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1.5), five('passed', 1), five('passed', 3)],
    },
    {
      difficulty: 'Medium',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: Array.from({ length: 10 }, (_, i) => five(i % 2 ? 'passed' : 'failed@cases', 1 + i / 10)),
    },
    {
      difficulty: 'Hard',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: Array.from({ length: 5 }, () => five('failed@eval', 0)),
    },
  ],
};

/** Where bigcode's code raises, and what explora makes of it instead. */
const RAISING: Record<string, ScriptedTask[]> = {
  'one passing reference (bigcode divides by a zero range)': [
    {
      difficulty: 'Easy',
      references: [
        ['passed', 1],
        ['failed@cases', 0],
      ],
      generations: [five('passed', 0.5), five('passed', 1), five('passed', 2)],
    },
    {
      difficulty: 'Medium',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1), five('passed', 1), five('passed', 1)],
    },
    {
      difficulty: 'Hard',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1), five('passed', 1), five('passed', 1)],
    },
  ],
  'no passing reference (bigcode takes min() of nothing)': [
    { difficulty: 'Easy', references: [['failed@eval', 0]], generations: [five('passed', 0.5)] },
    {
      difficulty: 'Medium',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1.5)],
    },
    {
      difficulty: 'Hard',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1)],
    },
  ],
  'a difficulty without tasks (bigcode divides by zero tasks)': [
    {
      difficulty: 'Easy',
      references: [
        ['passed', 1],
        ['passed', 2],
      ],
      generations: [five('passed', 1.25)],
    },
  ],
};

/** explora's cell figures for the scripted runs: each sample's score as the family makes it, folded by the score kind. */
function exploraResults(tasks: ScriptedTask[]) {
  const problem = { task_id: 't' } as SweepProblem;
  const views = tasks.map((task, t) => {
    const refs = task.references.filter(([s]) => s === 'passed').map(([, r]) => r);
    let state: unknown;
    let c = 0;
    task.generations.forEach((runs, g) => {
      const [status, runtime] = runs[0]!;
      const passed = status === 'passed';
      c += passed ? 1 : 0;
      const sample: MercurySample = {
        kind: 'mercury',
        difficulty: task.difficulty,
        status,
        runtime: passed ? runtime : null,
        rounds: 5,
        references: { passed: refs.length, total: task.references.length },
        range: refs.length ? [Math.min(...refs), Math.max(...refs)] : null,
        beyond: passed ? beyondOf(runtime, refs) : 0,
      };
      state = MERCURY_SCORES.add(null, state, MERCURY_SCORES.sampleSchema.parse(sample), {
        problem,
        taskId: `t${t}`,
        sampleIndex: g,
        passed,
      });
    });
    return { n: task.generations.length, c, state };
  });
  return MERCURY_SCORES.figures(null, views, [1]) as { figures: Record<string, number>; errors: Record<string, unknown>; unranked: number };
}

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const rows = MERCURY_ROWS.map((r) => [r.pretty_content[0]!, r.prompt]);
  const request = {
    prompts: [...rows, [MERCURY_ROWS[0]!.pretty_content[0]!, '']],
    postprocess: [
      ['P', 'P' + RUNNING_SUM + '\n\n# Example usage\nprint(Solution().runningSum([1]))'],
      ['P', 'P' + RUNNING_SUM + '\nif __name__ == "__main__":\n    pass'],
      ['P', 'P' + RUNNING_SUM + '\n```\nThat is all.'],
      ['P', 'P' + RUNNING_SUM],
    ],
    cases: [...Object.values(CASES), ...Object.values(RAISING)].map((tasks) => ({ tasks })),
  };
  reference = JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify(request), maxBuffer: 1 << 26 }).toString()) as Reference;
}, 600_000);

describe('Mercury rows', () => {
  it("loads every task with bigcode's one-shot prompt (with and without starter code) and cuts answers as bigcode does", () => {
    const problems = load(mercuryJsonl(MERCURY_ROWS));
    expect(problems.map((p) => p.task_id)).toEqual(MERCURY_ROWS.map((r) => `mercury/${r.slug_name}`));
    expect(problems.map((p) => p.prompt)).toEqual(reference.prompts.slice(0, MERCURY_ROWS.length));
    const noStarter = load(mercuryJsonl([{ ...MERCURY_ROWS[0]!, prompt: '' }]))[0]!;
    expect(noStarter.prompt).toBe(reference.prompts.at(-1));
    expect(mercuryFamily.stopWords(entry())).toEqual(MERCURY_STOP_WORDS);
    const answers = [
      '\n\n# Example usage\nprint(Solution().runningSum([1]))',
      '\nif __name__ == "__main__":\n    pass',
      '\n```\nThat is all.',
      '',
    ];
    expect(answers.map((tail) => mercuryFamily.solution(problems[1]!, 'completions', RUNNING_SUM + tail))).toEqual(reference.postprocessed);
    expect(mercuryFamily.solution(problems[1]!, 'saved', RUNNING_SUM + answers[0])).toBe(RUNNING_SUM + answers[0]);
    expect(load(mercuryJsonl(MERCURY_ROWS), { difficulty: ['Hard'] }).map((p) => p.task_id)).toEqual([
      'mercury/maximum-depth-of-binary-tree',
    ]);
  });

  it('a bad row is named by file, line and field', () => {
    const good = JSON.stringify(MERCURY_ROWS[1]);
    const bad = (fields: Record<string, unknown>) => JSON.stringify({ ...MERCURY_ROWS[2], ...fields });
    const cases: Array<[string, string | RegExp]> = [
      [bad({ test_cases: '[{"input": [1]' }), /^eval\.jsonl:2: test_cases: not valid JSON/],
      [bad({ test_cases: '[]' }), 'eval.jsonl:2: test_cases: must have at least one test case'],
      [bad({ test_cases: '[{"input": [1]}]' }), 'eval.jsonl:2: test_cases: each test case needs input and expected'],
      [bad({ solutions: [] }), /^eval\.jsonl:2: solutions: must have at least one reference solution/],
      [bad({ difficulty: 'Extreme' }), /^eval\.jsonl:2: difficulty: /],
      [bad({ pretty_content: [] }), /^eval\.jsonl:2: pretty_content: must hold the question/],
      [bad({ slug_name: MERCURY_ROWS[1]!.slug_name }), 'eval.jsonl:2: slug_name: running-sum-of-1d-array is given twice (first on line 1)'],
    ];
    for (const [second, message] of cases) expect(() => load(`${good}\n${second}\n`), second).toThrow(message);
    expect(MercuryEntrySchema.safeParse({ name: 'm', family: 'mercury', path: 'e.jsonl', timing_runs: 0 }).success).toBe(false);
  });
});

describe("Beyond and its aggregation, against bigcode's compute_beyond_eval", () => {
  it.each(Object.keys(CASES).map((name, i) => [name, i] as const))('%s', (name, i) => {
    const peer = reference.cases[i]!;
    expect(peer.error).toBeUndefined();
    const { errors: peerErrors, figures: _none, ...rest } = { figures: undefined, errors: undefined, ...peer.results };
    const mine = exploraResults(CASES[name]!);
    const peerFigures = Object.fromEntries(Object.entries(rest).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
    const peerStatuses = Object.fromEntries(Object.entries(peer.results!).filter(([, v]) => typeof v === 'object'));
    expect(peerErrors).toBeUndefined();
    // The same keys in bigcode's order, the same values.
    expect(Object.keys(mine.figures)).toEqual(Object.keys(peerFigures));
    for (const [key, value] of Object.entries(peerFigures)) expect(mine.figures[key], key).toBeCloseTo(value, 12);
    expect(mine.errors).toEqual(peerStatuses);
    expect(mine.unranked).toBe(0);
  });

  it('where bigcode raises, explora answers: a zero-width range, no passing reference, a difficulty without tasks', () => {
    const [zero, none, missing] = reference.cases.slice(Object.keys(CASES).length);
    expect(zero!.error).toMatch(/^ZeroDivisionError/);
    expect(none!.error).toMatch(/^ValueError: min\(\) arg is an empty sequence/);
    expect(missing!.error).toMatch(/^ZeroDivisionError/);
    const [zeroTasks, noneTasks, missingTasks] = Object.values(RAISING);
    // One passing reference: faster than or as fast as it is 1, slower 0.
    expect(exploraResults(zeroTasks!).figures['Easy_beyond@3']).toBeCloseTo((1 + 1 + 0) / 3, 12);
    // No passing reference: the task is unranked, left out of Beyond@k, still in pass@k.
    const unranked = exploraResults(noneTasks!);
    expect(unranked.unranked).toBe(1);
    expect(unranked.figures['Easy_pass@1']).toBe(1);
    expect(unranked.figures['Easy_beyond@1']).toBeUndefined();
    expect(unranked.figures['Average_beyond@1']).toBeCloseTo((0.5 + 1) / 2, 12);
    // A difficulty without tasks has no figures; the others are there.
    const easyOnly = exploraResults(missingTasks!);
    expect(Object.keys(easyOnly.figures)).toEqual(['Easy_pass@1', 'Easy_beyond@1', 'Average_pass@1', 'Average_beyond@1']);
    expect(easyOnly.figures['Average_beyond@1']).toBeCloseTo(0.75, 12);
  });
});

describe('the harness in the sandbox', () => {
  let executor: PythonExecutor;
  beforeAll(async () => {
    executor = new PythonExecutor({ limits: { timeoutMs: 60_000 } });
    await executor.start();
  });
  afterAll(() => executor.close());

  async function score(row: (typeof MERCURY_ROWS)[number], code: string, extra: Partial<MercuryEntry> = {}): Promise<MercurySample> {
    const [problem] = load(mercuryJsonl([row]), extra);
    const program = LANGUAGES.python.assemble({
      solution: mercuryFamily.embedSolution(problem!, code),
      tests: mercuryFamily.tests(problem!, null),
    });
    const result = await executor.run({ id: 'mercury', program, limits: mercuryFamily.limits(problem!, null, 3000) });
    const taskScore = mercuryFamily.score(problem!, result);
    return MERCURY_SCORES.recordScore(taskScore as never) as MercurySample;
  }

  it("a deliberately slow answer ranks at the bottom, a fast one near the top, whatever the machine's load", async () => {
    const pairs = MERCURY_ROWS[0]!;
    const fast = await score(pairs, PAIRS_FAST);
    const slow = await score(pairs, PAIRS_SLOWEST);
    // CPU time: an answer that sleeps between its calls is timed on its work alone.
    const sleepy = await score(pairs, `import time\n${PAIRS_FAST.replace('count = 0', 'count = 0\n        time.sleep(0.2)')}`, {
      timing_runs: 2,
    });
    for (const s of [fast, slow, sleepy]) expect(s.status).toBe('passed');
    expect(fast.references).toEqual({ passed: 2, total: 2 });
    expect(fast.rounds).toBe(5);
    expect(fast.beyond!).toBeGreaterThan(0.9);
    // By wall time it would be the slowest of all (0.2 s a call); by CPU time it is among the fast.
    expect(sleepy.beyond!).toBeGreaterThan(0.5);
    expect(slow.beyond).toBe(0);
    // The slow one's runtime is well beyond the slowest reference's, the fast one's well within the range.
    expect(slow.runtime!).toBeGreaterThan(2 * slow.range![1]);
    expect(fast.runtime!).toBeLessThan(fast.range![1] / 5);
  }, 120_000);

  it("each way a sample fails gets bigcode's status and Beyond 0; a tree task's references pass", async () => {
    const easy = MERCURY_ROWS[1]!;
    const quick = { timing_runs: 2, run_time_limit: 1 };
    const statuses: string[] = [];
    for (const code of Object.values(RUNNING_SUM_FAILURES)) {
      const s = await score(easy, code, quick);
      expect(s.beyond).toBe(0);
      expect(s.runtime).toBeNull();
      statuses.push(s.status);
    }
    expect(statuses).toEqual(['failed@load', 'failed@eval', 'failed@cases', 'failed@eval', 'failed@error']);
    expect((await score(easy, '', quick)).status).toBe('failed@load');
    const tree = await score(MERCURY_ROWS[2]!, MERCURY_ROWS[2]!.solutions[1]!.solution, quick);
    expect(tree).toMatchObject({ status: 'passed', references: { passed: 2, total: 2 } });
    // References that all fail leave a passing answer unranked.
    const wrongReferences = { ...easy, solutions: [{ runtime: '1ms', solution: RUNNING_SUM_FAILURES['failed@cases'] }] };
    expect(await score(wrongReferences, RUNNING_SUM, quick)).toMatchObject({
      status: 'passed',
      references: { passed: 0, total: 1 },
      beyond: null,
    });
    // A run that dies without a word is bigcode's failed@timeout (its "sandbox time out").
    const dies = RUNNING_SUM.replace('out, total = [], 0', 'os._exit(1)');
    expect((await score(easy, `import os\n${dies}`, quick)).status).toBe('failed@timeout');
    // What a sample changes in the interpreter dies with its run: the references after it are untouched.
    const sabotage = await score(MERCURY_ROWS[0]!, `collections.Counter = None\n${PAIRS_QUADRATIC}`, quick);
    expect(sabotage).toMatchObject({ status: 'passed', references: { passed: 2, total: 2 } });
    // A report cut short is none: the run counts as killed.
    const [problem] = load(mercuryJsonl([easy]));
    const cut = mercuryFamily.score(problem!, { status: 'passed', stdout: '__explora_mercury_result__ {"candidate": {"sta' });
    expect(MERCURY_SCORES.recordScore(cut as never)).toMatchObject({ status: 'failed@timeout', beyond: 0 });
    expect(MERCURY_STATUSES).toContain(statuses[0]);
  }, 120_000);

  it("solutions that use bigcode's namespace modules pass: sortedcontainers (SortedList) and lctk", async () => {
    const easy = MERCURY_ROWS[1]!;
    const quick = { timing_runs: 2, run_time_limit: 1 };
    const sortedList = RUNNING_SUM.replace('out, total = [], 0', 'seen = SortedList()\n        out, total = [], 0').replace(
      'total += x',
      'seen.add(x)\n            total += x',
    );
    // As LeetCode solutions write it: the solution's own import.
    expect(await score(easy, `from sortedcontainers import SortedList\n${sortedList}`, quick)).toMatchObject({ status: 'passed' });
    // The modules bigcode's namespace imports, used without an import of the solution's own.
    const namespaced = sortedList
      .replace('seen = SortedList()', 'seen = sortedcontainers.SortedList()')
      .replace('return out', 'assert lctk.linkedList2Arr(lctk.linkedList(out)) == out\n        return out');
    expect(await score(easy, namespaced, quick)).toMatchObject({ status: 'passed', references: { passed: 2, total: 2 } });
  }, 60_000);
});
