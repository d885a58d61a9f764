/**
 * Whether stored results already answer a start: a finished sweep started again with the same
 * config shows them and starts nothing, and a restarted sweep keeps the cells it had finished
 * (docs/sweeps/running.md#running-a-finished-sweep-again). Only S3 decides, so that a sweep whose
 * workflow history is gone (retention) is still found finished.
 */
import { z } from 'zod';
import type { SweepMode } from './plan.js';
import type { CellSummary } from './results.js';

/** The parts of a stored CellSummary that are read back; the rest passes through as stored. */
const StoredCellSummarySchema = z
  .object({
    cell: z.record(z.string(), z.unknown()),
    tasks: z.number(),
    samples: z.number(),
    passAtK: z.record(z.string(), z.number()),
    successAtK: z.record(z.string(), z.number()),
    droppedK: z.array(z.string()),
    statusCounts: z.record(z.string(), z.number()),
    cost: z
      .object({
        calls: z.number(),
        promptTokens: z.number(),
        completionTokens: z.number(),
        sandboxRuns: z.number(),
        wallSeconds: z.number(),
      })
      .passthrough(),
    resultsKey: z.string(),
  })
  .passthrough();

/** A sweep's results.json (activities/storage/sweepFiles.ts finalizeSweep). */
export const StoredSweepResultsSchema = z
  .object({ sweep_id: z.string(), config_sha256: z.string(), cells: z.array(StoredCellSummarySchema) })
  .passthrough();

/** A finished cell's summary as stored beside its results (sweepFiles.ts finalizeCell). */
export function parseStoredCellSummary(value: unknown): CellSummary | null {
  const parsed = StoredCellSummarySchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as CellSummary) : null;
}

/**
 * Whether a finished cell answers a start of `mode`. Samples only saved (generation-only) answer a
 * generation-only start; a start that executes them must run the cell again (it executes what was
 * saved, asking the model nothing).
 */
export function summaryCoversMode(summary: Pick<CellSummary, 'statusCounts'>, mode: SweepMode): boolean {
  return mode === 'generation-only' || !(summary.statusCounts.not_executed ?? 0);
}

/**
 * The cells of a finished sweep's stored results when they answer this start (the same sweep, the
 * same config, every cell covering the mode); null when the sweep must run.
 */
export function finishedSweepCells(stored: unknown, start: { sweepId: string; configHash: string; mode: SweepMode }): CellSummary[] | null {
  const parsed = StoredSweepResultsSchema.safeParse(stored);
  if (!parsed.success) return null;
  const { sweep_id, config_sha256, cells } = parsed.data;
  if (sweep_id !== start.sweepId || config_sha256 !== start.configHash) return null;
  const summaries = cells as unknown as CellSummary[];
  return summaries.length > 0 && summaries.every((c) => summaryCoversMode(c, start.mode)) ? summaries : null;
}
