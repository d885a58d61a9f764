/**
 * ReCode's perturbed HumanEval (family recode) against bigcode's own code written out in
 * test/families/recode_reference.py, on rows in the published format (test/support/recode-rows.ts):
 * the rows num_seeds keeps, the prompts, stop words, the solutions a model's raw continuations
 * become, the programs run; and the cell's robust figures, folded from records as a sweep's cell and
 * evaluate.ts fold them, equal to bigcode's process_results on the same outcomes: seeds partly
 * passing, several samples per variant, seeds with different sample counts (bigcode's zip and its
 * first seed's n), one-seed perturbations, and ReCode's robust pass@k beside them (k > n dropped).
 * The runs' outcomes are compared with bigcode's in recode.e2e.test.ts (the sandbox).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { RECODE_STOP_WORDS, recodeFamily, recodeProblems } from '../../domain/families/recode/index.js';
import { bigcodeTask, FAMILIES } from '../../domain/families/registry.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { scoreFields, type SampleRecord } from '../../domain/sweep/records.js';
import { cellFigures } from '../../domain/sweep/peerFiles.js';
import { summarizeCell } from '../../domain/sweep/results.js';
import { stopSentTo } from '../../domain/sweep/config.js';
import { compareCells, ComparedTaskSchema, type ComparedCell, type ComparedTask } from '../../domain/compare/compare.js';
import { mcnemarExact } from '../../domain/compare/stats.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import {
  jsonl,
  RECODE_FORMAT_GENERATIONS,
  RECODE_FORMAT_ROWS,
  RECODE_FUNC_NAME_GENERATIONS,
  RECODE_FUNC_NAME_ROWS,
  RECODE_NATGEN_GENERATIONS,
  RECODE_NATGEN_ROWS,
} from '../support/recode-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'recode_reference.py');

interface Reference {
  kept: Array<[string, string, number]>;
  prompts: string[];
  stop_words: string[];
  solutions: string[][];
  tests: string[];
  metrics?: Record<string, Record<string, number>>;
  robust_pass_at_k?: Record<string, Record<string, number>>;
}

const bigcode = (input: { rows: unknown[]; num_seeds: number; generations: string[][]; passed?: boolean[][]; ks?: number[] }): Reference =>
  JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify({ generation_form: 'raw', ...input }) }).toString()) as Reference;

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

const load = (rows: readonly unknown[], numSeeds: number) => recodeProblems(jsonl(rows), numSeeds, 'func_name.jsonl').problems;

/** A sweep's solution of a raw continuation: the endpoint stops at the request's stop words (the first four), the family cuts at all. */
function solutionOf(problem: SweepProblem, continuation: string): string {
  const answer = truncateAtStopWords(continuation, stopSentTo(RECODE_STOP_WORDS, {}));
  return recodeFamily.solution(problem, 'completions', answer);
}

/** The records a cell folds: per problem, its samples' outcomes (outcomes[t][i]: sample i of problem t passed). */
function records(problems: readonly SweepProblem[], outcomes: readonly boolean[][]): SampleRecord[] {
  return problems.flatMap((p, t) =>
    outcomes[t]!.map((passed, i) => ({
      task_id: p.task_id,
      task_index: t,
      sample_index: i,
      raw: '',
      code: '',
      solution: '',
      status: passed ? ('passed' as const) : ('failed' as const),
      ...scoreFields(recodeFamily.score(p, { status: passed ? 'passed' : 'failed', stdout: '' })),
      duration_ms: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      calls: 0,
    })),
  );
}

/** The cell's summary from the records, as a sweep's cell and evaluate.ts make it. */
function cell(problems: SweepProblem[], outcomes: readonly boolean[][], k: number[]) {
  return summarizeCell({ problems, records: records(problems, outcomes), k, cell: { dataset: 'recode' }, wallSeconds: 0, resultsKey: 'r' })
    .summary;
}

/** Figures equal to rounding, keys in the same order. */
function expectFigures(mine: unknown, reference: unknown) {
  if (typeof reference === 'number') return expect(mine as number).toBeCloseTo(reference, 12);
  expect(Object.keys(mine as object)).toEqual(Object.keys(reference as object));
  for (const [key, value] of Object.entries(reference as object)) expectFigures((mine as Record<string, unknown>)[key], value);
}

