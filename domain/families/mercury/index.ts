/**
 * Mercury (Du et al. 2024, "Mercury: An Efficiency Benchmark for LLM Code Synthesis"), as
 * bigcode-evaluation-harness's `mercury` task runs it: the rows of Hugging Face's Elfsong/Mercury
 * (its `eval` split: slug_name, difficulty, pretty_content, prompt (the starter code), entry_point,
 * solutions ([{runtime, solution}]), test_cases (JSON text of [{input, expected}], which the row's
 * generator_code produced), convert_offline, evaluate_offline, ...), bigcode's one-shot prompt and
 * stop words, the answer cut at its first stop word, and each sample run on the row's test cases and
 * timed against the row's reference solutions in the same sandbox run (harness.ts): the `mercury`
 * score kind (scores.ts) with bigcode's pass@k and Beyond@k per difficulty (beyond.ts).
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import type { ExecutionLimits } from '../../execution/types.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import type { LlmApi } from '../../llm/request.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { bigcodeNames, readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import type { DefinedFamily, ProblemOf, Requirement, RunOutcome, TaskChecking, TaskScore } from '../types.js';
import { beyondOf, MERCURY_DIFFICULTIES, MERCURY_STATUSES } from './beyond.js';
import { embeddedSolution, MERCURY_RESULT_MARKER, mercuryHarness } from './harness.js';
import { MERCURY_SCORES, type MercurySample } from './scores.js';

/** bigcode's Mercury stop words. */
export const MERCURY_STOP_WORDS: readonly string[] = Object.freeze([
  '\nclass',
  '\ndef',
  '\n#',
  '\n@',
  '\nprint',
  '\nif',
  '\n```',
  '<file_sep>',
  '<｜end▁of▁sentence｜>',
  '\n###',
  '\n\n\n\n\n',
  '<|endoftext|>',
]);

/** bigcode's one-shot example (prompt_generate's examples_json). */
const EXAMPLE = {
  question:
    'You are given a 0-indexed array of positive integers nums. Find the number of triplets (i, j, k) that meet the following conditions:\n\n0 <= i < j < k < nums.length\nnums[i], nums[j], and nums[k] are pairwise distinct.\n\t\nIn other words, nums[i] != nums[j], nums[i] != nums[k], and nums[j] != nums[k].\n\n\n\nReturn the number of triplets that meet the conditions.\n \nExample 1:\n\nInput: nums = [4,4,2,4,3]\nOutput: 3\nExplanation: The following triplets meet the conditions:\n- (0, 2, 4) because 4 != 2 != 3\n- (1, 2, 4) because 4 != 2 != 3\n- (2, 3, 4) because 2 != 4 != 3\nSince there are 3 triplets, we return 3.\nNote that (2, 0, 4) is not a valid triplet because 2 > 0.\n\nExample 2:\n\nInput: nums = [1,1,1,1,1]\nOutput: 0\nExplanation: No triplets meet the conditions so we return 0.\n\n \nConstraints:\n\n3 <= nums.length <= 100\n1 <= nums[i] <= 1000\n\n',
  sample_code:
    'class Solution(object):\n    def unequalTriplets(self, nums: List[int]) -> int:\n        """\n\t:type nums: List[int]\n\t:rtype: int\n\t"""\n        \n',
  answer:
    'class Solution(object):\n    def unequalTriplets(self, nums: List[int]) -> int:\n        """\n\t:type nums: List[int]\n\t:rtype: int\n\t"""\n        \n        ans = 0\n        n = len(a)\n        for i in range(n):\n            for j in range(i + 1, n):\n                for k in range(j + 1, n):\n                    ans += len({a[i], a[j], a[k]}) == 3\n        return ans',
};

/** bigcode's prompt_generate: the example, then the question; each with its starter code when the task has one. */
export function mercuryPrompt(question: string, starterCode: string): string {
  const part = (example: { question: string; sample_code: string; answer: string }) =>
    `### Question\n${example.question}\n\n` +
    (starterCode ? `### Code Prompt\n${example.sample_code}\n\n` : '') +
    `### Completion\n${example.answer}` +
    (example.answer ? '\n\n' : '');
  return part(EXAMPLE) + part({ question, sample_code: starterCode, answer: '' });
}

/** The timing's settings: the entry's fields and evaluate.ts's flags. */
const MERCURY_OPTIONS = familyOptions({
  timing_runs: option(z.int().min(1).max(20).default(5), {
    help: "rounds of timed runs of each sample and its task's references (bigcode: 5 runs of the sample); a runtime is the least over them",
    value: 'n',
    text: 'number',
  }),
  run_time_limit: option(z.number().positive().max(60).default(10), {
    help: "seconds one run over a task's test cases may take (bigcode's 10)",
    value: 'seconds',
    text: 'number',
  }),
});

