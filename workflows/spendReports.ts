/**
 * What a sweep's budgets are counted from, and how they change: each shard tells the sweep's spend
 * ledger (workflows/spendLedger.ts; the sweep workflow itself for sweeps started before the ledger)
 * what every task's answers cost (`spend`), as the task ends, so the sum is kept in one place
 * whatever the number of workers; `set-budget` replaces the caps (start-sweep sends it to the sweep
 * when run again on a running sweep; the Web UI or `temporal workflow signal` can too).
 */
import { defineQuery, defineSignal, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { BudgetHold, Spend, SweepBudgets } from '../domain/sweep/budget.js';

export interface TaskSpend {
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the tokens, those answered in provider batches (at the batch price); absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
  /**
   * How much of a task this is: a large task's slices report their share of its samples as they
   * are answered (domain/sweep/sharding.ts sampleSlices), its end the rest. Absent: one whole task.
   */
  tasks?: number;
}
export const spendSignal = defineSignal<[TaskSpend]>('spend');

/** The caps from now on; null lifts them all. */
export const setBudgetSignal = defineSignal<[SweepBudgets | null]>('set-budget');

/**
 * The ledger's verdict, sent to the sweep whenever it changes. Numbered: two verdicts sent close
 * together may arrive in either order, and the sweep keeps the newest.
 */
export interface HoldVerdict {
  seq: number;
  hold: BudgetHold | null;
}
export const budgetHoldSignal = defineSignal<[HoldVerdict]>('budget-hold');

/** The sweep's cells are all done: the ledger ends, returning what was spent. */
export const closeLedgerSignal = defineSignal('close-ledger');

export interface LedgerState {
  spentByModel: Record<string, Spend>;
  budget: SweepBudgets | null;
  hold: BudgetHold | null;
  /** The seq of the last verdict sent. */
  seq: number;
}
export const spendLedgerQuery = defineQuery<LedgerState>('ledger');

/**
 * Tells the workflow that counts the spend (`to`: the ledger's id, or the sweep's for sweeps started
 * before the ledger) what one task cost. Awaited by the shard before its lane starts another task,
 * so the count has every finished task's cost before more is asked. A counter that is gone is no
 * error (the sweep was terminated; the shard goes with it).
 */
export async function reportSpend(to: string, spend: TaskSpend): Promise<void> {
  await getExternalWorkflowHandle(to)
    .signal(spendSignal, spend)
    .catch(() => undefined);
}
