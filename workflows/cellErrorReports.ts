/**
 * How a cell that only fails stops (domain/sweep/cellErrors.ts): each shard tells its cell the
 * samples that ended in an error (`cell-errors`, with the samples it attempted since its last
 * report), and asks the cell (`error-hold`, by the `cellErrorHold` local activity) before each task
 * starts; the cell holds once its counts pass the limit, and `release-error-hold` (start-sweep run
 * again, sweep-status --resume) lets it go on, with the config's limits of now.
 */
import { defineQuery, defineSignal, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { CellErrorHold, CellErrorStop } from '../domain/sweep/cellErrors.js';

export interface ShardErrorReport {
  shardIndex: number;
  /** Samples that ended in an error since the shard's last report. */
  errors: number;
  /** Samples whose answer or run ended since the shard's last report (errors included). */
  attempted: number;
  message: string;
}
export const cellErrorsSignal = defineSignal<[ShardErrorReport]>('cell-errors');

/** Lets a held cell go on, counting from zero, with `stop` if given (the config's limits now; null: never hold again). */
export const releaseErrorHoldSignal = defineSignal<[{ stop?: CellErrorStop | null }]>('release-error-hold');

/** The cell's hold (null: none); the name is also activities/budget/spendHold.ts's. */
export const cellErrorHoldQuery = defineQuery<CellErrorHold | null>('error-hold');

/** Tells the cell `to` of a shard's errors; awaited, so the count has them before the shard asks again. A cell that is gone is no error. */
export async function reportCellErrors(to: string, report: ShardErrorReport): Promise<void> {
  await getExternalWorkflowHandle(to)
    .signal(cellErrorsSignal, report)
    .catch(() => undefined);
}
