/**
 * BigCodeBench (Zhuo et al. 2024, bigcode-project/bigcodebench): 1,140 function-level tasks calling
 * 139 libraries, rows as Hugging Face's bigcode/bigcodebench (and bigcode/bigcodebench-hard, its
 * 148-task `hard` subset) publish them: task_id, complete_prompt, instruct_prompt,
 * canonical_solution, code_prompt, test (a unittest `TestCases` class), entry_point, doc_struct,
 * libs. The `complete` split asks for the function from its docstring'd stub, the `instruct` split
 * from prose; each sample runs the task's unittest in the sandbox as BigCodeBench's evaluator runs it
 * (harness.ts: its time and memory limits, its pass / fail / timeout), the solution calibrated as
 * its `--calibrated` default does (code_prompt and a `pass` body before it), and pass@k is its
 * estimator over the tasks (a `status` score: a sample passes when its verdict is `pass`).
 *
 * Tasks whose `libs` go beyond the standard library run with the BigCodeBench environment
 * (`environment`; by default where `npm run setup -- --bigcodebench` installs it, the loading
 * machine's tools folder's bigcodebench-python): a task importing a library that environment
 * lacks is refused by the library's name before a run starts. The methods' own runs (exploration
 * snippets) get the same environment through the dataset's library (methodSandbox).
 */
import { z } from 'zod';
import type { ApiLibrary } from '../../apidocs/library.js';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl } from '../../datasets/jsonl.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { isSuccess } from '../../execution/types.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { EntryLibrarySchema, entryLibraryFiles, loadEntryLibrary } from '../entryLibrary.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import type { DefinedFamily, ProblemOf, Requirement, TaskChecking, TaskScore } from '../types.js';
import {
  BIGCODEBENCH_ENVIRON,
  BIGCODEBENCH_MEMORY_MIB,
  BIGCODEBENCH_MIN_TIME_LIMIT_S,
  BIGCODEBENCH_TIMEOUT_LIMIT_S,
  detailsOf,
  embeddedSolution,
  groundTruthProgram,
  groundTruthTimeOf,
  groundTruthTimeoutS,
  harnessProgram,
  suiteTimeoutS,
  verdictOf,
} from './harness.js';
import {
  BIGCODEBENCH_INSTRUCTION_PREFIX,
  BIGCODEBENCH_STOP_WORDS,
  bigCodeBenchChatMessage,
  externalLibs,
  parseLibs,
  type BigCodeBenchSplit,
} from './prompt.js';
import { BIGCODEBENCH_SCORES } from './scores.js';

/** The sandbox's longest run (ExecutionLimitsSchema). */
const LIMITS_MAX_TIMEOUT_MS = 600_000;

/** The command that makes the environment (scripts/install-bigcodebench.sh, a step of the set-up), for messages. */
export const BIGCODEBENCH_INSTALL = 'npm run setup -- --bigcodebench';

/** Where that command installs the environment: the machine's tools folder's bigcodebench-python (install-bigcodebench.sh). */
export function defaultBigCodeBenchEnvironment(tools: string): string {
  return `${tools.replace(/\/+$/, '')}/bigcodebench-python`;
}