export const MercuryEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('mercury'),
  /** Elfsong/Mercury's eval split (its Parquet, or its rows as JSON Lines); local or s3://. */
  path: RowsFileSchema,
  /** Which levels; absent: all. */
  difficulty: z.array(z.enum(MERCURY_DIFFICULTIES)).min(1).optional(),
  ...MERCURY_OPTIONS.entry,
});
export type MercuryEntry = z.output<typeof MercuryEntrySchema>;

const TestCasesSchema = z
  .array(z.record(z.string(), z.unknown()))
  .min(1, 'must have at least one test case')
  .refine((cases) => cases.every((c) => 'input' in c && 'expected' in c), 'each test case needs input and expected');

const RowSchema = z.looseObject({
  slug_name: z.string().min(1),
  difficulty: z.enum(MERCURY_DIFFICULTIES),
  pretty_content: z.array(z.string()).min(1, 'must hold the question'),
  prompt: z.string(),
  entry_point: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a method name'),
  solutions: z.array(z.looseObject({ solution: z.string().min(1) })).min(1, 'must have at least one reference solution to time against'),
  test_cases: z.string(),
  convert_offline: z.string().min(1),
  evaluate_offline: z.string().min(1),
});

const MercuryPayloadSchema = z.object({
  mercury: z.object({
    difficulty: z.enum(MERCURY_DIFFICULTIES),
    references: z.array(z.string()).min(1),
    test_cases: z.string(),
    convert_offline: z.string(),
    evaluate_offline: z.string(),
    timing_runs: z.int().min(1),
    run_time_limit: z.number().positive(),
  }),
});
type MercuryProblem = ProblemOf<z.output<typeof MercuryPayloadSchema>>;

/** The rows as problems (task id `mercury/<slug_name>`), in file order; throws naming the file, line and field. */
export function mercuryProblems(
  text: string,
  source: string,
  options: { difficulty?: readonly string[] | undefined; timing_runs: number; run_time_limit: number },
): MercuryProblem[] {
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  const seen = new Map<string, number>();
  const problems: MercuryProblem[] = [];
  for (const { line, row } of rows) {
    const first = seen.get(row.slug_name);
    if (first !== undefined) throw new Error(`${source}:${line}: slug_name: ${row.slug_name} is given twice (first on line ${first})`);
    seen.set(row.slug_name, line);
    let cases: unknown;
    try {
      cases = JSON.parse(row.test_cases);
    } catch (error) {
      throw new Error(`${source}:${line}: test_cases: not valid JSON (${(error as Error).message})`);
    }
    const parsed = TestCasesSchema.safeParse(cases);
    if (!parsed.success) throw new Error(`${source}:${line}: test_cases: ${parsed.error.issues[0]!.message}`);
    if (options.difficulty && !options.difficulty.includes(row.difficulty)) continue;
    problems.push({
      family: 'mercury',
      task_id: `mercury/${row.slug_name}`,
      prompt: mercuryPrompt(row.pretty_content[0]!, row.prompt),
      entry_point: row.entry_point,
      test: '',
      canonical_solution: row.solutions[0]!.solution,
      form: 'full',
      mercury: {
        difficulty: row.difficulty,
        references: row.solutions.map((s) => s.solution),
        test_cases: row.test_cases,
        convert_offline: row.convert_offline,
        evaluate_offline: row.evaluate_offline,
        timing_runs: options.timing_runs,
        run_time_limit: options.run_time_limit,
      },
    });
  }
  if (rows.length === 0) throw new Error(`${source} has no tasks`);
  if (problems.length === 0) throw new Error(`${source}: no task of difficulty ${options.difficulty!.join(', ')}`);
  return problems;
}

/**
 * The sandbox's limit for a sample: every program (the sample and each reference) may take its
 * run limit in every round, and a few seconds to start; within explora's 10 minutes. The rounds
 * stop early (harness.ts) at three quarters of it, so a report always comes before the kill.
 */
export function mercuryLimits(problem: MercuryProblem, timeoutMs: number): Partial<ExecutionLimits> {
  const m = problem.mercury;
  const worst = (1 + m.references.length) * m.timing_runs * m.run_time_limit + 5;
  return { timeoutMs: Math.min(600_000, Math.max(timeoutMs, Math.ceil(worst * 1000))), maxOutputBytes: 1024 * 1024 };
}

const ReportSchema = z.object({
  candidate: z.object({ status: z.enum(MERCURY_STATUSES), runtimes: z.array(z.number().nonnegative()) }),
  references: z.array(z.object({ status: z.enum(MERCURY_STATUSES), runtimes: z.array(z.number().nonnegative()) })),
  rounds: z.int().nonnegative(),
});

