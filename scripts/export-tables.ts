/**
 * `node bin/run.mjs scripts/export-tables.ts <sweep>... [--out DIR]`: finished sweeps' results as two
 * Parquet files for pandas, Polars or DuckDB (docs/sweeps/results.md#results-as-tables): samples.parquet, a
 * row per sample, and cells.parquet, a row per cell. Exit 0 when written, 1 when a sweep cannot be
 * exported (named), 2 on a usage error.
 */
import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { ENV_DOC } from '../domain/config/env.js';
import { CELL_COLUMNS, SAMPLE_COLUMNS, TABLES_SCHEMA_VERSION } from '../domain/export/tables.js';
import { loadConfig } from '../infra/config.js';
import { s3ClientFor } from '../infra/s3.js';
import { exportSweepTables } from '../activities/storage/exportTables.js';

const S3_ENV = ENV_DOC.filter(([k]) => k.startsWith('EXPLORA_S3_') || k === 'AWS_REGION');
const columns = (list: ReadonlyArray<{ name: string }>) => list.map((c) => c.name).join(', ');

const program = new Command('export-tables')
  .description("Export finished sweeps' sample records and cell results from S3 to samples.parquet and cells.parquet")
  .argument('<sweeps...>', 'sweep ids (sweep-status lists them), one or more')
  .option('--out <dir>', 'folder the two files are written to (made if missing; files there are replaced)', 'tables')
  .addHelpText(
    'after',
    `\nColumns (schema version ${TABLES_SCHEMA_VERSION}; docs/sweeps/results.md#results-as-tables describes each):\n` +
      `  samples.parquet: ${columns(SAMPLE_COLUMNS)}\n  cells.parquet:   ${columns(CELL_COLUMNS)}\n` +
      `\nEnvironment (the results are read from S3):\n${S3_ENV.map(([k, d, w]) => `  ${k.padEnd(30)} ${w} (default ${d})`).join('\n')}`,
  )
  .exitOverride()
  .action(async (sweepIds: string[], flags: { out: string }) => {
    const env = loadConfig(process.env);
    const s3 = s3ClientFor(env);
    try {
      const out = await exportSweepTables({ s3, name: env.s3.bucket }, sweepIds, resolve(flags.out), (line) => console.error(line));
      console.log(`${out.samples} samples -> ${out.samplesFile}\n${out.cells} cells -> ${out.cellsFile}`);
    } finally {
      s3.destroy();
    }
  });

program.parseAsync().catch((err: Error) => {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2); // commander printed it
  console.error(`export-tables: ${err.message}`);
  process.exit(1);
});