/** The options, as the entry's fields and evaluate.ts's flags (--split, --subset, --calibrated, --timeout-per-task, --bigcodebench-env). */
const BIGCODEBENCH_OPTIONS = familyOptions({
  split: option(z.enum(['complete', 'instruct']).default('complete'), {
    help: "BigCodeBench's --split: complete (the docstring'd stub, default) or instruct (the prose instruction)",
    value: 'split',
  }),
  subset: option(z.enum(['full', 'hard']).default('full'), {
    help: "BigCodeBench's --subset, the rows' set: full (bigcode/bigcodebench, default) or hard (bigcode/bigcodebench-hard); it names the cell",
    value: 'subset',
  }),
  calibrated: option(z.boolean().default(true), {
    help: "BigCodeBench's --calibrated (default true): each solution runs after the task's code_prompt and a `pass` body",
    value: 'true|false',
    text: (text) => (text === 'true' ? true : text === 'false' ? false : text),
  }),
  timeout_per_task: option(z.number().positive().max(597).default(BIGCODEBENCH_TIMEOUT_LIMIT_S), {
    help: `BigCodeBench's TIMEOUT_LIMIT (BIGCODEBENCH_TIMEOUT_PER_TASK), seconds (default ${BIGCODEBENCH_TIMEOUT_LIMIT_S}): the tests get it + 1, the process 1 more`,
    value: 'seconds',
    text: 'number',
  }),
  min_time_limit: option(z.number().positive().max(597).default(BIGCODEBENCH_MIN_TIME_LIMIT_S), {
    help: `BigCodeBench's --min_time_limit, seconds (default ${BIGCODEBENCH_MIN_TIME_LIMIT_S}): a floor of the per-task limit, max(timeout_per_task, min_time_limit, the ground truth's time or 20) + 1`,
    value: 'seconds',
    text: 'number',
  }),
  no_gt: option(z.boolean().default(false), {
    help: "BigCodeBench's --no_gt (default false): do not run the tasks' ground truth first (each task's limit then takes 20 s for its time, and pass_at_k.json says every task failed it, as BigCodeBench's does)",
    value: 'true|false',
    text: (text) => (text === 'true' ? true : text === 'false' ? false : text),
  }),
  environment: option(
    z
      .string()
      .refine((dir) => dir.startsWith('/'), 'an absolute path (the sandbox mounts the environment there)')
      .optional(),
    {
      help: `the BigCodeBench environment, needed by tasks whose libs go beyond the standard library (default: where \`${BIGCODEBENCH_INSTALL}\` installs it, .tools/bigcodebench-python or $EXPLORA_TOOLS_DIR/bigcodebench-python)`,
      value: 'folder',
      flag: 'bigcodebench-env',
      folder: true,
    },
  ),
});

export const BigCodeBenchEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('bigcodebench'),
  /** bigcode/bigcodebench's (or bigcodebench-hard's) Parquet, or its rows as JSON Lines; local or s3://. */
  path: RowsFileSchema,
  ...BIGCODEBENCH_OPTIONS.entry,
  /** An API-doc corpus (JSONL of ApiDoc rows) of the libraries the tasks call, for rag and ExploraCoder. */
  library: EntryLibrarySchema,
});
export type BigCodeBenchEntry = z.output<typeof BigCodeBenchEntrySchema>;
type Options = Pick<BigCodeBenchEntry, 'split' | 'subset' | 'calibrated' | 'timeout_per_task' | 'min_time_limit' | 'no_gt' | 'environment'>;

/** A row as Hugging Face publishes it (extra columns, such as the hard subset's, are ignored). */
const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  complete_prompt: z.string().min(1),
  instruct_prompt: z.string().min(1),
  canonical_solution: z.string(),
  code_prompt: z.string().min(1),
  test: z.string().regex(/\bclass\s+TestCases\b/, "must define class TestCases, which BigCodeBench's evaluator runs"),
  entry_point: z.string().min(1),
  libs: z.union([z.string(), z.array(z.string())]),
});

const PayloadSchema = z.object({
  bigcodebench: z.object({
    split: z.enum(['complete', 'instruct']),
    subset: z.enum(['full', 'hard']),
    complete_prompt: z.string(),
    code_prompt: z.string(),
    libs: z.array(z.string()),
    calibrated: z.boolean(),
    timeout_s: z.number().positive(),
    /** Absent in problems stored before it existed, and for the default (BIGCODEBENCH_MIN_TIME_LIMIT_S). */
    min_time_limit: z.number().positive().optional(),
    /** Absent: false (the ground truth runs first). */
    no_gt: z.boolean().optional(),
    environment: z.string().optional(),
  }),
});
type BigCodeBenchProblem = ProblemOf<z.output<typeof PayloadSchema>>;

/**
 * The rows of a file as problems of the options' split; errors name the file, line and field. The
 * environment, when the options name none, is the default one of the machine's tools folder (`tools`).
 */
