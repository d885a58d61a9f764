/**
 * HumanEvalExplain (humanevalexplain) on HumanEvalPack rows in their published format
 * (test/support/humanevalpack-rows.ts) against bigcode's own code written out in
 * test/families/humanevalexplain_reference.py: for every `--prompt` format bigcode builds for it and
 * both languages, the describe prompts, the descriptions a model's raw answers become (the cut to
 * the docstring's length, the stop words, the solution lines removed), the synthesize prompts built
 * from them (a sweep's second step, and evaluate.ts's `--load_data_path` in bigcode's get_dataset
 * order, one task per (row, description)), the solutions and the programs run equal bigcode's. The
 * describe file's errors are named; the runs themselves are humanevalpack's (its own tests).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { humanEvalExplainFamily, readDescriptions, refusedExplainPrompt } from '../../domain/families/humanevalexplain/index.js';
import { PACK_PROMPTS, type PackPrompt } from '../../domain/families/humanevalpack/prompts.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { parseSweepConfig } from '../../domain/sweep/config.js';
import { loadEvaluateProblems } from '../../scripts/lib/evaluate-problems.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { JS_GENERATIONS, JS_ROWS, jsonl, PYTHON_GENERATIONS, PYTHON_ROWS } from '../support/humanevalpack-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'humanevalexplain_reference.py');

interface Job {
  language: 'python' | 'js';
  prompt: PackPrompt;
  rows: unknown[];
  describe_generations: string[][];
  synthesize_generations: string[][];
}
interface Reference {
  describe_prompts: string[];
  stop_words: string[];
  descriptions: string[][];
  synthesize_prompts: string[];
  solutions: string[][];
  programs: string[][];
}

const bigcode = (jobs: Job[]): Reference[] =>
  JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify(jobs), maxBuffer: 1 << 28 }).toString()) as Reference[];

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

/**
 * Raw answers to the describe prompt, per row: a short description; one longer than the docstring
 * (cut to its length, in code points: an emoji counts one); one quoting a solution line of more than
 * 20 characters (removed) and one of 20 or fewer (kept); spaces around; an empty answer; one going
 * on after a stop word (Python's \n# and \ndef; <|endoftext|> in every format).
 */
const describeAnswers = (solutionLine: string, shortLine: string): string[] => [
  '  Checks whether any two numbers are close.\n',
  '🙂 ' + 'A long description that goes on and on. '.repeat(12),
  `It runs \`${solutionLine}\` and then ${shortLine} at the end.`,
  '',
  'Returns the result.\n# a comment after\ndef more(): pass<|endoftext|>',
  'Says whether it holds.<|endoftext|>then garbage',
];
/**
 * The one place explora and bigcode differ: a stop word that begins within the docstring's length
 * and ends past it. bigcode cuts to the length first and keeps the stop word's start ("<|endo"); the
 * endpoint has already dropped the whole stop word. None of these answers does that.
 *
 * The cut's edges: solution lines of 21 characters (removed) and 20 (kept) once stripped, and a
 * docstring whose length differs in code points and UTF-16 units (bigcode counts code points).
 */
const EDGE_ROW = {
  ...PYTHON_ROWS[1]!,
  task_id: 'Python/3',
  canonical_solution: '    x = number % 10000000\n    y = number % 1000000\n    return number % 1.0\n',
  docstring: '🙂🙂 Return the decimal part of the number, which is always smaller than one.',
};
const EDGE_ANSWERS = ['It sets x = number % 10000000 and y = number % 1000000.', '🙂🙂🙂 ' + 'And so on. '.repeat(8)];
const DESCRIBE = {
  python: [
    describeAnswers('for idx, elem in enumerate(numbers):', 'return False'),
    describeAnswers('return number % 1.0', 'return number % 1.0'),
    EDGE_ANSWERS,
  ],
  js: [
    describeAnswers('for (let i = 0; i < numbers.length; i++) {', 'return false;'),
    describeAnswers('return number % 1.0;', 'return number % 1.0;'),
  ],
};
const DATA = {
  python: { rows: [...PYTHON_ROWS, EDGE_ROW], generations: [...PYTHON_GENERATIONS, PYTHON_GENERATIONS[1]!] },
  js: { rows: JS_ROWS, generations: JS_GENERATIONS },
} as const;