/** A run's score from the harness's report (none: the sandbox killed it, bigcode's failed@timeout). */
export function mercuryScore(problem: MercuryProblem, outcome: RunOutcome): TaskScore {
  const m = problem.mercury;
  const at = outcome.stdout.lastIndexOf(MERCURY_RESULT_MARKER);
  let report: z.output<typeof ReportSchema> | null = null;
  if (at >= 0) {
    // A line cut short (the output's limit) or not the harness's is no report: the run counts as killed.
    let line: unknown;
    try {
      line = JSON.parse(outcome.stdout.slice(at + MERCURY_RESULT_MARKER.length).split('\n')[0]!);
    } catch {
      line = null;
    }
    const parsed = ReportSchema.safeParse(line);
    if (parsed.success) report = parsed.data;
  }
  const seconds = (ns: readonly number[]) => Math.min(...ns) / 1e9;
  const status = report?.candidate.status ?? 'failed@timeout';
  const passed = status === 'passed' && report!.candidate.runtimes.length > 0;
  const references = (report?.references ?? [])
    .filter((r) => r.status === 'passed' && r.runtimes.length > 0)
    .map((r) => seconds(r.runtimes));
  const runtime = passed ? seconds(report!.candidate.runtimes) : null;
  const sample: Omit<MercurySample, 'kind'> = {
    difficulty: m.difficulty,
    status,
    runtime,
    rounds: report?.rounds ?? 0,
    references: { passed: references.length, total: passed ? m.references.length : 0 },
    range: references.length > 0 ? [Math.min(...references), Math.max(...references)] : null,
    // A failing sample is as slow as can be (0), its references not run.
    beyond: passed ? beyondOf(runtime, references) : 0,
  };
  return { kind: 'mercury', passed, success: passed || status === 'failed@cases', mercury: sample };
}

/** The solution a generation stands for: bigcode's post-processing keeps the text after the prompt up to its first stop word. */
export function mercurySolution(api: LlmApi | 'saved', code: string): string {
  return api === 'completions' ? truncateAtStopWords(code, MERCURY_STOP_WORDS) : code;
}

export const mercuryFamily: DefinedFamily<'mercury', typeof MercuryEntrySchema, z.output<typeof MercuryPayloadSchema>> = defineFamily({
  id: 'mercury',
  description: "Mercury (bigcode's mercury): LeetCode-style tasks scored for efficiency, Beyond@k against the tasks' reference solutions",
  entrySchema: MercuryEntrySchema,
  payloadSchema: MercuryPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({ problems: mercuryProblems(texts.rows!, sources.rows!, entry), notes: [] }),
  stopWords: () => MERCURY_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `Solve the problem below in Python: complete the class \`Solution\` and its method \`${problem.entry_point}\`, as efficiently as you can. ` +
    'Reply with the whole class in one ```python code block.',
  solution: (_problem, api, code) => mercurySolution(api, code),
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  embedSolution: (_problem, solution) => embeddedSolution(solution),
  checking: (): TaskChecking => ({ kind: 'tests' }),
  tests: (problem) => {
    const m = problem.mercury;
    const { timeoutMs } = mercuryLimits(problem, 0);
    return mercuryHarness({
      references: m.references,
      entry_point: problem.entry_point,
      test_cases: m.test_cases,
      convert_offline: m.convert_offline,
      evaluate_offline: m.evaluate_offline,
      runs: m.timing_runs,
      run_limit: m.run_time_limit,
      budget: (timeoutMs! / 1000) * 0.75,
    });
  },
  limits: (problem, _reference, timeoutMs) => mercuryLimits(problem, timeoutMs),
  scoreKinds: [MERCURY_SCORES],
  score: mercuryScore,
  // bigcode's namespace imports lctk and sortedcontainers: the sandbox's venv has both (scripts/install-sandbox-python.sh).
  requirements: (): readonly Requirement[] => [],
  evaluate: readsProblemsFiles({
    bigcodeTasks: bigcodeNames('mercury'),
    recognize: {
      rank: 25,
      test: (row) => 'slug_name' in row && 'test_cases' in row && 'evaluate_offline' in row,
      fields: "Mercury's slug_name, pretty_content, solutions, test_cases, convert_offline, evaluate_offline",
    },
    options: MERCURY_OPTIONS.evaluate,
    form: 'full',
    problems: ({ text, source, options }) =>
      mercuryProblems(text, source, { timing_runs: options.timing_runs ?? 5, run_time_limit: options.run_time_limit ?? 10 }),
  }),
});
