/**
 * Reads the cells a comparison names from S3: each sweep's results.json (the cell's factors and
 * scored k) and the cell's own results.json (its per-task counts). Every reference is checked before
 * any statistics are computed; a missing sweep or cell is named, with the cells the sweep does have.
 */
import { z } from 'zod';
import { ComparedTaskSchema, type ComparedCell } from '../../domain/compare/compare.js';
import type { CellRef } from '../../domain/compare/refs.js';
import { CellProvenanceSchema } from '../../domain/sweep/provenance.js';
import { cellFileKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, s3Uri, type Bucket } from '../../infra/s3.js';

const SweepResultsSchema = z.object({
  cells: z.array(
    z.looseObject({
      cell: z.looseObject({
        cell: z.string(),
        dataset: z.string(),
        model: z.string(),
        method: z.string(),
        temperature: z.number(),
        n_samples: z.number().int(),
        prompt: z.string().optional(),
      }),
      passAtK: z.record(z.string(), z.number()),
      resultsKey: z.string().optional(),
    }),
  ),
});

const CellResultsSchema = z.looseObject({
  per_task: z.array(ComparedTaskSchema),
  provenance: CellProvenanceSchema.optional(),
  /** A text-scored cell's scores name its corpus metric (domain/sweep/results.ts, extraScoresJson). */
  scores: z.looseObject({ metric: z.string().optional() }).optional(),
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
  const sweeps = new Map<string, z.infer<typeof SweepResultsSchema>>();
  for (const { sweepId } of refs) {
    if (sweeps.has(sweepId)) continue;
    const key = sweepResultsKey(sweepId);
    const text = await getText(bucket, key);
    if (text === null)
      throw new CompareInputError(`sweep ${sweepId} has no results: ${s3Uri(bucket.name, key)} does not exist (has the sweep finished?)`);
    sweeps.set(sweepId, parse(text, SweepResultsSchema, s3Uri(bucket.name, key)));
  }
  const out: ComparedCell[] = [];
  for (const { sweepId, cellId } of refs) {
    const results = sweeps.get(sweepId)!;
    const summary = results.cells.find((c) => c.cell.cell === cellId);
    if (!summary) {
      throw new CompareInputError(`sweep ${sweepId} has no cell ${cellId}; its cells: ${results.cells.map((c) => c.cell.cell).join(', ')}`);
    }
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
      ...(cell.scores?.metric !== undefined ? { corpusMetric: cell.scores.metric } : {}),
    });
  }
  return out;
}
