/**
 * Exports finished sweeps from S3 into two Parquet files (domain/export/tables.ts): samples.parquet,
 * one row per sample record of every cell, and cells.parquet, one row per cell. Every sweep is
 * checked before anything is written (a missing or running sweep is named); each cell's records
 * are read one shard file at a time, so memory holds one shard and one row group.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  CELL_COLUMNS,
  SAMPLE_COLUMNS,
  TABLES_SCHEMA_VERSION,
  type CellContext,
  type CellRow,
  sampleRow,
  type SampleRow,
} from '../../domain/export/tables.js';
import { PriceSchema, type ModelPrice } from '../../domain/sweep/price.js';
import { pricesOf } from '../../domain/sweep/budget.js';
import { cellRecordsPrefix, sweepConfigKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { ParquetTableWriter } from '../../infra/parquetTable.js';
import { readRecordsFile } from '../../infra/recordParts.js';
import { getText, listKeys, s3Uri, type Bucket } from '../../infra/s3.js';
import { StoredCellFactorsSchema } from './storedCellFactors.js';

/** A sweep that cannot be exported (missing, not finished, or its files not what explora writes). */
export class ExportInputError extends Error {}

const CellSummarySchema = z.looseObject({
  cell: StoredCellFactorsSchema,
  tasks: z.number().int().nonnegative(),
  passAtK: z.record(z.string(), z.number()),
  scores: z.unknown().optional(),
  alsoText: z.unknown().optional(),
  cost: z.looseObject({
    calls: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    batchPromptTokens: z.number().optional(),
    batchCompletionTokens: z.number().optional(),
    wallSeconds: z.number().optional(),
  }),
});
const SweepResultsSchema = z.looseObject({ cells: z.array(CellSummarySchema) });
// The stored config is whatever the user wrote, checked when the sweep started: only the prices are read here.
const StoredConfigSchema = z.looseObject({
  config: z.looseObject({
    models: z
      .array(
        z.looseObject({
          id: z.string(),
          price: PriceSchema.optional(),
          batch: z.looseObject({ price: PriceSchema.optional() }).optional(),
        }),
      )
      .optional(),
  }),
});

function parse<T>(text: string, schema: z.ZodType<T>, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ExportInputError(`${where}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ExportInputError(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

interface LoadedSweep {
  sweepId: string;
  cells: Array<z.infer<typeof CellSummarySchema>>;
  prices: Map<string, ModelPrice>;
}

async function loadSweep(bucket: Bucket, sweepId: string): Promise<LoadedSweep> {
  const key = sweepResultsKey(sweepId);
  const text = await getText(bucket, key);
  if (text === null)
    throw new ExportInputError(
      `sweep ${sweepId}: ${s3Uri(bucket.name, key)} does not exist: no such sweep, or it has not finished (sweep-status ${sweepId} says which)`,
    );
  const results = parse(text, SweepResultsSchema, s3Uri(bucket.name, key));
  const configText = await getText(bucket, sweepConfigKey(sweepId));
  const prices = new Map<string, ModelPrice>();
  if (configText !== null)
    // A batch-mode model's answers cost its batch price when a batch answered them (pricesOf).
    for (const [id, price] of Object.entries(
      pricesOf(parse(configText, StoredConfigSchema, s3Uri(bucket.name, sweepConfigKey(sweepId))).config.models ?? []) ?? {},
    ))
      prices.set(id, price);
  return { sweepId, cells: results.cells, prices };
}

export interface ExportedTables {
  samplesFile: string;
  cellsFile: string;
  samples: number;
  cells: number;
}

/** Writes `<outDir>/samples.parquet` and `<outDir>/cells.parquet` for the sweeps, in the order given. */
export async function exportSweepTables(
  bucket: Bucket,
  sweepIds: readonly string[],
  outDir: string,
  progress: (line: string) => void = () => {},
): Promise<ExportedTables> {
  if (new Set(sweepIds).size !== sweepIds.length) throw new ExportInputError(`a sweep is named twice: ${sweepIds.join(', ')}`);
  const sweeps: LoadedSweep[] = [];
  for (const sweepId of sweepIds) sweeps.push(await loadSweep(bucket, sweepId));

  mkdirSync(outDir, { recursive: true });
  const metadata = { 'explora.tables_schema_version': String(TABLES_SCHEMA_VERSION), 'explora.sweeps': sweepIds.join(',') };
  const samplesFile = join(outDir, 'samples.parquet');
  const cellsFile = join(outDir, 'cells.parquet');
  const samples = new ParquetTableWriter<SampleRow>(samplesFile, SAMPLE_COLUMNS, metadata);
  const cells = new ParquetTableWriter<CellRow>(cellsFile, CELL_COLUMNS, metadata);
  try {
    for (const sweep of sweeps) {
      for (const summary of sweep.cells) {
        const factors = summary.cell;
        const context: CellContext = {
          sweepId: sweep.sweepId,
          cell: factors.cell,
          dataset: factors.dataset,
          model: factors.model,
          method: factors.method,
          temperature: factors.temperature,
          nSamples: factors.n_samples,
          prompt: factors.prompt ?? null,
          price: sweep.prices.get(factors.model) ?? null,
        };
        const before = samples.count;
        const prefix = cellRecordsPrefix(sweep.sweepId, factors.cell);
        const keys: string[] = [];
        for await (const key of listKeys(bucket, prefix)) keys.push(key);
        for (const key of keys.sort()) {
          const records = await readRecordsFile(bucket, key);
          if (records === null) throw new ExportInputError(`${s3Uri(bucket.name, key)} vanished while it was read`);
          for (const record of records) await samples.add(sampleRow(context, record));
        }
        await cells.add({
          context,
          tasks: summary.tasks,
          samples: samples.count - before,
          passAtK: summary.passAtK,
          scores: summary.scores,
          alsoText: summary.alsoText,
          calls: summary.cost.calls,
          promptTokens: summary.cost.promptTokens,
          completionTokens: summary.cost.completionTokens,
          ...(summary.cost.batchPromptTokens !== undefined
            ? { batchPromptTokens: summary.cost.batchPromptTokens, batchCompletionTokens: summary.cost.batchCompletionTokens ?? 0 }
            : {}),
          wallSeconds: summary.cost.wallSeconds ?? null,
        });
        progress(`${sweep.sweepId}/${factors.cell}: ${samples.count - before} samples`);
      }
    }
    await samples.close();
    await cells.close();
  } catch (error) {
    samples.abandon();
    cells.abandon();
    throw error;
  }
  return { samplesFile, cellsFile, samples: samples.count, cells: cells.count };
}
