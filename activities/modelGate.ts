/**
 * Holds each LLM request until this worker's share of its model's limits allows it: requests in
 * flight and request starts per second (domain/llm/share.ts). The share is recomputed at every
 * request from the number of workers serving the model's queue (queueWorkers.ts), so a worker that
 * joins or leaves moves everyone's share within a refresh.
 */
import { workerShare, type ModelLimits } from '../domain/llm/share.js';

/** Workers serving a task queue now (at least 1). */
export type WorkersOn = (taskQueue: string) => Promise<number>;

export interface GateWait {
  /** Called at least every `pollMs` while waiting: the activity's heartbeat. */
  beat: () => void;
  /** Aborts the wait (the activity was cancelled). */
  signal?: AbortSignal;
}

interface ModelState {
  inFlight: number;
  nextStartMs: number;
  wakers: Set<() => void>;
}

export class ModelGate {
  private readonly models = new Map<string, ModelState>();

  constructor(
    private readonly workersOn: WorkersOn = async () => 1,
    private readonly pollMs = 5_000,
  ) {}

  /** Requests of the model served on `taskQueue` this worker has in flight. */
  inFlight(taskQueue: string): number {
    return this.models.get(taskQueue)?.inFlight ?? 0;
  }

  /**
   * Waits until one more request of the model served on `taskQueue` (its own queue: one model, one
   * queue) may start here, and returns the function that ends it (call it once the answer or the
   * error is in; a second call does nothing).
   */
  async enter(taskQueue: string, limits: ModelLimits, wait: GateWait): Promise<() => void> {
    if (limits.concurrency === undefined && limits.requestsPerSecond === undefined) return () => {};
    let state = this.models.get(taskQueue);
    if (!state) this.models.set(taskQueue, (state = { inFlight: 0, nextStartMs: 0, wakers: new Set() }));
    const s = state;
    for (;;) {
      wait.signal?.throwIfAborted();
      const share = workerShare(limits, await this.workersOn(taskQueue));
      if (s.inFlight < share.concurrency) {
        s.inFlight++;
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          s.inFlight--;
          for (const wake of s.wakers) wake();
        };
        // Starts are booked in order, each `spacingMs` after the previous one.
        const now = Date.now();
        const at = Math.max(now, s.nextStartMs);
        s.nextStartMs = at + share.spacingMs;
        try {
          await this.sleepUntil(at, s, wait, false);
        } catch (err) {
          end();
          throw err;
        }
        return end;
      }
      await this.sleepUntil(Date.now() + this.pollMs, s, wait, true);
    }
  }

  /** Sleeps until `atMs` (or a request ending, if `wakeOnEnd`), beating every `pollMs`. */
  private async sleepUntil(atMs: number, s: ModelState, wait: GateWait, wakeOnEnd: boolean): Promise<void> {
    while (Date.now() < atMs) {
      wait.signal?.throwIfAborted();
      const ms = Math.min(atMs - Date.now(), this.pollMs);
      const woken = await new Promise<boolean>((resolve, reject) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          s.wakers.delete(wake);
          wait.signal?.removeEventListener('abort', abort);
          resolve(value);
        };
        const wake = () => done(true);
        const abort = () => {
          clearTimeout(timer);
          s.wakers.delete(wake);
          reject(wait.signal!.reason);
        };
        const timer = setTimeout(() => done(false), ms);
        if (wakeOnEnd) s.wakers.add(wake);
        wait.signal?.addEventListener('abort', abort, { once: true });
      });
      if (woken) return;
      wait.beat();
    }
  }
}
