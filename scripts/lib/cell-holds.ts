/**
 * Cells held on errors (domain/sweep/cellErrors.ts), as the CLIs show and release them: start-sweep
 * run again on a running sweep releases its held cells with the config's limits, sweep-status
 * --resume with the limits they had, and both say each cell's reason.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { CELL_HOLD_HINT, describeCellErrorHold, type CellErrorHold, type CellErrorStop } from '../../domain/sweep/cellErrors.js';
import { cellWorkflowId } from '../../domain/sweep/keys.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { cellErrorHoldQuery, releaseErrorHoldSignal } from '../../workflows/cellErrorReports.js';

/** A held cell's line: why it holds, and what to do. */
export function cellHoldLine(hold: CellErrorHold): string {
  return `${describeCellErrorHold(hold)}\n  ${CELL_HOLD_HINT}`;
}

/**
 * Releases the sweep's running cells from their error holds (a cell not held starts counting
 * afresh); `stop` the limits from now on (undefined: each cell keeps its own). Returns the cells
 * told, with the hold each had (null: none, or no worker said). A cell not running (pending, done) is skipped.
 */
export async function releaseHeldCells(
  client: Client,
  sweepId: string,
  cellIds: readonly string[],
  stop: CellErrorStop | null | undefined,
): Promise<Array<{ id: string; hold: CellErrorHold | null }>> {
  const told = await Promise.all(
    cellIds.map(async (id) => {
      const handle = client.workflow.getHandle(cellWorkflowId(sweepId, id));
      const running = await handle.describe().then(
        (d) => d.status.name === 'RUNNING',
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        },
      );
      if (!running) return null;
      // What it held for, when a worker says (a cell no worker serves answers no query: told all the same).
      const hold = await handle.query(cellErrorHoldQuery).catch(() => null);
      await handle.signal(releaseErrorHoldSignal, stop === undefined ? {} : { stop });
      return { id, hold };
    }),
  );
  return told.filter((t) => t !== null);
}

/** A line per finished cell that held on errors on its way (its `cell.error_holds`): how often, and the last reason. */
export function heldOnErrorsLines(cells: readonly CellSummary[]): string[] {
  return cells.flatMap((c) => {
    const holds = c.cell.error_holds as { count?: unknown; last?: unknown } | undefined;
    if (!holds || typeof holds.count !== 'number') return [];
    return [`held on errors: ${String(c.cell.cell ?? '')} ${holds.count} time(s), the last: ${String(holds.last)}`];
  });
}
