/**
 * StudentEval through its family, on rows in wellesley-easel/StudentEval's published format
 * (test/support/studenteval-rows.ts), against bigcode's own task written out in
 * test/families/studenteval_reference.py: the rows kept (those in a subset), the prompts, stop
 * words, the solutions a model's raw continuations become (the request's stop words applied, then
 * the family's solution), the programs run, each run's success (bigcode runs them with python3),
 * and process_results' figures per subset, including its edge cases: two students' identical
 * prompts in one subset counted as one prompt, a prompt ending in blanks, a subset absent, prompts
 * whose samples all pass or all fail, and many prompts with uneven samples (pandas' mean).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bigcodeTask, FAMILIES } from '../../domain/families/registry.js';
import { STUDENTEVAL_SCORES, studentEvalResults, type StudentEvalFigures } from '../../domain/families/studenteval/groupScores.js';
import { studentEvalFamily, STUDENTEVAL_STOP_WORDS } from '../../domain/families/studenteval/index.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { stopSentTo } from '../../domain/sweep/config.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { jsonl, STUDENTEVAL_GENERATIONS, STUDENTEVAL_ROWS } from '../support/studenteval-rows.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'studenteval_reference.py');

interface Reference {
  kept: number;
  stop_words: string[];
  prompts?: string[];
  solutions?: string[][];
  programs?: string[][];
  successes?: number[][];
  results: Array<{ group: string; pass1: number }>;
}

const bigcode = (input: object): Reference =>
  JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify(input) }).toString()) as Reference;

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

const load = (text = jsonl(STUDENTEVAL_ROWS), source = 'test.jsonl') =>
  studentEvalFamily.load({
    entry: { name: 'se', family: 'studenteval', path: source },
    texts: { rows: text },
    sources: { rows: source },
  });

/** The cell's figures as the score kind folds them: each task's samples added with their pass or fail. */
function figuresOf(problems: readonly SweepProblem[], outcomes: readonly number[][]): StudentEvalFigures | null {
  const kind = STUDENTEVAL_SCORES;
  const cell = kind.newCell();
  const tasks = problems.map((problem, t) => {
    let state: unknown;
    for (const [i, passed] of outcomes[t]!.entries())
      state = kind.add(cell, state, kind.recordScore({ kind: 'studenteval', passed: passed === 1, success: true }), {
        problem,
        taskId: problem.task_id,
        sampleIndex: i,
        passed: passed === 1,
      });
    return { n: outcomes[t]!.length, c: outcomes[t]!.filter((s) => s === 1).length, state };
  });
  return kind.figures(cell, tasks, [1]) as StudentEvalFigures | null;
}

/** pandas' float mean and numpy's product differ from a loop's in the last bits at most. */
function expectResults(actual: Array<{ group: string; pass1: number }>, expected: Array<{ group: string; pass1: number }>) {
  expect(actual.map((r) => r.group)).toEqual(expected.map((r) => r.group));
  actual.forEach((r, i) => expect(r.pass1).toBeCloseTo(expected[i]!.pass1, 12));
}

