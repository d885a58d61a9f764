/**
 * A finished sweep, found in S3: started again with the same config (and a mode its results cover),
 * start-sweep shows these results and starts nothing, so nothing stored changes
 * (docs/sweeps/running.md#running-a-finished-sweep-again). `npm start`'s second run comes this way too.
 */
import { sweepReportKey } from '../../domain/report/model.js';
import { finishedSweepCells } from '../../domain/sweep/finished.js';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import type { SweepMode } from '../../domain/sweep/plan.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { getText, headMetadata, type Bucket } from '../../infra/s3.js';

export interface FinishedSweep {
  cells: CellSummary[];
  resultsKey: string;
  reportKey: string;
}

/** The sweep's stored results, when they answer a start of `mode` with the config of `configHash`. */
export async function findFinishedSweep(
  bucket: Bucket,
  start: { sweepId: string; configHash: string; mode: SweepMode },
): Promise<FinishedSweep | null> {
  const resultsKey = sweepResultsKey(start.sweepId);
  const text = await getText(bucket, resultsKey);
  if (text === null) return null;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null; // not results this code wrote: the run writes them anew
  }
  const cells = finishedSweepCells(stored, start);
  if (!cells) return null;
  // The report is stored after the results: a sweep stopped between the two runs again (its cells
  // are kept, so only the last steps run).
  const reportKey = sweepReportKey(start.sweepId);
  if ((await headMetadata(bucket, reportKey)) === null) return null;
  return { cells, resultsKey, reportKey };
}
