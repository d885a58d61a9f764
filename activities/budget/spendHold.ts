/**
 * Whether a budgeted sweep's spend ledger holds it now: a shard asks before each task starts, so a
 * cap reached stops the starts at once instead of when the pause has travelled from the ledger to
 * the sweep, its cell and the shard (three signals, during which the shard's lanes kept starting
 * tasks: a 10-token cap let 12-14 tasks be answered where the window allows 8). A local activity of
 * the workflow worker (it serves the ledger too), querying the ledger with the worker's client.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { BudgetHold } from '../../domain/sweep/budget.js';
import type { CellErrorHold } from '../../domain/sweep/cellErrors.js';

export interface SpendHoldInput {
  /** The ledger's workflow id (domain/sweep/keys.ts spendLedgerWorkflowId). */
  ledgerWorkflowId: string;
}

/** The name of the ledger's query (workflows/spendReports.ts spendLedgerQuery); activities do not import workflow code. */
const LEDGER_QUERY = 'ledger';
/** The cell's query of its error hold (workflows/cellErrorReports.ts cellErrorHoldQuery). */
const CELL_ERROR_HOLD_QUERY = 'error-hold';

export function createBudgetActivities() {
  return {
    /** The ledger's hold (null: none). A ledger that is gone holds nothing: its sweep ended or was terminated. */
    async spendHold(input: SpendHoldInput): Promise<BudgetHold | null> {
      try {
        const state = await Context.current()
          .client.workflow.getHandle(input.ledgerWorkflowId)
          .query<{ hold: BudgetHold | null }>(LEDGER_QUERY);
        return state.hold;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
    },
    /**
     * Whether a shard's cell holds on errors (domain/sweep/cellErrors.ts): asked before each task
     * starts, for the same reason as spendHold. A cell that is gone holds nothing.
     */
    async cellErrorHold(input: { cellWorkflowId: string }): Promise<CellErrorHold | null> {
      try {
        return await Context.current().client.workflow.getHandle(input.cellWorkflowId).query<CellErrorHold | null>(CELL_ERROR_HOLD_QUERY);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
    },
  };
}