export function bigCodeBenchProblems(text: string, source: string, options: Options, tools?: string): BigCodeBenchProblem[] {
  const environment = options.environment ?? (tools !== undefined ? defaultBigCodeBenchEnvironment(tools) : undefined);
  const rows = parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, RowSchema, source);
  const problem = datasetRowsProblem(rows, source);
  if (problem) throw new Error(problem);
  return rows.map(({ line, row }) => {
    const libs = parseLibs(row.libs);
    if (libs === null) throw new Error(`${source}:${line}: libs: must be a list of module names (a list, or its Python text "['a', 'b']")`);
    return {
      family: 'bigcodebench' as const,
      task_id: row.task_id,
      prompt: options.split === 'complete' ? row.complete_prompt : row.instruct_prompt,
      entry_point: row.entry_point,
      test: row.test,
      canonical_solution: row.canonical_solution,
      form: 'full' as const,
      bigcodebench: {
        split: options.split,
        subset: options.subset,
        complete_prompt: row.complete_prompt,
        code_prompt: row.code_prompt,
        libs,
        calibrated: options.calibrated,
        timeout_s: options.timeout_per_task,
        // Only when not the defaults: problems stored before these options read the same.
        ...(options.min_time_limit !== BIGCODEBENCH_MIN_TIME_LIMIT_S ? { min_time_limit: options.min_time_limit } : {}),
        ...(options.no_gt ? { no_gt: true } : {}),
        ...(environment !== undefined ? { environment } : {}),
      },
    };
  });
}

const NO_ENVIRONMENT = '/bigcodebench-environment-not-given';

/** The library's requirement: the environment's marker for it (install-bigcodebench.sh writes one per importable module). */
function libraryRequirement(lib: string, environment: string | undefined): Requirement {
  const from =
    environment === undefined
      ? `--bigcodebench-env or the dataset's environment: none was given (\`${BIGCODEBENCH_INSTALL}\` makes .tools/bigcodebench-python, which they then name)`
      : `the BigCodeBench environment ${environment} (--bigcodebench-env or the dataset's environment; by default where setup installs it): ` +
        `when it is missing, install it with \`${BIGCODEBENCH_INSTALL}\`; else it lacks ${lib} (its explora-install.txt says what installed)`;
  const module = lib.split('.')[0]!;
  // Without an environment, a folder that does not exist: the check refuses the tasks, and nothing could mount it.
  const folder = environment ?? NO_ENVIRONMENT;
  return { kind: 'file', path: `${folder}/explora-modules/${module}`, why: `BigCodeBench (${module}) tasks`, from, readableDir: folder };
}

/** The ground truth's outputs, as the reference run's parse stores them: its time, or null (BigCodeBench's None: it failed). */
const GroundTruthSchema = z.object({ expected_time: z.number().nullable() });

/**
 * The task's expected_time from its reference outputs: seconds, null when its ground truth failed
 * (or none was given), undefined when it is not checked (no_gt).
 */
function expectedTimeOf(problem: BigCodeBenchProblem, reference: string | null): number | null | undefined {
  if (problem.bigcodebench.no_gt) return undefined;
  if (reference === null) return null;
  const parsed = GroundTruthSchema.safeParse(JSON.parse(reference));
  if (!parsed.success)
    throw new Error(
      `${problem.task_id}: the ground truth's stored outputs are not {"expected_time": seconds or null}: ${reference.slice(0, 200)}`,
    );
  return parsed.data.expected_time;
}

const minTimeLimitOf = (problem: BigCodeBenchProblem): number => problem.bigcodebench.min_time_limit ?? BIGCODEBENCH_MIN_TIME_LIMIT_S;

/** A sample's suite timeout (seconds): evaluate()'s per-task limit, from the task's ground-truth time. */
function sampleTimeoutS(problem: BigCodeBenchProblem, reference: string | null): number {
  return suiteTimeoutS(problem.bigcodebench.timeout_s, minTimeLimitOf(problem), expectedTimeOf(problem, reference) ?? null);
}

/** The sandbox's limits of a run whose suite gets `suiteS` seconds: the process one second more; BigCodeBench's memory. */
function runLimits(suiteS: number) {
  return {
    timeoutMs: Math.min((suiteS + 1) * 1000, LIMITS_MAX_TIMEOUT_MS),
    memoryBytes: BIGCODEBENCH_MEMORY_MIB * 1024 * 1024,
    maxProcesses: 1024,
    maxFileBytes: 1024 * 1024 * 1024,
    maxOutputBytes: 64 * 1024,
  };
}

