/**
 * The signals between a multi-round method's task chains and their cell's round collector (batch
 * mode, workflows/batchRounds.ts): the shard says which chains run, each chain says when all its
 * steps wait on parked requests, the collector releases them once their batch is answered.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RequestSet } from '../infra/llm/batchPlan.js';

/** To the collector: these chains run now (sent before they start), or ended (whatever way). */
export const roundChainsSignal = defineSignal<[{ started?: string[]; ended?: string[] }]>('round-chains');
/** To the collector: a chain's every step waits on these parked request sets. */
export const roundParkedSignal = defineSignal<[{ chainId: string; sets: RequestSet[] }]>('round-parked');
/** To the collector: its cell is held (paused, budget, errors) or goes on: a held cell's collector submits no round. */
export const roundsHoldSignal = defineSignal<[{ held: boolean }]>('rounds-hold');
/** To the collector: the cell's shards are done; it ends once nothing waits. */
export const roundsCloseSignal = defineSignal('rounds-close');
/** To a chain: the batch of its parked requests is answered (or gave up): ask again. */
export const roundReleasedSignal = defineSignal<[{ round: number }]>('round-released');

/** What a chain of a batch-mode cell is given (MethodTaskInput.batchRounds). */
export interface BatchRoundsRef {
  /** The cell's round collector. */
  collectorId: string;
  /** Where the chain's steps park their request sets. */
  prefix: string;
}

export interface BatchRoundsProgress {
  /** Rounds whose batches were sent. */
  round: number;
  chains: number;
  waiting: number;
  /** The batch workflows of the round being answered (their progress: batch-progress). */
  batches: string[];
  requestsSent: number;
  /** Its cell is held: no round is submitted until it goes on. */
  held: boolean;
}
export const batchRoundsProgressQuery = defineQuery<BatchRoundsProgress>('rounds-progress');
