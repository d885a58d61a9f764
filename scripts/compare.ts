/**
 * `tsx scripts/compare.ts <sweep>/<cell> <sweep>/<cell> [...]`: compares cells of finished sweeps task
 * by task (docs/sweeps/results.md#comparing): for each pair, the difference of each score with paired 95%
 * intervals, a paired test, Holm-adjusted p-values, and the tasks that flip. Exit 0 when compared,
 * 1 when the cells cannot be (missing, or not on the same tasks), 2 on a usage error.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ENV_DOC } from '../domain/config/env.js';
import { compareCells } from '../domain/compare/compare.js';
import { formatComparison } from '../domain/compare/format.js';
import { parseCellRef, type CellRef } from '../domain/compare/refs.js';
import { loadConfig } from '../infra/config.js';
import { s3ClientFor } from '../infra/s3.js';
import { loadComparedCells } from '../activities/storage/compare.js';

class UsageError extends Error {}

function positiveInt(flag: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer`);
    return n;
  };
}

function level(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('--alpha must be a number between 0 and 1, e.g. 0.05');
  return n;
}

const S3_ENV = ENV_DOC.filter(([k]) => k.startsWith('EXPLORA_S3_') || k === 'AWS_REGION');

interface Flags {
  sharedTasks: boolean;
  alpha: number;
  resamples: number;
  seed: number;
  maxFlips: number;
  json: boolean;
}

const program = new Command('compare')
  .description('Compare two or more cells of finished sweeps on the same tasks: paired differences, intervals, tests, flips')
  .argument('<cells...>', 'cells as <sweep>/<cell> (from one sweep or several), at least two')
  .option('--shared-tasks', 'compare on the tasks all cells share, leaving out the others (default: refuse differing task sets)', false)
  .option('--alpha <level>', 'level at which a Holm-adjusted p-value is marked significant', level, 0.05)
  .option('--resamples <n>', 'bootstrap resamples', positiveInt('--resamples'), 10_000)
  .option('--seed <n>', 'bootstrap seed (fixed, so the same cells give the same numbers)', positiveInt('--seed'), 29)
  .option('--max-flips <n>', 'flipped tasks listed per direction (all in --json)', positiveInt('--max-flips'), 30)
  .option('--json', 'print the comparison as JSON instead of tables', false)
  .addHelpText(
    'after',
    `\nEnvironment (the results are read from S3):\n${S3_ENV.map(([k, d, w]) => `  ${k.padEnd(30)} ${w} (default ${d})`).join('\n')}`,
  )
  .exitOverride()
  .action(async (names: string[], flags: Flags) => {
    const refs: CellRef[] = [];
    for (const name of names) {
      const ref = parseCellRef(name);
      if ('problem' in ref) throw new UsageError(ref.problem);
      refs.push(ref);
    }
    if (refs.length < 2) throw new UsageError(`at least two cells are needed, got ${refs.length}`);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new UsageError(`cell ${dup} is named twice`);
    const env = loadConfig(process.env);
    const s3 = s3ClientFor(env);
    try {
      const cells = await loadComparedCells({ s3, name: env.s3.bucket }, refs);
      const cmp = compareCells(cells, {
        sharedOnly: flags.sharedTasks,
        alpha: flags.alpha,
        bootstrap: { resamples: flags.resamples, seed: flags.seed },
      });
      console.log(flags.json ? JSON.stringify(cmp, null, 2) : formatComparison(cmp, { maxFlips: flags.maxFlips }));
    } finally {
      s3.destroy();
    }
  });

program.parseAsync().catch((err: Error) => {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2); // commander printed it
  console.error(`compare: ${err.message}`);
  // Cells that cannot be compared (TaskMismatchError, CompareInputError) and anything unexpected: 1.
  process.exit(err instanceof UsageError ? 2 : 1);
});
