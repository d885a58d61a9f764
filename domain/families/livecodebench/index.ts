/**
 * LiveCodeBench (Jain et al. 2024), its code-generation scenario: rows as Hugging Face's
 * livecodebench/code_generation_lite publishes them (test.jsonl ... test6.jsonl: question_title,
 * question_content, platform, question_id, contest_id, contest_date, starter_code, difficulty,
 * public_test_cases as JSON text, private_test_cases as JSON text or base64 of zlib of a pickled
 * JSON text (privateTests.ts), metadata as JSON text with `func_name` for LeetCode's functional
 * tasks). A contamination window keeps the problems released in it (LiveCodeBench's
 * --start_date / --end_date on contest_date); each sample runs every test, public then private,
 * graded as LiveCodeBench's evaluator grades (harness.ts), and passes when all pass: a `status`
 * score, so pass@k is LiveCodeBench's estimator over the problems of the window.
 */
import { z } from 'zod';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { isSuccess } from '../../execution/types.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import type { DefinedFamily, ModelScope, PerModelIssue, ProblemOf, TaskScore } from '../types.js';
import { lcbExtractCode } from './extract.js';
import { embeddedSolution, LCB_RESULT_MARKER, lcbHarness } from './harness.js';
import { privateTestsJson } from './privateTests.js';
import { lcbFencedCode, lcbInstruction, lcbUserMessage } from './prompt.js';

/** The sandbox's longest run (ExecutionLimitsSchema). */
const LIMITS_MAX_TIMEOUT_MS = 600_000;
/** The sandbox's largest program (ExecutionRequestSchema): the harness carries the tests in it. */
const PROGRAM_MAX_BYTES = 8 * 1024 * 1024;
/** What the tests may take of it, the harness and the sample's code having the rest. */
export const MAX_EMBEDDED_TESTS_BYTES = PROGRAM_MAX_BYTES - 512 * 1024;

/** The bytes of the tests as the harness embeds them (base64 of their JSON). */
function embeddedTestsBytes(tests: ReadonlyArray<{ input: string; output: string }>, fnName: string | null, timeout: number): number {
  const json = JSON.stringify({ tests: tests.map(({ input, output }) => ({ input, output })), fn_name: fnName, timeout });
  return Math.ceil(new TextEncoder().encode(json).length / 3) * 4;
}

export const LCB_PLATFORMS = ['leetcode', 'codeforces', 'atcoder'] as const;
export const LCB_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

/** A day, as LiveCodeBench's --start_date and --end_date take it (datetime.strptime "%Y-%m-%d"). */
const DaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), {
    message: 'must be a real day YYYY-MM-DD',
  });

/** release_after's value for a window per model: each model's starts the day after its training_cutoff. */
export const MODEL_CUTOFF = 'model_cutoff';

/**
 * The contamination window: the entry's release_after / release_before and evaluate.ts's
 * --release-after / --release-before. Only problems whose contest_date is at or after the start
 * day's 00:00 (a model's training cut-off goes there) and at or before the end day's 00:00. In a
 * sweep, `release_after: model_cutoff` gives each model its own start (perModel below).
 */
const LCB_OPTIONS = familyOptions({
  release_after: option(z.union([z.literal(MODEL_CUTOFF), DaySchema]).optional(), {
    help:
      'score only problems released on or after this day, YYYY-MM-DD (its --start_date; a training cut-off); ' +
      "in a sweep's entry also model_cutoff: each model from the day after its training_cutoff",
    value: 'day',
  }),
  release_before: option(DaySchema.optional(), {
    help: "score only problems released up to this day's 00:00, YYYY-MM-DD (its --end_date)",
    value: 'day',
  }),
});