/**
 * How a task's samples are checked: after its ground truth has run once (get_groundtruth: its time,
 * the per-task limit's part), a reference run cached by its content as every family's reference
 * outputs are (the sweep's bucket, evaluate.ts's --cache-dir), so never once per sample; with
 * no_gt, by their tests alone. A failed ground truth is an answer, not an error: its task is scored
 * all the same, with 20 s for its time, and named in pass_at_k.json's failed_tasks.
 */
function groundTruthChecking(problem: BigCodeBenchProblem): TaskChecking {
  const { bigcodebench: b } = problem;
  if (b.no_gt) return { kind: 'tests' };
  return {
    kind: 'reference-outputs',
    program: groundTruthProgram(`${b.complete_prompt}\n${problem.canonical_solution ?? ''}`, problem.test, b.timeout_s, b.environment),
    limits: runLimits(groundTruthTimeoutS(b.timeout_s, minTimeLimitOf(problem))),
    // What the time depends on: the program, the limits, and the libraries' environment.
    cacheKey: JSON.stringify([
      'bigcodebench-ground-truth-v1',
      problem.task_id,
      b.complete_prompt,
      problem.canonical_solution ?? '',
      problem.test,
      b.timeout_s,
      minTimeLimitOf(problem),
      b.environment ?? null,
    ]),
    parse: (result) => ({ ok: true, outputs: JSON.stringify({ expected_time: groundTruthTimeOf(result.stdout) }) }),
  };
}

/**
 * What the methods' own runs (ExploraCoder's exploration snippets, self-repair's checks) need to
 * run as the samples are scored: the environment, the harness's variables and BigCodeBench's memory
 * limit, when the scoring
 * mounts the environment (some task imports beyond the standard library; each such library's
 * marker is checked before a run starts, so the folder exists). Standard-library tasks need none.
 */
function methodSandbox(problems: readonly BigCodeBenchProblem[], environment: string | undefined): ApiLibrary['sandbox'] {
  if (environment === undefined || !problems.some((p) => externalLibs(p.bigcodebench.libs).length > 0)) return undefined;
  return {
    python_environment: { path: environment, environ: { ...BIGCODEBENCH_ENVIRON } },
    memory_bytes: BIGCODEBENCH_MEMORY_MIB * 1024 * 1024,
  };
}

/**
 * BigCodeBench's verdict as a score (scores.ts): a pass is its `pass` from a run that ended well;
 * `timeout` when the run left none; `fail` for a `pass` from a run that did not end well (an
 * os._exit after the verdict). With its details and the calibration, for its eval_results.json.
 */
function bigCodeBenchScore(
  problem: BigCodeBenchProblem,
  outcome: { status: Parameters<typeof isSuccess>[0]['status']; stdout: string },
  reference: string | null = null,
): TaskScore {
  const expected = expectedTimeOf(problem, reference);
  const verdict = outcome.status === 'timeout' ? 'timeout' : verdictOf(outcome.stdout);
  const passed = verdict === 'pass' && outcome.status === 'passed';
  const noVerdict = verdict === 'timeout' && outcome.status === 'passed';
  const { calibrated, code_prompt } = problem.bigcodebench;
  return {
    kind: 'bigcodebench',
    passed,
    success: isSuccess(outcome),
    status: verdict === 'pass' && !passed ? 'fail' : verdict,
    details: verdict === 'timeout' ? {} : detailsOf(outcome.stdout),
    calibration: calibrated ? `${code_prompt}\n    pass\n` : '',
    ...(expected !== undefined ? { gt_passed: expected !== null } : {}),
    ...(noVerdict ? { failure: { type: 'Timeout', message: 'the run left no verdict (BigCodeBench counts it a timeout)' } } : {}),
  };
}

/**
 * What evaluate.ts's results.json adds to say which BigCodeBench a number is for: the split, subset,
 * calibration, min_time_limit and no_gt when not the defaults (complete, full, calibrated, 1, false), which add nothing, as a
 * sweep's cell of the same answers (whose report shows the dataset's entry).
 */
function cellOf(options: Options): Record<string, unknown> {
  return {
    ...(options.split !== 'complete' ? { split: options.split } : {}),
    ...(options.subset !== 'full' ? { subset: options.subset } : {}),
    ...(!options.calibrated ? { calibrated: false } : {}),
    ...(options.min_time_limit !== BIGCODEBENCH_MIN_TIME_LIMIT_S ? { min_time_limit: options.min_time_limit } : {}),
    ...(options.no_gt ? { no_gt: true } : {}),
  };
}

