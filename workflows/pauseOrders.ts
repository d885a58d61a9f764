/**
 * Pause and resume, from the sweep down to its cells and from a cell to its shards: the one module
 * that says how a parent tells its running children, and how a child takes it.
 *
 * The user pauses a sweep with the `pause` / `resume` signals. A parent passes its state on as
 * numbered orders (`pause-order`, {paused, seq}): two signals sent one right after the other (a
 * pause, then at once a resume) may reach the child in either order, so a child applies an order
 * only if its number is above the last one it applied. Numbers start at the sending run's time, so
 * the orders of a later run (a reset) are newer than any a child saw from an earlier one.
 *
 * Children started before orders existed (patched 'ordered-pause') take the plain `pause` and
 * `resume` signals instead, which are still handled.
 */
import { defineSignal, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';

export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');

export interface PauseOrder {
  paused: boolean;
  seq: number;
}
export const pauseOrderSignal = defineSignal<[PauseOrder]>('pause-order');

/** Where a workflow keeps the last order number it sent or applied (its state, across continue-as-new). */
export interface SeqStore {
  get(): number | undefined;
  set(seq: number): void;
}

/** A SeqStore in a local variable, starting at `first` (or empty). */
export function localSeq(first?: number): SeqStore {
  let seq = first;
  return { get: () => seq, set: (s) => void (seq = s) };
}

/**
 * Sends `paused` to the child workflow `workflowId` as the next numbered order; a child that is
 * gone is no error (it finished, or will be told when it starts).
 */
export async function sendPauseOrder(sent: SeqStore, workflowId: string, paused: boolean): Promise<void> {
  const seq = (sent.get() ?? Date.now()) + 1;
  sent.set(seq);
  await getExternalWorkflowHandle(workflowId)
    .signal(pauseOrderSignal, { paused, seq })
    .catch(() => undefined);
}

/** The plain signal of workflows started before orders existed. */
export async function sendLegacyPause(workflowId: string, paused: boolean): Promise<void> {
  await getExternalWorkflowHandle(workflowId)
    .signal(paused ? pauseSignal : resumeSignal)
    .catch(() => undefined);
}

/**
 * Takes pause and resume as a child: the plain signals (the user's, on a sweep; a parent's from
 * before orders) and numbered orders, of which only newer ones apply.
 */
export function takePauseOrders(applied: SeqStore, apply: (paused: boolean) => void | Promise<void>): void {
  setHandler(pauseSignal, () => apply(true));
  setHandler(resumeSignal, () => apply(false));
  setHandler(pauseOrderSignal, async (order) => {
    if (order.seq <= (applied.get() ?? 0)) return; // an older order that arrived late
    applied.set(order.seq);
    await apply(order.paused);
  });
}