export const LiveCodeBenchEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('livecodebench'),
  /** One of code_generation_lite's test.jsonl ... test6.jsonl (.jsonl.gz too), local or s3://. */
  path: JsonlFileSchema,
  ...LCB_OPTIONS.entry,
  /**
   * The ids of the sweep's models this dataset is run with (absent: every model): what
   * `release_after: model_cutoff` expands to, one dataset per cut-off, each with its models.
   */
  models: z.array(z.string().min(1)).min(1).optional(),
  /** Which platforms (LiveCodeBench's --platform); absent: all. */
  platform: z.array(z.enum(LCB_PLATFORMS)).min(1).optional(),
  /** Which difficulties; absent: all. */
  difficulty: z.array(z.enum(LCB_DIFFICULTIES)).min(1).optional(),
  /** Seconds each test may take, and compiling the code (LiveCodeBench's evaluator: 6; an alarm, so whole seconds). */
  timeout: z.int().min(1).max(60).default(6),
});
export type LiveCodeBenchEntry = z.output<typeof LiveCodeBenchEntrySchema>;

const TestSchema = z.object({ input: z.string(), output: z.string(), testtype: z.enum(['stdin', 'functional']) });
const TestsSchema = z.array(TestSchema);

const RowSchema = z.looseObject({
  question_title: z.string(),
  question_content: z.string().min(1),
  platform: z.enum(LCB_PLATFORMS),
  question_id: z.string().min(1),
  contest_id: z.string(),
  contest_date: z.string(),
  starter_code: z.string(),
  difficulty: z.enum(LCB_DIFFICULTIES),
  public_test_cases: z.string(),
  private_test_cases: z.string(),
  metadata: z.string(),
});

/**
 * contest_date as a text that sorts as the time does (Python's datetime.fromisoformat of a naive
 * date or date and time); null when it is not one.
 */
export function contestInstant(date: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/.exec(date);
  if (!m) return null;
  return `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}.${(m[5] ?? '').padEnd(6, '0')}`;
}

const dayStart = (day: string) => `${day}T00:00:00.000000`;

/** An entry whose window is set (release_after a day, not model_cutoff, which a sweep expands first). */
type Window = { release_after?: string; release_before?: string };

/** The window in words, for notes and messages. */
export function windowText(entry: Window): string {
  if (!entry.release_after && !entry.release_before) return 'of every release date (no contamination window)';
  const parts = [
    ...(entry.release_after ? [`from ${entry.release_after}`] : []),
    ...(entry.release_before ? [`to ${entry.release_before} 00:00`] : []),
  ];
  return `released ${parts.join(' ')}`;
}

/** What a LiveCodeBench problem carries beyond the core: its tests and what its prompt is made of. */
export const LiveCodeBenchPayloadSchema = z.object({
  oracle: z.object({
    kind: z.literal('livecodebench'),
    question_content: z.string(),
    starter_code: z.string(),
    platform: z.enum(LCB_PLATFORMS),
    difficulty: z.enum(LCB_DIFFICULTIES),
    contest_date: z.string(),
    /** metadata's func_name: the method the functional tests call; null for standard-input tasks. */
    fn_name: z.string().nullable(),
    /** Public, then private: the order LiveCodeBench's get_evaluation_sample puts them in. */
    tests: z.array(z.object({ input: z.string(), output: z.string() })).min(1),
    timeout: z.int().positive(),
  }),
});
export type LiveCodeBenchProblem = ProblemOf<z.output<typeof LiveCodeBenchPayloadSchema>>;

const OutcomeSchema = z.object({ results: z.array(z.union([z.boolean(), z.number()])), error: z.string().nullable() });

/** The result list the harness reported on the saved standard output, or null when it reported none. */
export function reportedResults(stdout: string): Array<boolean | number> | null {
  const at = stdout.lastIndexOf(LCB_RESULT_MARKER);
  if (at < 0) return null;
  try {
    const parsed = OutcomeSchema.safeParse(JSON.parse(stdout.slice(at + LCB_RESULT_MARKER.length).split('\n')[0]!));
    return parsed.success ? parsed.data.results : null;
  } catch {
    return null;
  }
}

function jsonField(text: string, field: string, at: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${at}: ${field}: not valid JSON (${(error as Error).message})`);
  }
}

function tests(value: unknown, field: string, at: string): z.output<typeof TestsSchema> {
  const parsed = TestsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${at}: ${field}${issue.path.length ? `[${issue.path.join('].')}` : ''}: ${issue.message}`);
  }
  return parsed.data;
}

