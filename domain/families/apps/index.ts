/**
 * APPS (Hendrycks et al. 2021, "Measuring Coding Challenge Competence With APPS"): rows as
 * codeparrot/apps publishes them (`train.jsonl`, `test.jsonl`: problem_id, question, solutions,
 * input_output, difficulty, url, starter_code; `solutions` and `input_output` are JSON text), both
 * forms of task: call-based (`input_output.fn_name`) and standard input. The prompt is bigcode's
 * ("\nQUESTION:\n" + question + starter code + "\nUse Call-Based format" or "\nUse Standard Input
 * format" + "\nANSWER:\n"), its stop words bigcode's; each sample's test cases are scored one by one
 * as APPS's checker does (harness.ts): `test_cases` scores, whence strict accuracy (every case
 * passes: `passed`, so pass@k) and average test-case accuracy.
 */
import { z } from 'zod';
import { bigcodeNames, readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import type { DefinedFamily, ProblemOf, TaskScore } from '../types.js';
import { APPS_RESULT_MARKER, appsHarness, embeddedSolution } from './harness.js';
import { issuesLine } from '../../datasets/issues.js';
import { TEST_CASE_SCORES } from './testCaseScores.js';

export const APPS_DIFFICULTIES = ['introductory', 'interview', 'competition'] as const;
/** bigcode's APPS stop words. */
export const APPS_STOP_WORDS: readonly string[] = Object.freeze(['\nQUESTION', '\n---', '\nANSWER']);

/** The entry's stdin_form and evaluate.ts's --apps-stdin-form (a flag named before the options were the family's). */
const APPS_OPTIONS = familyOptions({
  /**
   * How a standard-input program runs. `testing-util` (default): as APPS's checker runs it
   * (testing_util.py, which codeparrot's apps_metric and bigcode use): from its first line that is
   * not an import on, the program becomes the body of `def code():`, compiled once as a module
   * (not `__main__`), and called once per test case with sys.stdin, its read methods and open()
   * patched as the checker patches them, its standard output captured. `as-written`: the program
   * runs as a script per test case (`__name__ == "__main__"`, a real standard input): programs
   * that APPS's wrapping breaks (a main guard, `global` of a top-level name) are judged on what
   * they print; not APPS's figures.
   */
  stdin_form: option(z.enum(['testing-util', 'as-written']).default('testing-util'), {
    help: "how a standard-input program runs: testing-util (as APPS's checker: wrapped into a function, default) or as-written (a script per test case)",
    value: 'form',
    flag: 'apps-stdin-form',
  }),
});

export const AppsEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('apps'),
  /** codeparrot/apps's test.jsonl or train.jsonl (.jsonl.gz too), local or s3://. */
  path: JsonlFileSchema,
  /** Which levels (bigcode's apps-introductory, apps-interview, apps-competition); absent: all. */
  difficulty: z.array(z.enum(APPS_DIFFICULTIES)).min(1).optional(),
  /** Seconds a test case may take (APPS's checker: 4). */
  test_time_limit: z.number().positive().max(60).default(4),
  /** Seconds a sample may take in all (apps_metric: 10 + 1); beyond it every test case fails. */
  program_time_limit: z.number().positive().max(600).default(11),
  ...APPS_OPTIONS.entry,
});
export type AppsEntry = z.output<typeof AppsEntrySchema>;

const RowSchema = z.looseObject({
  problem_id: z.int(),
  question: z.string().min(1),
  solutions: z.string().default(''),
  input_output: z.string(),
  difficulty: z.enum(APPS_DIFFICULTIES),
  starter_code: z.string().default(''),
});

const InputOutputSchema = z.object({
  inputs: z.array(z.unknown()).min(1, 'must have at least one test case'),
  outputs: z.array(z.unknown()),
  fn_name: z.string().min(1).optional(),
});

/** bigcode's APPS prompt. */
export function appsPrompt(question: string, starterCode: string, fnName: string | undefined): string {
  return `\nQUESTION:\n${question}${starterCode}${fnName ? '\nUse Call-Based format' : '\nUse Standard Input format'}\nANSWER:\n`;
}

/** What an APPS problem carries beyond the core: its test cases, each scored, and their limits. */
export const AppsPayloadSchema = z.object({
  oracle: z.object({
    kind: z.literal('apps'),
    /** The row's `input_output` as written (inputs, outputs, fn_name), read by Python. */
    input_output: z.string(),
    /** Seconds each test case may take (APPS: 4). */
    test_time_limit: z.number().positive(),
    /** Seconds the whole sample may take (apps_metric: 10 + 1); beyond it every test case is -1. */
    program_time_limit: z.number().positive(),
    /** How a standard-input program runs (AppsEntry.stdin_form). Problems stored before the choice existed ran as written. */
    stdin_form: z.enum(['testing-util', 'as-written']).default('as-written'),
  }),
});
export type AppsProblem = ProblemOf<z.output<typeof AppsPayloadSchema>>;

const OutcomeSchema = z.object({ results: z.array(z.union([z.boolean(), z.number()])), error: z.string().nullable() });

