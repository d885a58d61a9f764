/**
 * Reads the cells a comparison names from S3: each sweep's results.json (the cell's factors and
 * scored k) and the cell's own results.json (its per-task counts). A sweep still running has no
 * results.json yet: its finished cells are read from their own summary.json, which a cell stores
 * when it ends, so a long sweep's first cells can be compared before the last ones end. Every
 * reference is checked before any statistics are computed; a missing sweep or cell is named, with
 * the cells the sweep does have.
 */
import { z } from 'zod';
import { ComparedTaskSchema, comparedBy, type ComparedCell } from '../../domain/compare/compare.js';
import { CellKindScoresSchema } from '../../domain/scoring/scoreKinds.js';
import type { CellRef } from '../../domain/compare/refs.js';
import { CellProvenanceSchema } from '../../domain/sweep/provenance.js';
import { cellFileKey, cellSummaryKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, s3Uri, type Bucket } from '../../infra/s3.js';
import { StoredCellFactorsSchema } from './storedCellFactors.js';

const CellSummarySchema = z.looseObject({
  cell: StoredCellFactorsSchema,
  passAtK: z.record(z.string(), z.number()),
  resultsKey: z.string().optional(),
  /** The cell's score kind's figures (CellExtraScores): its kind names the statistic the cell is compared by. */
  scores: CellKindScoresSchema.optional(),
});
type StoredCellSummary = z.infer<typeof CellSummarySchema>;
const SweepResultsSchema = z.object({ cells: z.array(CellSummarySchema) });

const CellResultsSchema = z.looseObject({
  per_task: z.array(ComparedTaskSchema),
  provenance: CellProvenanceSchema.optional(),
});

/** A stored file that is not what explora writes. */
export class CompareInputError extends Error {}

function parse<T>(text: string, schema: z.ZodType<T>, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CompareInputError(`${where}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new CompareInputError(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** The cells, in the order named, with their per-task counts. */
export async function loadComparedCells(bucket: Bucket, refs: readonly CellRef[]): Promise<ComparedCell[]> {
  // A finished sweep's results.json, or null while the sweep runs (its cells are then read one by one).
  const sweeps = new Map<string, z.infer<typeof SweepResultsSchema> | null>();
  for (const { sweepId } of refs) {
    if (sweeps.has(sweepId)) continue;
    const key = sweepResultsKey(sweepId);
    const text = await getText(bucket, key);
    sweeps.set(sweepId, text === null ? null : parse(text, SweepResultsSchema, s3Uri(bucket.name, key)));
  }
  const summaries: StoredCellSummary[] = [];
  for (const { sweepId, cellId } of refs) {
    const results = sweeps.get(sweepId)!;
    if (results === null) {
      summaries.push(await finishedCellOfRunningSweep(bucket, sweepId, cellId));
      continue;
    }
    const summary = results.cells.find((c) => c.cell.cell === cellId);
    if (!summary) {
      throw new CompareInputError(`sweep ${sweepId} has no cell ${cellId}; its cells: ${results.cells.map((c) => c.cell.cell).join(', ')}`);
    }
    summaries.push(summary);
  }
  const out: ComparedCell[] = [];
  for (const [i, { sweepId, cellId }] of refs.entries()) {
    const summary = summaries[i]!;
    const key = summary.resultsKey || cellFileKey(sweepId, cellId, 'results.json');
    const text = await getText(bucket, key);
    if (text === null) throw new CompareInputError(`cell ${sweepId}/${cellId}: ${s3Uri(bucket.name, key)} does not exist`);
    const cell = parse(text, CellResultsSchema, s3Uri(bucket.name, key));
    const c = summary.cell;
    out.push({
      ref: `${sweepId}/${cellId}`,
      dataset: c.dataset,
      model: c.model,
      method: c.method,
      temperature: c.temperature,
      nSamples: c.n_samples,
      ...(c.prompt !== undefined ? { prompt: c.prompt } : {}),
      k: Object.keys(summary.passAtK).map((k) => Number(k.split('@')[1])),
      tasks: cell.per_task,
      ...(cell.provenance ? { provenance: cell.provenance } : {}),
      ...comparedBy(summary.scores),
    });
  }
  return out;
}

/** A cell's own summary.json: there once the cell has ended, whether or not its sweep has. */
async function finishedCellOfRunningSweep(bucket: Bucket, sweepId: string, cellId: string): Promise<StoredCellSummary> {
  const key = cellSummaryKey(sweepId, cellId);
  const text = await getText(bucket, key);
  if (text === null) {
    throw new CompareInputError(
      `cell ${sweepId}/${cellId} has not finished: the sweep has no results yet (${s3Uri(bucket.name, sweepResultsKey(sweepId))}) ` +
        `and the cell no summary (${s3Uri(bucket.name, key)}); check the ids (sweep-status ${sweepId} lists its cells) or wait for the cell to end`,
    );
  }
  return parse(text, CellSummarySchema, s3Uri(bucket.name, key));
}