describe("prompts, stop words, solutions and programs are bigcode's", () => {
  it.each([1, 3, 10])('func_name rows, num_seeds %i: the rows kept, their prompts, solutions and tests', (numSeeds) => {
    const reference = bigcode({ rows: RECODE_FUNC_NAME_ROWS, num_seeds: numSeeds, generations: RECODE_FUNC_NAME_GENERATIONS });
    const problems = load(RECODE_FUNC_NAME_ROWS, numSeeds);
    expect(problems.map((p) => p.task_id)).toEqual(reference.kept.map(([task, perturbation, seed]) => `${task}/${perturbation}/s${seed}`));
    expect(problems.map((p) => recodeFamily.completionPrompt(p))).toEqual(reference.prompts);
    expect(recodeFamily.stopWords({} as never)).toEqual(reference.stop_words);
    const generations = RECODE_FUNC_NAME_ROWS.flatMap((r, t) => (r.seed < numSeeds ? [RECODE_FUNC_NAME_GENERATIONS[t]!] : []));
    const solutions = problems.map((p, t) => generations[t]!.map((g) => solutionOf(p, g)));
    expect(solutions).toEqual(reference.solutions);
    // bigcode runs candidate + "\n" + its test code: the program Python's assemble makes.
    problems.forEach((p, t) =>
      solutions[t]!.forEach((solution) =>
        expect(LANGUAGES.python.assemble({ solution, tests: recodeFamily.tests(p, null) })).toBe(`${solution}\n${reference.tests[t]}`),
      ),
    );
  });

  it('format and natgen rows: prompts ending in a comment, blank lines or half a body are stripped; the dataset solution continues the prompt as written', () => {
    const rows = [...RECODE_FORMAT_ROWS, ...RECODE_NATGEN_ROWS];
    const generations = [...RECODE_FORMAT_GENERATIONS, ...RECODE_NATGEN_GENERATIONS];
    const reference = bigcode({ rows, num_seeds: 1, generations });
    const problems = load(rows, 1);
    expect(problems.map((p) => recodeFamily.completionPrompt(p))).toEqual(reference.prompts);
    expect(reference.prompts[0]!.endsWith('# 0.5')).toBe(true);
    expect(reference.prompts[2]!.endsWith('        return None')).toBe(true);
    const solutions = problems.map((p, t) => generations[t]!.map((g) => solutionOf(p, g)));
    expect(solutions).toEqual(reference.solutions);
    // natgen's released solution starts with a comment: bigcode's `\n#` leaves the prompt alone.
    expect(solutions[2]![1]).toBe(reference.prompts[2]);
    // The reference solution is the row's prompt and solution (bigcode strips the prompt; its solution needs what followed).
    problems.forEach((p, t) =>
      expect(recodeFamily.referenceSolution(p)).toBe(rows[t]!.prompt.replace(/^\n+/, '') + rows[t]!.canonical_solution),
    );
  });

  it('an answer with no stop word is kept whole; chat answers and saved generations', () => {
    const [p] = load(RECODE_FUNC_NAME_ROWS, 1);
    expect(recodeFamily.solution(p!, 'completions', '\n    return number % 1.0')).toBe(`${p!.prompt}\n    return number % 1.0`);
    // A model's own `stop` may leave bigcode's words in: the family cuts at the first.
    expect(recodeFamily.solution(p!, 'completions', '\n    return 1\n@x\nprint(2)')).toBe(`${p!.prompt}\n    return 1`);
    const chat = 'def trunacte_number(number: float) -> float:\n    return number % 1.0';
    expect(recodeFamily.solution(p!, 'chat', chat)).toBe(chat);
    expect(recodeFamily.solution(p!, 'saved', 'anything')).toBe('anything');
    expect(recodeFamily.score(p!, { status: 'timeout', stdout: '' })).toEqual({ kind: 'recode', passed: false, success: false });
  });
});

/** The func_name rows of seeds 0-2 (12 variants), two samples each: seeds partly passing. */
const TWO_SAMPLES: boolean[][] = [
  [true, true],
  [true, true],
  [false, true],
  [true, false],
  [false, true],
  [true, true],
  [true, true],
  [true, true],
  [true, false],
  [true, true],
  [false, true],
  [false, false],
];

