/**
 * An endpoint as a provider serves it: each answer takes a fixed time, and at most `concurrency`
 * requests are served at once (the rest wait their turn in arrival order, as a serving engine's
 * queue does). It records how many requests it was serving over time, so that a benchmark can say
 * how much of its capacity a sweep kept busy, and when.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface EndpointLimits {
  latencyMs: number;
  concurrency: number;
}

export interface ServedSpan {
  /** performance.now() when the first request started being served, and when the last answer left. */
  first: number;
  last: number;
  /** Milliseconds during which every slot was busy, between first and last. */
  saturatedMs: number;
  /** Integral of busy slots over time (slot-milliseconds), between first and last. */
  busySlotMs: number;
  /** Requests served. */
  served: number;
}

export interface LimitedEndpoint {
  /** Waits for a slot, holds it for the latency, then lets the answer go. */
  serve(): Promise<void>;
  /** The span from the first request to the last answer so far (undefined before any). */
  span(): ServedSpan | undefined;
}

export function limitedEndpoint({ latencyMs, concurrency }: EndpointLimits): LimitedEndpoint {
  let busy = 0;
  const waiting: Array<() => void> = [];
  let first: number | undefined;
  let last = 0;
  let served = 0;
  let changedAt = 0;
  let saturatedMs = 0;
  let busySlotMs = 0;
  // Accounts the time since the last change at the busy count that held during it.
  const account = (now: number) => {
    if (first !== undefined) {
      busySlotMs += busy * (now - changedAt);
      if (busy === concurrency) saturatedMs += now - changedAt;
    }
    changedAt = now;
  };
  const acquire = async () => {
    if (busy < concurrency) {
      const now = performance.now();
      account(now);
      first ??= now;
      busy++;
      return;
    }
    // The releasing request hands its slot over directly: busy stays the same.
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const now = performance.now();
    served++;
    last = now;
    const next = waiting.shift();
    if (next) return next();
    account(now);
    busy--;
  };
  return {
    async serve() {
      await acquire();
      try {
        await sleep(latencyMs);
      } finally {
        release();
      }
    },
    span() {
      if (first === undefined) return undefined;
      return { first, last, saturatedMs, busySlotMs, served };
    },
  };
}

/**
 * The fastest a sweep of `samples` could end against this endpoint and an executor of the given
 * rate: the larger of the two bounds (answering and executing fully overlapped).
 */
export function sweepLimit(
  samples: number,
  requests: number,
  limits: EndpointLimits,
  executorSamplesPerSecond: number,
): { llmSeconds: number; executorSeconds: number; limitSeconds: number } {
  const llmSeconds = (requests * limits.latencyMs) / 1000 / limits.concurrency;
  const executorSeconds = samples / executorSamplesPerSecond;
  return { llmSeconds, executorSeconds, limitSeconds: Math.max(llmSeconds, executorSeconds) };
}