describe('StudentEval', () => {
  it("keeps bigcode's rows; prompts, stop words, solutions, programs and each run's success are bigcode's", () => {
    const reference = bigcode({ rows: STUDENTEVAL_ROWS, generations: STUDENTEVAL_GENERATIONS, execute: true });
    const { problems, notes } = load();
    expect(problems).toHaveLength(reference.kept);
    expect(problems.map((p) => p.task_id)).toEqual([
      'studenteval/remove_odd/student0/first-failure',
      'studenteval/remove_odd/student0/last-success',
      'studenteval/remove_odd/student1/first-success',
      'studenteval/remove_odd/student2/first-success',
      'studenteval/add_up/student1/first-failure',
      'studenteval/add_up/student3/last-failure',
    ]);
    expect(notes).toEqual(['test.jsonl: 1 rows in none of the four subsets left out (as bigcode does), 6 prompts kept']);
    expect(problems.map((p) => studentEvalFamily.completionPrompt(p))).toEqual(reference.prompts);
    const entry = FAMILIES.studenteval.entrySchema.parse({ name: 'se', family: 'studenteval', path: 'test.jsonl' });
    expect(studentEvalFamily.stopWords(entry)).toEqual(reference.stop_words);
    // As a sweep makes them: the endpoint stops at the request's stop words, the extraction cuts at the cell's, then the family.
    const stops = studentEvalFamily.stopWords(entry);
    const solutions = problems.map((p, t) =>
      STUDENTEVAL_GENERATIONS[t]!.map((g) =>
        studentEvalFamily.solution(p, 'completions', truncateAtStopWords(truncateAtStopWords(g, stopSentTo(stops, {})), stops)),
      ),
    );
    expect(solutions).toEqual(reference.solutions);
    // A file's raw completions (no endpoint in between) are bigcode's too: the family cuts at the first stop word.
    expect(problems.map((p, t) => STUDENTEVAL_GENERATIONS[t]!.map((g) => studentEvalFamily.solution(p, 'completions', g)))).toEqual(
      reference.solutions,
    );
    const programs = solutions.map((s, t) =>
      s.map((solution) => LANGUAGES.python.assemble({ solution, tests: studentEvalFamily.tests(problems[t]!, null) })),
    );
    expect(programs).toEqual(reference.programs);
    // The runs bigcode made: some pass, some fail an assertion, some crash (the e2e runs them in the sandbox).
    expect(reference.successes).toEqual([
      [1, 0, 0],
      [1, 1, 0],
      [1, 1, 0],
      [0, 0, 1],
      [1, 0, 1],
      [0, 0, 0],
    ]);
    const figures = figuresOf(problems, reference.successes!)!;
    expectResults(studentEvalResults(figures), reference.results);
    // The two identical first-success prompts are one prompt of six samples: 3 of 6 pass.
    expect(figures.groups).toEqual([
      { group: 'First Failure', pass1: expect.closeTo((1 / 3 + 2 / 3) / 2, 12), prompts: 2 },
      { group: 'First Success', pass1: expect.closeTo(0.5, 12), prompts: 1 },
      { group: 'Last Failure', pass1: 0, prompts: 1 },
      { group: 'Last Success', pass1: expect.closeTo(2 / 3, 12), prompts: 1 },
    ]);
  });

  it('the aggregation on many prompts with uneven samples, all passing, all failing, and a subset absent', () => {
    // 240 rows over 6 problems, in three of the four subsets; 1 to 12 samples each, outcomes from a fixed generator.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    const flags = ['first_failure', 'first_success', 'last_failure'] as const;
    const rows = Array.from({ length: 240 }, (_, i) => {
      const base = STUDENTEVAL_ROWS[i % 2 === 0 ? 0 : 5]!;
      const flag = flags[i % 3]!;
      return {
        ...base,
        problem: `${base.problem}_${i % 6}`,
        username: `student${i}`,
        // Every fifth row repeats its neighbour's prompt: the same (problem, prompt, group) twice.
        prompt: `${base.prompt}# ${i % 5 === 0 && i > 0 ? i - 6 : i}\n`,
        is_first_success: flag === 'first_success',
        is_last_success: false,
        is_first_failure: flag === 'first_failure',
        is_last_failure: flag === 'last_failure',
      };
    });
    const outcomes = rows.map((_, i) => {
      const n = 1 + (i % 12);
      if (i % 7 === 0) return Array<number>(n).fill(1);
      if (i % 11 === 0) return Array<number>(n).fill(0);
      return Array.from({ length: n }, () => (random() < 0.4 ? 1 : 0));
    });
    const reference = bigcode({ rows, outcomes });
    const problems = load(jsonl(rows)).problems;
    expect(problems).toHaveLength(240);
    const figures = figuresOf(problems, outcomes)!;
    expectResults(studentEvalResults(figures), reference.results);
    expect(figures.groups.map((g) => g.group)).toEqual(['First Failure', 'First Success', 'Last Failure']);
    expect(figures.groups.reduce((sum, g) => sum + g.prompts, 0)).toBeLessThan(240);
  });

  it('chat answers, saved generations, limits, scores and the metrics lines', () => {
    const [p] = load().problems;
    const body = '    return [x for x in lst if x % 2 == 0]';
    const fn = `def remove_odd(lst):\n${body}`;
    expect(studentEvalFamily.solution(p!, 'chat', fn)).toBe(fn);
    expect(studentEvalFamily.solution(p!, 'chat', body)).toBe(`${studentEvalFamily.completionPrompt(p!)}\n${body}`);
    expect(studentEvalFamily.solution(p!, 'saved', fn)).toBe(fn);
    expect(studentEvalFamily.referenceSolution(p!)).toBeNull();
    // bigcode gives each program 15 s; a longer sweep timeout is kept.
    expect(studentEvalFamily.limits(p!, null, 3000)).toEqual({ timeoutMs: 15_000 });
    expect(studentEvalFamily.limits(p!, null, 30_000)).toEqual({ timeoutMs: 30_000 });
    expect(studentEvalFamily.score(p!, { status: 'passed', stdout: '' })).toEqual({ kind: 'studenteval', passed: true, success: true });
    expect(studentEvalFamily.score(p!, { status: 'timeout', stdout: '' })).toMatchObject({ passed: false });
    expect(studentEvalFamily.score(p!, { status: 'failed', stdout: '' })).toMatchObject({ passed: false });
    const figures = figuresOf(load().problems, [[1], [1], [0], [0], [1], [0]])!;
    const parts = { passAtK: { 'pass@1': 0.5 }, alsoText: {}, nSamples: 1 };
    // bigcode's evaluation_results.json holds process_results's list; evaluate.ts's line leads with pass@k.
    expect(STUDENTEVAL_SCORES.metricsLine(figures, { ...parts, style: 'bigcode' })).toEqual([
      { group: 'First Failure', pass1: 1 },
      { group: 'First Success', pass1: 0 },
      { group: 'Last Failure', pass1: 0 },
      { group: 'Last Success', pass1: 1 },
    ]);
    expect(STUDENTEVAL_SCORES.metricsLine(figures, { ...parts, style: 'evaluate' })).toEqual({
      'pass@1': 0.5,
      studenteval: studentEvalResults(figures),
    });
  });

  it("evaluate.ts recognises the rows and bigcode's task name; a JSON array reads the same", () => {
    const text = jsonl(STUDENTEVAL_ROWS);
    expect(recognizeFamily(text, 'test.jsonl')).toBe('studenteval');
    expect(bigcodeTask('studenteval')).toEqual({ family: 'studenteval', options: {}, cell: {} });
    expect(loadEvaluateProblems({ text, source: 'test.jsonl' }).problems).toEqual(load(text).problems);
    expect(loadEvaluateProblems({ text: JSON.stringify(STUDENTEVAL_ROWS), source: 'test.json' }).problems).toEqual(
      load(text, 'test.json').problems,
    );
  });

  it('bad rows are refused naming the file, the line and the field', () => {
    const bad = (i: number, patch: object) => jsonl(STUDENTEVAL_ROWS.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    expect(() => load(bad(1, { assertions: undefined }))).toThrow(/^test\.jsonl:2: assertions: /);
    expect(() => load(bad(2, { is_first_success: 'yes' }))).toThrow(/^test\.jsonl:3: is_first_success: /);
    expect(() => load(bad(4, { username: 'student1' }))).toThrow(
      "test.jsonl:5: student1's First Success prompt for remove_odd is given twice (first on line 4): StudentEval has one per student, problem and subset",
    );
    expect(() => load('')).toThrow('test.jsonl has no tasks');
    expect(() => load(jsonl([STUDENTEVAL_ROWS[1]!]))).toThrow('test.jsonl has no tasks: none of its 1 rows is in a subset');
    expect(STUDENTEVAL_STOP_WORDS).toEqual(['\ndef', '\nclass', '\nif', '\nprint']);
  });
});