describe("the robust figures are bigcode's process_results on the same outcomes", () => {
  it('two samples a variant: per perturbation, robust-pass-at-1 and alt-robust-pass-at-1; robust pass@k beside them', () => {
    const problems = load(RECODE_FUNC_NAME_ROWS, 3);
    const kept = RECODE_FUNC_NAME_ROWS.filter((r) => r.seed < 3);
    const reference = bigcode({ rows: kept, num_seeds: 3, generations: kept.map(() => []), passed: TWO_SAMPLES, ks: [1, 2, 5] });
    const summary = cell(problems, TWO_SAMPLES, [1, 2, 5]);
    // bigcode's file: its keys alone, in its order.
    expectFigures(cellFigures(summary, 'bigcode'), reference.metrics);
    expect(Object.keys(reference.metrics!)).toEqual(['FuncRenameSwapChar', 'FuncRenameCamelCase']);
    // SwapChar: task 2 robust at position 0 only, 23 at position 1 only, 53 at neither; CamelCase: one seed, its pass rate.
    expect(reference.metrics!.FuncRenameSwapChar!['robust-pass-at-1']).toBeCloseTo(1 / 3, 12);
    expect(reference.metrics!.FuncRenameCamelCase!['robust-pass-at-1']).toBeCloseTo(1 / 2, 12);
    // evaluate.ts's line: pass@k over the variants, then per perturbation bigcode's two and robust pass@k (k = 5 > n dropped).
    const line = cellFigures(summary, 'evaluate');
    expect(line['pass@1']).toBeCloseTo(17 / 24, 12);
    for (const name of Object.keys(reference.metrics!))
      expectFigures(line[name], { ...reference.metrics![name], ...reference.robust_pass_at_k![name] });
    expect(Object.keys(reference.robust_pass_at_k!.FuncRenameSwapChar!)).toEqual(['robust-pass@1', 'robust-pass@2']);
    expect(reference.robust_pass_at_k!.FuncRenameSwapChar!['robust-pass@1']).toBeCloseTo(
      reference.metrics!.FuncRenameSwapChar!['robust-pass-at-1']!,
      12,
    );
  });

  it('three samples a variant, and one sample: greedy robust pass@1 is the share of tasks every seed solves', () => {
    const problems = load(RECODE_FUNC_NAME_ROWS, 3);
    const kept = RECODE_FUNC_NAME_ROWS.filter((r) => r.seed < 3);
    const three = TWO_SAMPLES.map((o, t) => [...o, t % 3 !== 1]);
    const ref3 = bigcode({ rows: kept, num_seeds: 3, generations: kept.map(() => []), passed: three, ks: [1, 2, 3, 10] });
    const summary3 = cell(problems, three, [1, 2, 3, 10]);
    expectFigures(cellFigures(summary3, 'bigcode'), ref3.metrics);
    const line = cellFigures(summary3, 'evaluate');
    for (const name of Object.keys(ref3.metrics!)) expectFigures(line[name], { ...ref3.metrics![name], ...ref3.robust_pass_at_k![name] });
    const one = TWO_SAMPLES.map((o) => [o[0]!]);
    const ref1 = bigcode({ rows: kept, num_seeds: 3, generations: kept.map(() => []), passed: one, ks: [1, 2] });
    expectFigures(cellFigures(cell(problems, one, [1, 2]), 'bigcode'), ref1.metrics);
    // Greedy: task 2 under SwapChar passes every seed; 23 and 53 fail one.
    expect(ref1.metrics!.FuncRenameSwapChar!['robust-pass-at-1']).toBeCloseTo(1 / 3, 12);
    expect(ref1.robust_pass_at_k!.FuncRenameSwapChar).toEqual({ 'robust-pass@1': ref1.metrics!.FuncRenameSwapChar!['robust-pass-at-1'] });
  });

  it("seeds with different sample counts: bigcode's zip (the fewest) over the first seed's n", () => {
    const problems = load(RECODE_FUNC_NAME_ROWS, 3);
    const kept = RECODE_FUNC_NAME_ROWS.filter((r) => r.seed < 3);
    // Task 2 under SwapChar: seed 0 three samples, seed 1 two, seed 2 four; CamelCase's variants one to three.
    const uneven = [
      [true, true, true],
      [true],
      [true, false],
      [true, true],
      [true],
      [true, true, true],
      [true, true, true, true],
      [false, true],
      [true],
      [true, false, true],
      [true],
      [true, true],
    ];
    const reference = bigcode({ rows: kept, num_seeds: 3, generations: kept.map(() => []), passed: uneven });
    expectFigures(cellFigures(cell(problems, uneven, [1]), 'bigcode'), reference.metrics);
  });

  it('the rows of a perturbation in any order: grouped as bigcode groups them, in order of first appearance', () => {
    const shuffled = [...RECODE_FUNC_NAME_ROWS].reverse().filter((r) => r.seed < 2);
    const outcomes = shuffled.map((_, t) => [t % 2 === 0, t % 3 !== 0]);
    const reference = bigcode({ rows: shuffled, num_seeds: 2, generations: shuffled.map(() => []), passed: outcomes });
    expect(Object.keys(reference.metrics!)).toEqual(['FuncRenameCamelCase', 'FuncRenameSwapChar']);
    expectFigures(cellFigures(cell(load(shuffled, 2), outcomes, [1]), 'bigcode'), reference.metrics);
  });
});

