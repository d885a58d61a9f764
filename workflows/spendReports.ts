/**
 * What a sweep's budgets are counted from, and how they change: each shard tells the sweep workflow
 * what every task's answers cost (`spend`), as the task ends, so the sum is kept in one place
 * whatever the number of workers; `set-budget` replaces the caps (start-sweep sends it when run
 * again on a running sweep; the Web UI or `temporal workflow signal` can too).
 */
import { defineSignal, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { SweepBudgets } from '../domain/sweep/budget.js';
import { sweepWorkflowId } from '../domain/sweep/keys.js';

export interface TaskSpend {
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
}
export const spendSignal = defineSignal<[TaskSpend]>('spend');

/** The caps from now on; null lifts them all. */
export const setBudgetSignal = defineSignal<[SweepBudgets | null]>('set-budget');

/**
 * Tells the sweep what one task cost. Awaited by the shard before its lane starts another task, so
 * the sweep has heard of every finished task's cost before more is asked. A sweep that is gone is
 * no error (it was terminated; the shard goes with it).
 */
export async function reportSpend(sweepId: string, spend: TaskSpend): Promise<void> {
  await getExternalWorkflowHandle(sweepWorkflowId(sweepId))
    .signal(spendSignal, spend)
    .catch(() => undefined);
}
