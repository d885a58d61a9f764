/**
 * A budgeted sweep's spend ledger: a child of the sweep that takes every task's `spend` signal,
 * adds it to its model's spend, and tells the sweep (`budget-hold`) when the rule of
 * domain/sweep/budget.ts starts or stops holding it. One signal per task would otherwise land in the
 * sweep's own history, which never continues as new (its children would go with it): the ledger has
 * no children, so it continues as new whenever its history grows large, carrying four small fields,
 * and a sweep of any number of tasks keeps both histories bounded.
 */
import { allHandlersFinished, condition, continueAsNew, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { addSpend, budgetHold, holdChanges, NO_SPEND } from '../domain/sweep/budget.js';
import type { ModelPrice } from '../domain/sweep/price.js';
import { budgetHoldSignal, closeLedgerSignal, setBudgetSignal, spendLedgerQuery, spendSignal, type LedgerState } from './spendReports.js';

export interface SpendLedgerInput {
  /** The workflow that hears the verdicts: the sweep's. */
  sweepWorkflowId: string;
  prices: Record<string, ModelPrice>;
  /** Continue as new after this many history events (tests lower it). */
  maxHistoryEvents: number;
  /** Spend, caps and last verdict so far: what finished cells cost at the start, the previous run's after. */
  state: LedgerState;
}

export async function spendLedgerWorkflow(input: SpendLedgerInput): Promise<LedgerState> {
  // The input is this run's own copy (deserialized from history): the ledger keeps its state in it.
  const state: LedgerState = input.state;
  let closed = false;
  setHandler(spendLedgerQuery, () => state);

  /** A new verdict goes to the sweep when it changes; the verdict's number orders it there. */
  const reconsider = async (capsChanged: boolean) => {
    const next = state.budget ? budgetHold(state.budget, state.spentByModel, input.prices) : null;
    if (!holdChanges(state.hold, next, capsChanged)) return;
    state.hold = next;
    const verdict = { seq: ++state.seq, hold: next };
    // A sweep that is gone is no error: it was terminated, and the ledger goes with it.
    await getExternalWorkflowHandle(input.sweepWorkflowId)
      .signal(budgetHoldSignal, verdict)
      .catch(() => undefined);
  };
  setHandler(spendSignal, async (spend) => {
    state.spentByModel[spend.model] = addSpend(state.spentByModel[spend.model] ?? NO_SPEND, { ...spend, tasks: spend.tasks ?? 1 });
    await reconsider(false);
  });
  setHandler(setBudgetSignal, async (budget) => {
    state.budget = budget;
    await reconsider(true);
  });
  setHandler(closeLedgerSignal, () => void (closed = true));

  // What finished cells cost (the first run) may already hold the sweep.
  if (state.seq === 0) await reconsider(false);
  const historyIsLarge = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= input.maxHistoryEvents;
  await condition(() => closed || historyIsLarge());
  // Signals that came while a handler ran are handled before the run ends; any that come while it
  // ends make the server refuse the ending, and they are handled in another activation first.
  await condition(allHandlersFinished);
  if (closed) return state;
  return continueAsNew<typeof spendLedgerWorkflow>({ ...input, state });
}