describe('compare: robust pass@1 per perturbation, paired over the HumanEval tasks', () => {
  /** A cell as compare reads it: its results.json per_task lines, parsed as compare parses them. */
  function compared(ref: string, problems: SweepProblem[], outcomes: readonly boolean[][]): ComparedCell {
    const { results } = summarizeCell({
      problems,
      records: records(problems, outcomes),
      k: [1],
      cell: { dataset: 'recode' },
      wallSeconds: 0,
      resultsKey: 'r',
    });
    const perTask = JSON.parse(JSON.stringify(results.per_task)) as unknown[];
    return {
      ref,
      dataset: 'recode',
      model: ref,
      method: 'direct',
      temperature: 0,
      nSamples: outcomes[0]!.length,
      k: [1],
      tasks: perTask.map((t) => ComparedTaskSchema.parse(t) as ComparedTask),
    };
  }

  it("a task counts robust when every seed's sample passes: McNemar's over tasks at one sample, the cell's robust-pass-at-1 its mean", () => {
    const problems = load(RECODE_FUNC_NAME_ROWS, 3);
    const kept = RECODE_FUNC_NAME_ROWS.filter((r) => r.seed < 3);
    // A: each variant's first sample of TWO_SAMPLES-like outcomes; B: every variant passes but seed 2's.
    const a = [true, true, false, true, false, true, true, true, true, true, false, false].map((p) => [p]);
    const b = kept.map((r) => [r.seed !== 2]);
    const cmp = compareCells([compared('s/a', problems, a), compared('s/b', problems, b)]);
    const byName = new Map(cmp.pairs[0]!.metrics.map((m) => [m.metric, m]));
    expect([...byName.keys()]).toEqual(['pass@1', 'success@1', 'robust pass@1 FuncRenameSwapChar', 'robust pass@1 FuncRenameCamelCase']);
    // Independently: per (perturbation, task), robust when all its variants pass.
    const robust = (outcomes: boolean[][]) => {
      const tasks = new Map<string, boolean>();
      kept.forEach((r, i) => {
        const key = `${r.perturbation_name} ${r.task_id}`;
        tasks.set(key, (tasks.get(key) ?? true) && outcomes[i]![0]!);
      });
      return tasks;
    };
    const [ra, rb] = [robust(a), robust(b)];
    for (const perturbation of ['FuncRenameSwapChar', 'FuncRenameCamelCase']) {
      const keys = [...ra.keys()].filter((k) => k.startsWith(`${perturbation} `));
      const onlyA = keys.filter((k) => ra.get(k) && !rb.get(k)).length;
      const onlyB = keys.filter((k) => !ra.get(k) && rb.get(k)).length;
      const row = byName.get(`robust pass@1 ${perturbation}`)!;
      expect(row).toMatchObject({ test: 'mcnemar-exact', p: mcnemarExact(onlyA, onlyB) });
      expect(row.a).toBeCloseTo(keys.filter((k) => ra.get(k)).length / keys.length, 12);
      expect(row.b).toBeCloseTo(keys.filter((k) => rb.get(k)).length / keys.length, 12);
      // The cell's own figure (bigcode's robust-pass-at-1) is the mean compare tests.
      const figures = cell(problems, a, [1]).scores as unknown as {
        byPerturbation: Array<{ name: string; bigcode: Record<string, number> }>;
      };
      expect(row.a).toBeCloseTo(figures.byPerturbation.find((p) => p.name === perturbation)!.bigcode['robust-pass-at-1']!, 12);
    }
    // 12 variants, but the tests are over the 6 HumanEval tasks (3 per perturbation).
    expect(ra.size).toBe(6);
    expect(cmp.pairs[0]!.tasks).toBe(12);
  });

  it('several samples: the per-task share of robust positions, by the permutation test; old results without the lines are not compared', () => {
    const problems = load(RECODE_FUNC_NAME_ROWS, 3);
    const b = TWO_SAMPLES.map((o) => o.map(() => true));
    const cmp = compareCells([compared('s/a', problems, TWO_SAMPLES), compared('s/b', problems, b)]);
    const swap = cmp.pairs[0]!.metrics.find((m) => m.metric === 'robust pass@1 FuncRenameSwapChar')!;
    expect(swap.test).toMatch(/^permutation/);
    // bigcode's figure for A (task 2 robust at position 0 only, 23 at position 1 only, 53 at neither): 1/3; B: 1.
    expect(swap.a).toBeCloseTo(1 / 3, 12);
    expect(swap.b).toBe(1);
    const stripped = (c: ComparedCell): ComparedCell => ({ ...c, tasks: c.tasks.map(({ recode: _r, ...t }) => t as ComparedTask) });
    const old = compareCells([stripped(compared('s/a', problems, TWO_SAMPLES)), compared('s/b', problems, b)]);
    expect(old.pairs[0]!.metrics.map((m) => m.metric)).toEqual(['pass@1', 'success@1']);
  });
});