export const bigCodeBenchFamily: DefinedFamily<
  'bigcodebench',
  typeof BigCodeBenchEntrySchema,
  z.output<typeof PayloadSchema>
> = defineFamily({
  id: 'bigcodebench',
  description: "BigCodeBench (complete or instruct, full or hard): each task's unittest run as its evaluator runs it; pass@k",
  entrySchema: BigCodeBenchEntrySchema,
  payloadSchema: PayloadSchema,
  bringsLibrary: (entry) => entry.library !== undefined,
  files: (entry) => ({
    rows: { path: entry.path, field: 'path' },
    ...entryLibraryFiles(entry.library),
  }),
  load: ({ entry, texts, sources, tools }) => {
    const problems = bigCodeBenchProblems(texts.rows!, sources.rows!, entry, tools);
    // The environment the scoring mounts: the entry's, else the tools folder's default.
    const sandbox = methodSandbox(problems, problems[0]?.bigcodebench.environment);
    return {
      problems,
      ...loadEntryLibrary(entry.library, { texts, sources }, sandbox),
      notes: [],
    };
  },
  stopWords: () => BIGCODEBENCH_STOP_WORDS,
  language: () => 'python',
  // A base model continues the split's prompt (BigCodeBench's generate refuses instruct for base models; explora lets it).
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () => BIGCODEBENCH_INSTRUCTION_PREFIX,
  chatMessage: (problem) => bigCodeBenchChatMessage(problem.bigcodebench.split as BigCodeBenchSplit, problem.prompt),
  // make_raw_chat_prompt's request is the user's message alone: no system message (a model's `prompt: {system}` adds one).
  chatSystem: () => null,
  /**
   * BigCodeBench's `solution`: a base model's completion after the prompt it continued; a chat
   * answer's code (the language's fenced block, or the model's sanitizer); a saved one as it is.
   */
  solution: (problem, api, code) => (api === 'completions' ? problem.prompt + code : code),
  // get_groundtruth's program: complete_prompt + "\n" + canonical_solution.
  referenceSolution: (problem) => `${problem.bigcodebench.complete_prompt}\n${problem.canonical_solution ?? ''}`,
  embedSolution: (problem, solution) =>
    embeddedSolution(problem.bigcodebench.calibrated ? `${problem.bigcodebench.code_prompt}\n    pass\n${solution}` : solution),
  checking: groundTruthChecking,
  tests: (problem, reference) => harnessProgram(problem.test, sampleTimeoutS(problem, reference), problem.bigcodebench.environment),
  // BigCodeBench's own limits, whatever the sweep's timeout: the suite's timeout and a second, 30 GiB of address space.
  limits: (problem, reference) => runLimits(sampleTimeoutS(problem, reference)),
  score: bigCodeBenchScore,
  scoreKinds: [BIGCODEBENCH_SCORES],
  requirements: (problem) =>
    [...new Set(externalLibs(problem.bigcodebench.libs).map((lib) => lib.split('.')[0]!))].map((lib) =>
      libraryRequirement(lib, problem.bigcodebench.environment),
    ),
  evaluate: readsProblemsFiles({
    bigcodeTasks: {
      names: 'bigcodebench-<complete|instruct>[-hard]',
      read: (task) => {
        const match = /^bigcodebench-(complete|instruct)(-hard)?$/.exec(task);
        return match ? { options: { split: match[1], ...(match[2] ? { subset: 'hard' } : {}) } } : null;
      },
    },
    recognize: {
      rank: 10,
      test: (row) => 'complete_prompt' in row && 'instruct_prompt' in row && 'code_prompt' in row,
      fields: "BigCodeBench's task_id, complete_prompt, instruct_prompt, code_prompt, test, libs",
    },
    options: BIGCODEBENCH_OPTIONS.evaluate,
    form: 'full',
    problems: ({ text, source, options, tools }) => {
      const parsed = z.object(BIGCODEBENCH_OPTIONS.entry).parse(options);
      return { problems: bigCodeBenchProblems(text, source, parsed, tools), leftOut: { taskIds: [], why: '' }, cell: cellOf(parsed) };
    },
  }),
});
