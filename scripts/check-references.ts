/**
 * `tsx scripts/check-references.ts --config FILE [--dataset NAME] [--timeout S] [--json]`: runs each
 * dataset's own solutions (canonical_solution, MBPP's code) through the sandbox, the same way a
 * sweep runs samples, and lists the tasks whose reference fails, by task id. Reads the datasets
 * exactly as a sweep with that config would (its family, its files, its task selection); PBE World
 * is generated locally from its parameters. Needs neither Temporal nor S3 (unless a file is s3://).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { loadSweepConfig, SweepConfigError } from '../domain/sweep/config.js';
import { s3ClientFor } from '../infra/s3.js';
import { checkSweepReferences, formatReferenceChecks } from './lib/references.js';
import { SweepInputError } from './lib/sweep-input.js';

class UsageError extends Error {}

new Command('check-references')
  .description("run each dataset's reference solutions in the sandbox and list the tasks whose reference fails")
  .requiredOption('--config <file>', 'a sweep config (YAML or JSON): its datasets and task selection are checked')
  .option('--dataset <name>', 'only this dataset of the config')
  .option('--timeout <seconds>', 'wall time per program (default: the config timeout_s)')
  .option('--json', 'print the result as JSON', false)
  .addHelpText('after', environmentHelp(['s3', 'sandbox'], 'S3 for generated datasets and s3:// files'))
  .action(async (flags: { config: string; dataset?: string; timeout?: string; json: boolean }) => {
    const env = loadConfig(process.env);
    const s3 = s3ClientFor(env);
    try {
      if (!existsSync(flags.config)) throw new UsageError(`--config ${flags.config}: no such file`);
      const config = loadSweepConfig(readFileSync(flags.config, 'utf8'), flags.config);
      const datasets = flags.dataset ? config.datasets.filter((d) => d.name === flags.dataset) : config.datasets;
      if (datasets.length === 0)
        throw new UsageError(
          `--dataset ${flags.dataset}: the config has no such dataset (it has ${config.datasets.map((d) => d.name).join(', ')})`,
        );
      const timeoutS = flags.timeout === undefined ? config.timeout_s : Number(flags.timeout);
      if (!(timeoutS > 0)) throw new UsageError(`--timeout ${flags.timeout}: must be a positive number of seconds`);
      const report = await checkSweepReferences(config, datasets, {
        bucket: { s3, name: env.s3.bucket },
        configFile: flags.config,
        timeoutS,
        progress: !flags.json && process.stderr.isTTY === true,
        log: (line) => console.error(line),
      });
      console.log(flags.json ? JSON.stringify(report, null, 2) : formatReferenceChecks(report));
    } catch (err) {
      if (err instanceof UsageError || err instanceof SweepConfigError || err instanceof SweepInputError) {
        console.error(`check-references: ${err.message}`);
        process.exitCode = 2;
        return;
      }
      throw err;
    } finally {
      s3.destroy();
    }
  })
  .parseAsync()
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