describe("bigcode's task names, evaluate.ts's options, bad rows", () => {
  it('perturbed-humaneval-<category>-num_seeds_<1..10> are read as recode with their num_seeds; others are not', () => {
    expect(bigcodeTask('perturbed-humaneval-func_name-num_seeds_3')).toEqual({ family: 'recode', options: { num_seeds: 3 }, cell: {} });
    expect(bigcodeTask('perturbed-humaneval-nlaugmenter-num_seeds_10')).toMatchObject({ options: { num_seeds: 10 } });
    for (const name of [
      'perturbed-humaneval-format-num_seeds_11',
      'perturbed-humaneval-docstring-num_seeds_5',
      'perturbed-mbpp-format-num_seeds_1',
    ])
      expect(bigcodeTask(name)).toBeUndefined();
  });

  it('evaluate.ts recognises the rows and scores those of seed < --num-seeds, the others skipped by name', () => {
    const text = jsonl(RECODE_FUNC_NAME_ROWS);
    expect(recognizeFamily(text, 'func_name.jsonl')).toBe('recode');
    const read = loadEvaluateProblems({ text, source: 'f.jsonl', options: { num_seeds: '3' } });
    expect(read.problems).toEqual(load(RECODE_FUNC_NAME_ROWS, 3).map((p) => ({ ...p })));
    expect(read.leftOut!.taskIds).toEqual([
      'HumanEval/2/FuncRenameSwapChar/s3',
      'HumanEval/23/FuncRenameSwapChar/s3',
      'HumanEval/53/FuncRenameSwapChar/s3',
    ]);
    expect(read.cell).toEqual({});
    // Without a flag: every seed the release has.
    expect(loadEvaluateProblems({ text, source: 'f.jsonl' }).problems).toHaveLength(RECODE_FUNC_NAME_ROWS.length);
    expect(() => loadEvaluateProblems({ text, source: 'f.jsonl', options: { num_seeds: '0' } })).toThrow(
      /^--num-seeds: must be at least 1/,
    );
    expect(() => FAMILIES.recode.entrySchema.parse({ name: 'r', family: 'recode', path: 'f.jsonl', num_seeds: 1.5 })).toThrow();
  });

  it('bad rows are refused naming the file, the line and the field; a variant given twice; no row kept', () => {
    const bad = (i: number, patch: object) => jsonl(RECODE_FUNC_NAME_ROWS.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    expect(() => recodeProblems(bad(1, { seed: undefined }), 10, 'f.jsonl')).toThrow(/^f\.jsonl:2: seed: /);
    expect(() => recodeProblems(bad(2, { perturbation_name: '' }), 10, 'f.jsonl')).toThrow(/^f\.jsonl:3: perturbation_name: /);
    expect(() => recodeProblems(bad(3, { seed: 0 }), 10, 'f.jsonl')).toThrow(
      'f.jsonl:4: HumanEval/2 under FuncRenameSwapChar with seed 0 is given twice (first on line 1)',
    );
    const late = jsonl(RECODE_FUNC_NAME_ROWS.filter((r) => r.seed === 3));
    expect(() => recodeProblems(late, 2, 'f.jsonl')).toThrow('f.jsonl: no row has a seed below num_seeds 2; nothing to score');
    expect(() => recodeProblems('', 2, 'f.jsonl')).toThrow('f.jsonl has no tasks');
  });
});
