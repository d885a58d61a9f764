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

/** The ledger's hold (null: none, or the ledger is gone: its sweep ended or was terminated). */
async function spendHoldOf(ledgerWorkflowId: string): Promise<BudgetHold | null> {
  try {
    const state = await Context.current().client.workflow.getHandle(ledgerWorkflowId).query<{ hold: BudgetHold | null }>(LEDGER_QUERY);
    return state.hold;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/**
 * How long a shard waits for its cell to answer. A query needs a worker of the cell's workflow; when
 * none answers (its workers stopping, or every slot of the only one busy with shards waiting on
 * this very query), the task starts, and the cell's hold still reaches the shard as a pause, as it
 * did before shards asked. Waiting instead held whole sweeps for minutes (stop-signals.e2e).
 */
const CELL_QUERY_DEADLINE_MS = 5_000;

/** The cell's error hold (null: none, the cell is gone, or it did not answer in time). */
async function cellErrorHoldOf(cellWorkflowId: string): Promise<CellErrorHold | null> {
  const client = Context.current().client;
  try {
    return await client.withDeadline(Date.now() + CELL_QUERY_DEADLINE_MS, () =>
      client.workflow.getHandle(cellWorkflowId).query<CellErrorHold | null>(CELL_ERROR_HOLD_QUERY),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    if (isDeadlineExceeded(err)) return null;
    throw err;
  }
}

/** A gRPC DEADLINE_EXCEEDED (code 4), however the client wrapped it. */
function isDeadlineExceeded(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 4 || /DEADLINE_EXCEEDED|deadline exceeded/i.test(e.message)) return true;
  }
  return false;
}

export function createBudgetActivities() {
  return {
    /** The ledger's hold (null: none). A ledger that is gone holds nothing: its sweep ended or was terminated. */
    async spendHold(input: SpendHoldInput): Promise<BudgetHold | null> {
      return spendHoldOf(input.ledgerWorkflowId);
    },
    /**
     * Whether a shard's cell holds on errors (domain/sweep/cellErrors.ts): asked before each task
     * starts, for the same reason as spendHold. A cell that is gone holds nothing.
     */
    async cellErrorHold(input: { cellWorkflowId: string }): Promise<CellErrorHold | null> {
      return cellErrorHoldOf(input.cellWorkflowId);
    },
    /**
     * Both holds in one local activity, for a budgeted shard of a cell that stops on errors: each
     * task then asks one local activity before its LLM activity, as a budgeted shard always did.
     * Two in a row per task made the activities' sequence numbers depend on the order in which the
     * tasks' local activities completed, which a replay does not reproduce (a nondeterminism error
     * when a worker picked up a paused sweep).
     */
    async spendOrErrorHold(input: SpendHoldInput & { cellWorkflowId: string }): Promise<BudgetHold | CellErrorHold | null> {
      return (await spendHoldOf(input.ledgerWorkflowId)) ?? (await cellErrorHoldOf(input.cellWorkflowId));
    },
  };
}
