/**
 * Holds each LLM request until this worker's share of its model's limits allows it: requests in
 * flight and request starts per second (domain/llm/share.ts). The share is recomputed for every
 * request from the number of workers serving the model's queue (workerLeases.ts), so a worker that
 * joins or leaves moves everyone's share within a refresh. Requests go by rank, then in the order
 * they came (first come, first served), and a waiting one heartbeats.
 *
 * The rank is the order in which the requests' workflows first asked (LlmRanks): a shard's tasks
 * share its workflow, so the oldest shard's requests take the free slots first and its tasks end
 * together, early, and its programs run while younger shards are answered. First come, first served
 * across shards had every shard in flight creep forward together, all ending at about the same time,
 * so that their programs all ran after the last answer (issue 45).
 */
import { workerShare, type ModelLimits, type WorkerShare } from '../../domain/llm/share.js';

/** Workers serving a task queue now (at least 1). */
export type WorkersOn = (taskQueue: string) => Promise<number>;

export interface GateWait {
  /** Called at least every `pollMs` while waiting: the activity's heartbeat. */
  beat: () => void;
  /** Aborts the wait (the activity was cancelled). */
  signal?: AbortSignal;
  /** Lower goes first (LlmRanks); equal ranks in arrival order. Absent: after every ranked request. */
  rank?: number;
}

/** A request waiting for room. A wake that comes while it is not pausing is kept for its next pause. */
class Waiter {
  constructor(readonly rank: number) {}

  private woken = false;
  private waker: (() => void) | undefined;

  wake(): void {
    if (this.waker) this.waker();
    else this.woken = true;
  }

  /** True (and forgotten) if a wake came since the last pause. */
  takeWake(): boolean {
    const woken = this.woken;
    this.woken = false;
    return woken;
  }

  listen(waker: (() => void) | undefined): void {
    this.waker = waker;
  }
}

interface ModelState {
  inFlight: number;
  nextStartMs: number;
  /** Requests waiting for room, by rank, then in arrival order; only the first may take it. */
  queue: Waiter[];
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
    if (!state) this.models.set(taskQueue, (state = { inFlight: 0, nextStartMs: 0, queue: [] }));
    const s = state;
    const me = new Waiter(wait.rank ?? Number.POSITIVE_INFINITY);
    // After every waiter of its rank or a lower one (a queue of one rank is the arrival order).
    let place = s.queue.length;
    while (place > 0 && s.queue[place - 1]!.rank > me.rank) place--;
    s.queue.splice(place, 0, me);
    let lastBeatMs = Date.now();
    const beatIfDue = () => {
      if (Date.now() - lastBeatMs < this.pollMs) return;
      lastBeatMs = Date.now();
      wait.beat();
    };
    let share: WorkerShare;
    try {
      for (;;) {
        wait.signal?.throwIfAborted();
        share = workerShare(limits, await this.workersOn(taskQueue));
        if (s.queue[0] === me && s.inFlight < share.concurrency) {
          s.queue.shift();
          s.inFlight++;
          s.queue[0]?.wake(); // there may be room for the next one too
          break;
        }
        if (!me.takeWake()) await this.pause(this.pollMs, wait.signal, me);
        beatIfDue();
      }
    } catch (err) {
      const at = s.queue.indexOf(me);
      if (at >= 0) s.queue.splice(at, 1);
      if (at === 0) s.queue[0]?.wake();
      throw err;
    }
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      s.inFlight--;
      s.queue[0]?.wake();
    };
    // Starts are booked in order, each `spacingMs` after the previous one.
    const now = Date.now();
    const at = Math.max(now, s.nextStartMs);
    s.nextStartMs = at + share.spacingMs;
    try {
      while (Date.now() < at) {
        await this.pause(Math.min(at - Date.now(), this.pollMs), wait.signal);
        beatIfDue();
      }
    } catch (err) {
      // A cancelled request gives its start back if no later one was booked after it.
      if (s.nextStartMs === at + share.spacingMs) s.nextStartMs = at;
      end();
      throw err;
    }
    return end;
  }

  /** Waits `ms`, or less if `waiter` is woken meanwhile; rejects if aborted. */
  private pause(ms: number, signal: AbortSignal | undefined, waiter?: Waiter): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const stopWaiting = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        waiter?.listen(undefined);
      };
      const finish = () => {
        stopWaiting();
        resolve();
      };
      const abort = () => {
        stopWaiting();
        reject(signal!.reason ?? new Error('aborted'));
      };
      const timer = setTimeout(finish, ms);
      signal?.addEventListener('abort', abort, { once: true });
      waiter?.listen(finish);
    });
  }
}

/**
 * Ranks for the gate (GateWait.rank): the order in which workflows first asked this worker, by
 * workflow id (a shard's tasks are activities of one workflow; a multi-step chain is a workflow of
 * its own, its steps one rank). The most recent ids are kept; a forgotten one asking again ranks as new.
 */
export class LlmRanks {
  private readonly ranks = new Map<string, number>();
  private next = 0;

  constructor(private readonly keep = 10_000) {}

  of(workflowId: string): number {
    let rank = this.ranks.get(workflowId);
    if (rank === undefined) {
      rank = this.next++;
      this.ranks.set(workflowId, rank);
      if (this.ranks.size > this.keep) this.ranks.delete(this.ranks.keys().next().value!);
    }
    return rank;
  }
}