/** The problems of code_generation_lite rows in the entry's window (and platforms, difficulties), in file order. */
export function liveCodeBenchProblems(
  text: string,
  entry: LiveCodeBenchEntry,
  source: string,
): { problems: LiveCodeBenchProblem[]; notes: string[]; outsideWindow: string[] } {
  if (entry.release_after === MODEL_CUTOFF)
    throw new Error(`release_after: ${MODEL_CUTOFF} is a window per model, which a sweep sets for each model; give a day here`);
  if (entry.release_after && entry.release_before && entry.release_after > entry.release_before)
    throw new Error(`release_after ${entry.release_after} is after release_before ${entry.release_before}: the window is empty`);
  const rows = parseJsonl(text, RowSchema, source);
  const kept: Array<{ line: number; row: LiveCodeBenchProblem }> = [];
  const outside: string[] = [];
  const tooLarge: string[] = [];
  for (const { line, row } of rows) {
    const at = `${source}:${line}`;
    const instant = contestInstant(row.contest_date);
    if (instant === null)
      throw new Error(`${at}: contest_date: ${JSON.stringify(row.contest_date)} is not an ISO date and time without a time zone`);
    if (entry.platform && !entry.platform.includes(row.platform)) continue;
    if (entry.difficulty && !entry.difficulty.includes(row.difficulty)) continue;
    if (
      (entry.release_after && instant < dayStart(entry.release_after)) ||
      (entry.release_before && instant > dayStart(entry.release_before))
    ) {
      outside.push(row.question_id);
      continue;
    }
    const metadata = jsonField(row.metadata, 'metadata', at);
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      throw new Error(`${at}: metadata: must be JSON text of an object`);
    const fnName = (metadata as Record<string, unknown>).func_name ?? null;
    if (fnName !== null && (typeof fnName !== 'string' || fnName === ''))
      throw new Error(`${at}: metadata.func_name: must be a method's name`);
    const publicTests = tests(jsonField(row.public_test_cases, 'public_test_cases', at), 'public_test_cases', at);
    let privateJson: string;
    try {
      privateJson = privateTestsJson(row.private_test_cases);
    } catch (error) {
      throw new Error(`${at}: private_test_cases: ${(error as Error).message}`);
    }
    const privateTests = tests(jsonField(privateJson, 'private_test_cases (decoded)', at), 'private_test_cases', at);
    const all = [...publicTests, ...privateTests];
    if (all.length === 0) throw new Error(`${at}: no test cases (public_test_cases and private_test_cases are both empty)`);
    const functional = all.filter((t) => t.testtype === 'functional').length;
    if (fnName !== null && functional !== all.length)
      throw new Error(`${at}: metadata names func_name ${fnName} but ${all.length - functional} tests are stdin tests`);
    if (fnName === null && functional > 0) throw new Error(`${at}: ${functional} functional tests but metadata has no func_name`);
    if (embeddedTestsBytes(all, fnName, entry.timeout) > MAX_EMBEDDED_TESTS_BYTES) {
      tooLarge.push(row.question_id);
      continue;
    }
    kept.push({
      line,
      row: {
        family: 'livecodebench',
        task_id: row.question_id,
        prompt: `${lcbFencedCode(row.starter_code)}\n`,
        entry_point: fnName ?? '__main__',
        test: '',
        form: 'full',
        oracle: {
          kind: 'livecodebench',
          question_content: row.question_content,
          starter_code: row.starter_code,
          platform: row.platform,
          difficulty: row.difficulty,
          contest_date: row.contest_date,
          fn_name: fnName,
          tests: all.map(({ input, output }) => ({ input, output })),
          timeout: entry.timeout,
        },
      },
    });
  }
  if (kept.length === 0)
    throw new Error(
      `${source}: no problem ${windowText(entry)}${entry.platform || entry.difficulty ? ' of the platforms and difficulties named' : ''} (${rows.length} rows)`,
    );
  const problem = datasetRowsProblem(kept, source);
  if (problem) throw new Error(problem);
  const notes = [
    `${source}: ${kept.length} problems ${windowText(entry)}${outside.length ? `; ${outside.length} outside the window left out` : ''}`,
  ];
  if (tooLarge.length)
    notes.push(
      `${source}: ${tooLarge.length} problems left out, their tests too large for the sandbox's ${PROGRAM_MAX_BYTES / 1024 / 1024} MiB program: ` +
        tooLarge.join(', '),
    );
  return { problems: kept.map(({ row }) => row), notes, outsideWindow: outside };
}

