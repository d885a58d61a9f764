/**
 * One job at a time, first come first served, with a bound on how many may wait: the server's
 * embedding requests (generation has the engine's slots, batcher.ts). Also the errors both report:
 * a full queue, a closing server, a client gone.
 */

export class QueueFullError extends Error {
  constructor(
    readonly waiting: number,
    /** A fair guess of when to come back, from the recent job durations. */
    readonly retryAfterS: number,
  ) {
    super(`the server is busy: ${waiting} requests are already waiting; retry after ${retryAfterS} s`);
  }
}

export class QueueClosedError extends Error {
  constructor() {
    super('the server is shutting down');
  }
}

export class AbortedError extends Error {
  constructor() {
    super('the request was abandoned by its client');
  }
}

interface Waiter {
  start: () => void;
  fail: (err: Error) => void;
}

export class WorkQueue {
  private readonly waiters: Waiter[] = [];
  private busy = false;
  private closed = false;
  /** Exponential moving average of job durations, for Retry-After. */
  private avgMs = 5_000;
  private idle: Promise<void> = Promise.resolve();
  private settleIdle: () => void = () => {};

  constructor(readonly maxWaiting: number) {}

  stats(): { running: boolean; waiting: number } {
    return { running: this.busy, waiting: this.waiters.length };
  }

  /**
   * Runs `job` when every earlier one has finished. Refuses at once (QueueFullError) when
   * `maxWaiting` requests are already waiting; a job whose signal aborts while it waits leaves the
   * queue (AbortedError). The job gets the signal too, to stop early.
   */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) throw new QueueClosedError();
    if (signal?.aborted) throw new AbortedError();
    if (this.busy) {
      if (this.waiters.length >= this.maxWaiting) {
        throw new QueueFullError(this.waiters.length, Math.max(1, Math.ceil(((this.waiters.length + 1) * this.avgMs) / 1000)));
      }
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        const onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new AbortedError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(waiter);
      });
    } else {
      this.busy = true;
      this.idle = new Promise((resolve) => (this.settleIdle = resolve));
    }
    // Here this job owns the queue (busy is true).
    const started = Date.now();
    try {
      if (this.closed) throw new QueueClosedError();
      return await job();
    } finally {
      this.avgMs = 0.7 * this.avgMs + 0.3 * (Date.now() - started);
      const next = this.waiters.shift();
      if (next) next.start();
      else {
        this.busy = false;
        this.settleIdle();
      }
    }
  }

  /** Refuses new jobs, fails the waiting ones, and resolves when the running one has finished. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.fail(new QueueClosedError());
    await this.idle;
  }
}