/** As a request with stop words returns them: ended by a stop word (<|endoftext|> where none occurs). */
const ended = (g: string) => (/\n(class|def|#|@|print|if|assert)|<\|endoftext\|>/.test(g) ? g : `${g}<|endoftext|>`);

/** Each (row, description) item's synthesize answers: the row's HumanEvalSynthesize continuations, two a description. */
const synthesizeAnswers = (language: 'python' | 'js') =>
  DATA[language].rows.flatMap((_, t) =>
    DESCRIBE[language][t]!.map((_d, j) =>
      [0, 1].map((k) => ended(DATA[language].generations[t]![(j + k) % DATA[language].generations[t]!.length]!)),
    ),
  );

const entry = (language: 'python' | 'js', prompt: PackPrompt) => ({
  name: 'hee',
  family: 'humanevalexplain' as const,
  path: 'humanevalpack.jsonl',
  language,
  prompt,
});
const load = (language: 'python' | 'js', prompt: PackPrompt) =>
  humanEvalExplainFamily.load({
    entry: entry(language, prompt),
    texts: { rows: jsonl(DATA[language].rows) },
    sources: { rows: 'humanevalpack.jsonl' },
  }).problems;

const programOf = (problem: SweepProblem, solution: string) => {
  const code = humanEvalExplainFamily
    .embedSolution(problem, solution)
    .replace(/^for \(const stream of \[process\.stdout, process\.stderr\]\).*\n/, '');
  return LANGUAGES[humanEvalExplainFamily.language(problem)].assemble({
    solution: code,
    tests: humanEvalExplainFamily.tests(problem, null),
  });
};

describe("HumanEvalExplain against bigcode's humanevalpack.py", () => {
  const jobs: Job[] = [];
  for (const language of ['python', 'js'] as const)
    for (const prompt of PACK_PROMPTS)
      if (refusedExplainPrompt(prompt) === null)
        jobs.push({
          language,
          prompt,
          rows: DATA[language].rows as unknown[],
          describe_generations: DESCRIBE[language].map((gens) => gens.map(ended)),
          synthesize_generations: synthesizeAnswers(language),
        });

  it('covers every format bigcode builds for HumanEvalExplain, in both languages', () => {
    // HumanEvalPack's 19 generic formats but continue (bigcode asserts it has no context).
    expect(jobs.length).toBe(2 * 18);
  });

  it("every describe prompt, description, synthesize prompt, solution and program is bigcode's", () => {
    const references = bigcode(jobs);
    jobs.forEach((job, j) => {
      const reference = references[j]!;
      const what = `${job.language} ${job.prompt}`;
      const problems = load(job.language, job.prompt);
      expect(
        problems.map((p) => p.prompt),
        what,
      ).toEqual(reference.describe_prompts);
      const stops = humanEvalExplainFamily.stopWords(entry(job.language, job.prompt));
      expect(stops, what).toEqual(reference.stop_words);

      // A sweep's second step: each describe answer (as the endpoint returns it) becomes the synthesize problem.
      const next = problems.flatMap((p, t) =>
        job.describe_generations[t]!.map((g) => humanEvalExplainFamily.nextStep!(p, truncateAtStopWords(g, stops))!),
      );
      expect(
        next.map((p) => humanEvalExplainFamily.read(p).humanevalexplain.description),
        what,
      ).toEqual(reference.descriptions.flat());
      expect(
        next.map((p) => p.prompt),
        what,
      ).toEqual(reference.synthesize_prompts);
      expect(next.every((p) => humanEvalExplainFamily.nextStep!(p, 'again') === undefined)).toBe(true);
      if (job.language === 'python')
        expect(reference.descriptions[2], what).toEqual([expect.stringContaining('y = number % 1000000'), expect.any(String)]);

      // evaluate.ts: bigcode's describe generations file (--load_data_path), one task per (row, description).
      const read = loadEvaluateProblems({
        text: jsonl(job.rows),
        source: 'h.jsonl',
        family: 'humanevalexplain',
        options: {
          subset: `explainsynthesize-${job.language}`,
          prompt: job.prompt,
          load_data_path: { path: 'describe.json', text: JSON.stringify(reference.descriptions) },
        },
      }).problems;
      expect(
        read.map((p) => p.prompt),
        what,
      ).toEqual(reference.synthesize_prompts);
      expect(read.slice(0, 2).map((p) => p.task_id)).toEqual([
        `${job.language === 'python' ? 'Python' : 'JavaScript'}/0#0`,
        `${job.language === 'python' ? 'Python' : 'JavaScript'}/0#1`,
      ]);

      const solutions = read.map((p, i) =>
        job.synthesize_generations[i]!.map((g) => humanEvalExplainFamily.solution(p, 'completions', truncateAtStopWords(g, stops))),
      );
      expect(solutions, what).toEqual(reference.solutions);
      expect(
        next.map((p, i) => solutions[i]!.map((s) => programOf(p, s))),
        what,
      ).toEqual(reference.programs);
      expect(read.map((p, i) => humanEvalExplainFamily.solution(p, 'saved', reference.solutions[i]![0]!))).toEqual(
        reference.solutions.map((s) => s[0]),
      );
    });
  }, 120_000);
});

describe("evaluate.ts's reading of the describe step's file, and what is refused", () => {
  const ids = ['Python/0', 'Python/2'];
  const twoRows = jsonl(PYTHON_ROWS);

  it("reads bigcode's lists and JSON Lines rows, and names what is wrong", () => {
    expect(readDescriptions('[["a", "b"], ["c"]]', 'd.json', ids)).toEqual([['a', 'b'], ['c']]);
    const rows = jsonl([
      { task_id: 'Python/2', description: 'c' },
      { task_id: 'Python/0', description: 'a' },
      { task_id: 'Python/0', description: 'b' },
    ]);
    expect(readDescriptions(rows, 'd.jsonl', ids)).toEqual([['a', 'b'], ['c']]);
    expect(() => readDescriptions('[["a"]]', 'd.json', ids)).toThrow(/d\.json: 1 lists of descriptions, but the problems have 2 tasks/);
    expect(() => readDescriptions('[["a"], "b"]', 'd.json', ids)).toThrow(/d\.json\[1\] \(task Python\/2\): is a string, not a list/);
    expect(() => readDescriptions('[["a"], [3]]', 'd.json', ids)).toThrow(/d\.json\[1\]\[0\] \(task Python\/2\): is a number/);
    expect(() => readDescriptions('[["a"], []]', 'd.json', ids)).toThrow(/no descriptions/);
    expect(() => readDescriptions(jsonl([{ task_id: 'Python/9', description: 'x' }]), 'd.jsonl', ids)).toThrow(
      /d\.jsonl:1: task_id "Python\/9" is not a task of the problems file/,
    );
    expect(() => readDescriptions(jsonl([{ task_id: 'Python/0', description: 'x' }]), 'd.jsonl', ids)).toThrow(
      /no description for 1 of the 2 tasks \(Python\/2\)/,
    );
    expect(() => readDescriptions('', 'd.json', ids)).toThrow(/empty/);
  });

  it('one description a row keeps the row task ids; describe has no score; synthesize needs --load_data_path', () => {
    const read = (options: Record<string, unknown>) =>
      loadEvaluateProblems({ text: twoRows, source: 'h.jsonl', family: 'humanevalexplain', options }).problems;
    const one = read({ load_data_path: { path: 'd.json', text: '[["a"], ["b"]]' } });
    expect(one.map((p) => p.task_id)).toEqual(ids);
    expect(() => read({ subset: 'explaindescribe-python' })).toThrow(/has no score .*--load_data_path/);
    expect(() => read({ subset: 'explainsynthesize-python' })).toThrow(/give the describe step's generations with --load_data_path/);
    expect(() => read({ subset: 'explainsynthesize-js', load_data_path: { path: 'd.json', text: '[]' } })).toThrow(/holds python rows/);
    expect(() => read({ prompt: 'continue', load_data_path: { path: 'd.json', text: '[["a"], ["b"]]' } })).toThrow(
      /HumanEvalSynthesize only/,
    );
    const tasks = humanEvalExplainFamily.evaluate.kind === 'reads' ? humanEvalExplainFamily.evaluate.bigcodeTasks! : undefined;
    expect(tasks!.read('humanevalexplainsynthesize-js')).toEqual({ options: { subset: 'explainsynthesize-js' } });
    expect(tasks!.read('humanevalexplaindescribe-python')).toEqual({ options: { subset: 'explaindescribe-python' } });
    expect(tasks!.read('humanevalsynthesize-python')).toBeNull();
    expect(humanEvalExplainFamily.entrySchema.safeParse(entry('python', 'issue')).error?.message).toContain('HumanEvalFix format');
  });
});

describe('a sweep config with HumanEvalExplain', () => {
  const config = (methods: string[]) => ({
    datasets: [{ name: 'hee', family: 'humanevalexplain', path: 'humanevalpack.jsonl', language: 'python' }],
    models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x', api: 'chat' }],
    methods,
    temperatures: [0.2],
    n_samples: 2,
    k: [1],
  });

  it('takes direct, which asks both steps, and refuses the other methods by name', () => {
    expect(parseSweepConfig(config(['direct'])).datasets[0]).toMatchObject({ family: 'humanevalexplain', prompt: 'instruct' });
    expect(() => parseSweepConfig(config(['direct', 'self-repair']), 'sweep.yaml')).toThrow(
      'methods[1]: datasets[0] (hee) is asked in two steps, which only method direct asks',
    );
  });
});
