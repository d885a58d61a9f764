/**
 * `tsx scripts/check-references.ts --config FILE [--dataset NAME] [--timeout S] [--json]`: runs each
 * dataset's own solutions (canonical_solution, MBPP's code) through the sandbox, the same way a
 * sweep runs samples, and lists the tasks whose reference fails, by task id. Reads the datasets
 * exactly as a sweep with that config would (its family, its files, its `limit`); PBE World is
 * generated locally from its parameters. Needs neither Temporal nor S3 (unless a file is s3://).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { parseConfig } from '../domain/config/env.js';
import { familyOf } from '../domain/families/registry.js';
import type { LoadedDataset } from '../domain/families/types.js';
import { generateLines } from '../domain/pbe/generate.js';
import { loadSweepConfig, SweepConfigError, type SweepDatasetConfig } from '../domain/sweep/config.js';
import { selectionOf, selectTasks } from '../domain/sweep/selection.js';
import { s3ClientFor } from '../infra/s3.js';
import { SandboxPool } from '../infra/sandbox/pool.js';
import { checkReferences, type ReferenceCheck } from '../infra/sandbox/referenceCheck.js';
import { loadDatasetEntry, SweepInputError } from './lib/sweep-input.js';
import { progressBar } from './lib/progress.js';

class UsageError extends Error {}

async function loaded(entry: SweepDatasetConfig, configFile: string): Promise<LoadedDataset> {
  if (entry.family === 'pbe-world') {
    const rows = [...generateLines(entry.pbe_world, 0, entry.pbe_world.count)].join('');
    return familyOf(entry).load({ entry: entry as never, texts: { rows }, sources: { rows: `dataset ${entry.name} (generated)` } });
  }
  const env = parseConfig(process.env);
  const result = await loadDatasetEntry({ s3: s3ClientFor(env), name: env.s3.bucket }, configFile, entry);
  if (!result) throw new UsageError(`dataset ${entry.name}: family ${entry.family} has no files to read`);
  return result;
}

new Command('check-references')
  .description("run each dataset's reference solutions in the sandbox and list the tasks whose reference fails")
  .requiredOption('--config <file>', 'a sweep config (YAML or JSON): its datasets and limit are checked')
  .option('--dataset <name>', 'only this dataset of the config')
  .option('--timeout <seconds>', 'wall time per program (default: the config timeout_s)')
  .option('--json', 'print the result as JSON', false)
  .action(async (flags: { config: string; dataset?: string; timeout?: string; json: boolean }) => {
    const pool = new SandboxPool();
    try {
      if (!existsSync(flags.config)) throw new UsageError(`--config ${flags.config}: no such file`);
      const config = loadSweepConfig(readFileSync(flags.config, 'utf8'), flags.config);
      const datasets = flags.dataset ? config.datasets.filter((d) => d.name === flags.dataset) : config.datasets;
      if (datasets.length === 0) throw new UsageError(`--dataset ${flags.dataset}: the config has no such dataset (it has ${config.datasets.map((d) => d.name).join(', ')})`);
      const timeoutS = flags.timeout === undefined ? config.timeout_s : Number(flags.timeout);
      if (!(timeoutS > 0)) throw new UsageError(`--timeout ${flags.timeout}: must be a positive number of seconds`);
      const report: Record<string, ReferenceCheck> = {};
      for (const entry of datasets) {
        const dataset = await loaded(entry, flags.config);
        for (const note of dataset.notes) console.error(note);
        const problems = selectTasks(dataset.problems, selectionOf(config), (p) => p.task_id);
        const bar = progressBar(`${entry.name}`, !flags.json && process.stderr.isTTY === true);
        report[entry.name] = await checkReferences(problems, dataset.library, pool, { timeoutS, onDone: (n) => bar.update(n, problems.length) });
        bar.stop();
      }
      if (flags.json) {
        console.log(JSON.stringify(report, null, 2));
        return;
      }
      for (const [name, r] of Object.entries(report)) {
        console.log(`${name}: ${r.passed} of ${r.checked} references pass${r.without.length ? `; ${r.without.length} tasks have none` : ''}`);
        for (const f of r.failures) console.log(`  ${f.task_id}: ${f.status}: ${f.message.split('\n')[0]}`);
      }
    } catch (err) {
      if (err instanceof UsageError || err instanceof SweepConfigError || err instanceof SweepInputError) {
        console.error(`check-references: ${err.message}`);
        process.exitCode = 2;
        return;
      }
      throw err;
    } finally {
      await pool.close();
    }
  })
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
