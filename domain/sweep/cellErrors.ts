/**
 * A cell that only fails stops paying (`stop_cell_on_errors:` of a sweep config): its shards count
 * the samples that ended in an infrastructure error, and the cell holds (starts no more tasks) once
 * they pass a count or a share of the samples it attempted, until it is released (start-sweep run
 * again, or sweep-status --resume). Pure: the workflows, the CLIs and the config checks share it.
 *
 * An error is a sample the infrastructure failed, never a wrong answer:
 * - a fresh LLM error: the endpoint failed the sample's request for good, now (5 time-outs, 5
 *   malformed answers, a 4xx about the request), recorded as `llm_error`; one read from the cache
 *   costs nothing and is not counted;
 * - a task refused: its LLM activity (or its method's chain) failed for good (the endpoint refuses
 *   the sweep: 401, 403, 404, no API key; a request that cannot be built), nothing recorded: each of
 *   its samples counts, and the task is asked again later;
 * - a sandbox setup failure: the run of a shard's samples failed for good for a reason of the
 *   worker's setup (a language's toolchain missing on the sandbox worker).
 * Not errors: failed tests, a program's time-out or crash (records `failed`, `timeout`, `error`...),
 * and outages (5xx, 429, no connection), which are retried without end and cost nothing.
 */
import { z } from 'zod';

export const CELL_ERROR_KEYS = ['max_errors', 'max_error_fraction', 'min_samples'] as const;

const CellErrorLimitsSchema = z
  .strictObject({
    /** Holds the cell once this many of its samples ended in an error (since its last release). */
    max_errors: z.int().min(1).optional(),
    /** Holds the cell once errors are at least this share of the samples it attempted... */
    max_error_fraction: z.number().gt(0).max(1).optional(),
    /** ...counted once it attempted at least this many (default DEFAULT_MIN_SAMPLES). */
    min_samples: z.int().min(1).optional(),
  })
  .refine((s) => s.max_errors !== undefined || s.max_error_fraction !== undefined, {
    message: 'give max_errors, max_error_fraction or both (or false: no cell ever stops on errors)',
  })
  .refine((s) => s.min_samples === undefined || s.max_error_fraction !== undefined, {
    message: 'min_samples only counts for max_error_fraction: give it too',
    path: ['min_samples'],
  });

/** `false`: never stop a cell on errors; else its limits. Absent: DEFAULT_CELL_ERROR_STOP. */
export const CellErrorStopConfigSchema = z.union([z.literal(false), CellErrorLimitsSchema], {
  error: 'must be false or a mapping of max_errors, max_error_fraction, min_samples',
});
export type CellErrorStopConfig = z.infer<typeof CellErrorStopConfigSchema>;

/** The rule as the cell workflow takes it (every field resolved). */
export interface CellErrorStop {
  maxErrors: number | null;
  maxErrorFraction: number | null;
  minSamples: number;
}

export const DEFAULT_MIN_SAMPLES = 20;
/** A cell stops when half of at least 20 samples failed, or at 100 errors, whichever comes first. */
export const DEFAULT_CELL_ERROR_STOP: CellErrorStop = { maxErrors: 100, maxErrorFraction: 0.5, minSamples: DEFAULT_MIN_SAMPLES };

/** A config's rule; null when it turns the stop off. */
export function cellErrorStopOf(config: { stop_cell_on_errors?: CellErrorStopConfig }): CellErrorStop | null {
  const c = config.stop_cell_on_errors;
  if (c === false) return null;
  if (c === undefined) return DEFAULT_CELL_ERROR_STOP;
  return {
    maxErrors: c.max_errors ?? null,
    maxErrorFraction: c.max_error_fraction ?? null,
    minSamples: c.min_samples ?? DEFAULT_MIN_SAMPLES,
  };
}

/** What a cell counted since it started or was last released. */
export interface CellErrorCount {
  errors: number;
  /** Samples whose answer or run ended (errors included). */
  attempted: number;
  /** The last error's message. */
  lastError: string;
}

/** Why a cell holds: the limit passed, the counts, the last error. */
export interface CellErrorHold extends CellErrorCount {
  cellId: string;
  /** The limit it passed: `max_errors 100` or `max_error_fraction 0.5`. */
  limit: string;
}

/** The hold the counts call for, or null. */
export function cellErrorHold(cellId: string, stop: CellErrorStop, count: CellErrorCount): CellErrorHold | null {
  if (count.errors === 0) return null;
  if (stop.maxErrors !== null && count.errors >= stop.maxErrors) return { cellId, limit: `max_errors ${stop.maxErrors}`, ...count };
  const attempted = Math.max(count.attempted, count.errors);
  if (stop.maxErrorFraction !== null && attempted >= stop.minSamples && count.errors / attempted >= stop.maxErrorFraction)
    return { cellId, limit: `max_error_fraction ${stop.maxErrorFraction}`, ...count, attempted };
  return null;
}

/** One line for people: the cell, the count and share, the limit, the last error, and how to resume. */
export function describeCellErrorHold(h: CellErrorHold): string {
  const share = h.attempted > 0 ? ` (${Math.round((100 * h.errors) / h.attempted)}%)` : '';
  return (
    `errors: cell ${h.cellId} stopped after ${h.errors} errors in ${h.attempted} samples${share}, ` +
    `over stop_cell_on_errors.${h.limit}; last error: ${h.lastError}`
  );
}

/** What to do about a held cell (docs/sweeps/cost.md#cells-that-only-fail). */
export const CELL_HOLD_HINT =
  'fix the cause, then run start-sweep again with the same config (or sweep-status --resume): the cell goes on, nothing answered is asked again';

/** The `message` of a failure's deepest cause, cut to one line of at most 500 characters. */
export function errorLine(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}