/** The keys windowCell gives. */
export const WINDOW_FIELDS = ['release_window', 'release_after', 'release_before'] as const;

/**
 * The window as evaluate.ts's results.json records it, so that a number says which problems it is
 * over: `release_window` in words, and the days given; nothing without a window (the whole file,
 * as a sweep's cell of the same answers says).
 */
export function windowCell(entry: Window): Record<string, string> {
  if (!entry.release_after && !entry.release_before) return {};
  return {
    release_window: windowText(entry),
    ...(entry.release_after ? { release_after: entry.release_after } : {}),
    ...(entry.release_before ? { release_before: entry.release_before } : {}),
  };
}

/** The day after a day (YYYY-MM-DD): where a window after a training cut-off starts. */
export function dayAfter(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

const isDay = (value: unknown): value is string => typeof value === 'string' && DaySchema.safeParse(value).success;

/**
 * A window per model (`release_after: model_cutoff`): each model is scored on the problems released
 * from the day after its training_cutoff (and up to release_before), so that one sweep compares
 * models each on problems it cannot have seen. Refused: a model without a training_cutoff, an
 * empty window, and `models` given too (the expansion sets it).
 */
function perModelIssues(entry: LiveCodeBenchEntry, models: readonly ModelScope[]): PerModelIssue[] {
  if (entry.release_after !== MODEL_CUTOFF) return [];
  const what = `dataset ${entry.name} has release_after: ${MODEL_CUTOFF} (a window per model)`;
  const issues: PerModelIssue[] = [];
  if (entry.models)
    issues.push({
      at: { field: 'models' },
      message: `${what}, which runs each model on the problems after its own cut-off: leave models out`,
    });
  models.forEach((model, xi) => {
    if (model.training_cutoff === undefined)
      issues.push({
        at: { model: xi, field: 'training_cutoff' },
        message: `${what}: model ${model.id} needs its training_cutoff (YYYY-MM-DD), or list it in another sweep`,
      });
    else if (isDay(model.training_cutoff) && entry.release_before && dayAfter(model.training_cutoff) > entry.release_before)
      issues.push({
        at: { field: 'release_before' },
        message:
          `${what}: model ${model.id} (models[${xi}]) has training_cutoff ${model.training_cutoff}, so its window ` +
          `from ${dayAfter(model.training_cutoff)} to release_before ${entry.release_before} is empty`,
      });
  });
  return issues;
}

/** The datasets a window per model stands for: one per start day, `<name>-from-<day>`, each with the models of that cut-off. */
function perModelEntries(entry: LiveCodeBenchEntry, models: readonly ModelScope[]): LiveCodeBenchEntry[] | undefined {
  if (entry.release_after !== MODEL_CUTOFF) return undefined;
  const byStart = new Map<string, string[]>();
  for (const model of models) {
    // A model without a valid cut-off is refused by perModelIssues before a sweep expands the entry.
    if (!isDay(model.training_cutoff)) continue;
    const start = dayAfter(model.training_cutoff);
    byStart.set(start, [...(byStart.get(start) ?? []), model.id]);
  }
  return [...byStart].map(([start, ids]) => ({ ...entry, name: `${entry.name}-from-${start}`, release_after: start, models: ids }));
}

// Typed here: its evaluate step loads through it.
export const liveCodeBenchFamily: DefinedFamily<
  'livecodebench',
  typeof LiveCodeBenchEntrySchema,
  z.output<typeof LiveCodeBenchPayloadSchema>
> = defineFamily({
  id: 'livecodebench',
  description:
    'LiveCodeBench code generation (code_generation_lite rows): stdin and functional tests graded as its evaluator does, in a release-date window',
  entrySchema: LiveCodeBenchEntrySchema,
  payloadSchema: LiveCodeBenchPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const { problems, notes } = liveCodeBenchProblems(texts.rows!, entry, sources.rows!);
    return { problems, notes };
  },
  // A completion model gets LiveCodeBench's chat user message and answers with a fenced block.
  // A window per model starts after each model's cut-off by construction (perModel).
  releaseWindow: (entry) => ({ from: entry.release_after === MODEL_CUTOFF ? null : (entry.release_after ?? null), field: 'release_after' }),
  perModel: { issues: perModelIssues, expand: perModelEntries },
  modelsOf: (entry) => entry.models,
  cellScope: (entry) => (entry.release_after === MODEL_CUTOFF ? {} : windowCell(entry)),
  cellScopeFields: WINDOW_FIELDS,
  stopWords: () => [],
  language: () => 'python',
  completionPrompt: (problem) => lcbUserMessage(problem.oracle.question_content, problem.oracle.starter_code),
  chatInstruction: (problem) => lcbInstruction(problem.oracle.question_content, problem.oracle.starter_code),
  // LiveCodeBench's extract_code: the last fenced block (extract.ts), of a chat answer and of a completion of its chat message.
  chatCode: (_problem, answer) => lcbExtractCode(answer),
  solution: (_problem, api, code) => (api === 'completions' ? lcbExtractCode(code) : code),
  referenceSolution: () => null,
  embedSolution: (_problem, solution) => embeddedSolution(solution),
  requirements: () => [],
  checking: () => ({ kind: 'tests' }),
  tests: (problem) => lcbHarness({ tests: problem.oracle.tests, fn_name: problem.oracle.fn_name, timeout: problem.oracle.timeout }),
  // LiveCodeBench's global timeout of a sample, (timeout + 1) per test and 5 s, within the sandbox's
  // 10 minutes (reached only by a sample passing 85 tests of 6 s each: the first failure ends it).
  limits: (problem) => ({
    timeoutMs: Math.min(((problem.oracle.timeout + 1) * problem.oracle.tests.length + 5) * 1000, LIMITS_MAX_TIMEOUT_MS),
    maxOutputBytes: 1024 * 1024,
  }),
  score: (_problem, outcome): TaskScore => {
    const results = reportedResults(outcome.stdout);
    // Never reported (killed at the global timeout, out of memory): every test -1, as the evaluator counts it.
    if (results === null) return { kind: 'status', passed: false, success: isSuccess(outcome) };
    const passed = results.every((r) => (typeof r === 'boolean' ? r : r > 0));
    return { kind: 'status', passed: passed && outcome.status === 'passed', success: isSuccess(outcome) };
  },
  evaluate: readsProblemsFiles({
    recognize: {
      rank: 15,
      test: (row) => 'question_content' in row && 'private_test_cases' in row,
      fields: "LiveCodeBench's question_id, question_content, contest_date, public_test_cases, private_test_cases",
    },
    options: LCB_OPTIONS.evaluate,
    form: 'full',
    problems: ({ text, source, options }) => {
      if (options.release_after === MODEL_CUTOFF)
        throw new Error(
          `--release-after: ${MODEL_CUTOFF} is a window per model of a sweep; evaluate.ts scores one set of answers: give the day after the model's training cut-off`,
        );
      const path = source.endsWith('.gz') || source.endsWith('.jsonl') ? source : 'rows.jsonl';
      const entry = LiveCodeBenchEntrySchema.parse({
        name: 'evaluate',
        family: 'livecodebench',
        path,
        ...(options.release_after ? { release_after: options.release_after } : {}),
        ...(options.release_before ? { release_before: options.release_before } : {}),
      });
      // LiveCodeBench scores the window alone: samples of the problems outside it are skipped, and counted.
      const { problems, outsideWindow } = liveCodeBenchProblems(text, entry, source);
      return {
        problems,
        leftOut: { taskIds: outsideWindow, why: `their problems are outside the window (LiveCodeBench scores those ${windowText(entry)})` },
        cell: windowCell(entry),
      };
    },
  }),
});