// Typed here: its evaluate step loads through it.
export const appsFamily: DefinedFamily<'apps', typeof AppsEntrySchema, z.output<typeof AppsPayloadSchema>> = defineFamily({
  id: 'apps',
  description: 'APPS (codeparrot/apps rows): call-based and standard-input tasks, each test case scored (strict and test-case accuracy)',
  entrySchema: AppsEntrySchema,
  payloadSchema: AppsPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const source = sources.rows!;
    const rows = parseJsonl(texts.rows!, RowSchema, source);
    const notes: string[] = [];
    const problems: Array<{ line: number; row: AppsProblem }> = [];
    let untested = 0;
    for (const { line, row } of rows) {
      if (entry.difficulty && !entry.difficulty.includes(row.difficulty)) continue;
      // Some train rows have no test cases at all: nothing could score them.
      if (row.input_output.trim() === '') {
        untested++;
        continue;
      }
      let io: unknown;
      try {
        io = JSON.parse(row.input_output.replace(/\bNaN\b|-?\bInfinity\b/g, 'null'));
      } catch (error) {
        throw new Error(`${source}:${line}: input_output: not valid JSON (${(error as Error).message})`);
      }
      const parsed = InputOutputSchema.safeParse(io);
      if (!parsed.success) throw new Error(`${source}:${line}: ${issuesLine(parsed.error, { prefix: 'input_output.' })}`);
      if (parsed.data.outputs.length !== parsed.data.inputs.length) {
        throw new Error(`${source}:${line}: input_output: ${parsed.data.inputs.length} inputs but ${parsed.data.outputs.length} outputs`);
      }
      let solutions: string[] = [];
      if (row.solutions.trim() !== '') {
        const s = z.array(z.string()).safeParse(JSON.parse(row.solutions));
        if (!s.success) throw new Error(`${source}:${line}: solutions: must be JSON text of a list of programs`);
        solutions = s.data;
      }
      problems.push({
        line,
        row: {
          family: 'apps',
          task_id: String(row.problem_id),
          prompt: appsPrompt(row.question, row.starter_code, parsed.data.fn_name),
          entry_point: parsed.data.fn_name ?? '__main__',
          test: '',
          ...(solutions[0] !== undefined ? { canonical_solution: solutions[0] } : {}),
          form: 'full',
          oracle: {
            kind: 'apps',
            input_output: row.input_output,
            test_time_limit: entry.test_time_limit,
            program_time_limit: entry.program_time_limit,
            stdin_form: entry.stdin_form,
          },
        },
      });
    }
    if (untested) notes.push(`${source}: ${untested} rows without test cases (empty input_output) left out`);
    const problem = datasetRowsProblem(
      problems.map(({ line, row }) => ({ line, row })),
      source,
    );
    if (problem)
      throw new Error(
        entry.difficulty && problems.length === 0 ? `${source}: no task of difficulty ${entry.difficulty.join(', ')}` : problem,
      );
    return { problems: problems.map(({ row }) => row), notes };
  },
  stopWords: () => APPS_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    problem.entry_point === '__main__'
      ? 'Write a Python program that solves the problem below, reading its input from standard input and printing its answer to standard output. Reply with the whole program in one ```python code block.'
      : `Write the Python code that solves the problem below, with the function \`${problem.entry_point}\` (completing the starter code if there is one). Reply with the code in one \`\`\`python code block.`,
  // bigcode keeps what follows "\nANSWER:" when a generation repeats the prompt.
  solution: (_problem, api, code) =>
    api === 'completions' && code.includes('\nANSWER:') ? code.split('\nANSWER:').slice(1).join('\nANSWER:') : code,
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (_problem, solution) => embeddedSolution(solution),
  requirements: () => [],
  checking: () => ({ kind: 'tests' }),
  tests: (problem) => {
    const o = problem.oracle;
    return appsHarness({ input_output: o.input_output, test_time_limit: o.test_time_limit, stdin_form: o.stdin_form });
  },
  limits: (problem) => ({ timeoutMs: Math.round(problem.oracle.program_time_limit * 1000), maxOutputBytes: 1024 * 1024 }),
  scoreKinds: [TEST_CASE_SCORES],
  score: (problem, outcome): TaskScore => {
    const at = outcome.stdout.lastIndexOf(APPS_RESULT_MARKER);
    const line = at < 0 ? null : outcome.stdout.slice(at + APPS_RESULT_MARKER.length).split('\n')[0]!;
    const parsed = line === null ? null : OutcomeSchema.safeParse(JSON.parse(line));
    if (!parsed?.success) {
      // The sample never reported (killed, out of time or memory): every test case failed, as apps_metric counts it.
      const total = (JSON.parse(problem.oracle.input_output.replace(/\bNaN\b|-?\bInfinity\b/g, 'null')) as { inputs: unknown[] }).inputs
        .length;
      return { kind: 'test_cases', passed: false, success: false, testCases: { passed: 0, total } };
    }
    const passed = parsed.data.results.filter((r) => r === true).length;
    const total = parsed.data.results.length;
    return { kind: 'test_cases', passed: total > 0 && passed === total, success: true, testCases: { passed, total } };
  },
  // A sample's completion is the whole program (bigcode's generation).
  evaluate: readsProblemsFiles({
    bigcodeTasks: bigcodeNames('apps-introductory', 'apps-interview', 'apps-competition'),
    recognize: { rank: 20, test: (row) => 'input_output' in row && 'question' in row, fields: "APPS's problem_id, question, input_output" },
    options: APPS_OPTIONS.evaluate,
    form: 'full',
    problems: ({ text, source, options }) => {
      const path = source.endsWith('.gz') || source.endsWith('.jsonl') ? source : 'rows.jsonl';
      const entry = AppsEntrySchema.parse({
        name: 'evaluate',
        family: 'apps',
        path,
        ...(options.stdin_form ? { stdin_form: options.stdin_form } : {}),
      });
      return appsFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  }),
});
