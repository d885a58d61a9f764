/**
 * A multi-round method's task chain in batch mode (workflows/batchRounds.ts): its LLM steps are
 * asked with `parkRequests` (infra/llm/parking.ts), so a step whose requests the cache does not
 * answer parks them instead of sending them, and waits. Once none of the chain's activities runs
 * (every step waits on parked requests, or nothing else is left to do) the chain tells its cell's
 * collector, which answers every waiting chain's requests in one batch and releases them; each
 * step then asks again and finds its answers cached. Without `batchRounds` (the live path, and
 * chains started before batch mode had rounds) every proxy is returned as it is.
 */
import { ActivityFailure, ApplicationFailure, condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { RequestSet } from '../infra/llm/batchPlan.js';
import { roundParkedSignal, roundReleasedSignal, type BatchRoundsRef } from './roundSignals.js';

const LLM_PARKED = 'LlmParked';

type AnyActivities = object;

export interface ChainRounds {
  /** The LLM steps: parked and asked again while in batch mode. */
  llm<A extends AnyActivities>(acts: A): A;
  /** Any other activities of the chain (sandbox, storage): counted as its work in flight. */
  tracked<A extends AnyActivities>(acts: A): A;
  /** The chain is done: it reports nothing more. */
  end(): void;
}

const LIVE: ChainRounds = { llm: (a) => a, tracked: (a) => a, end: () => {} };

/** The request sets of a parked step's failure, or null for any other failure. */
export function parkedSetsOf(err: unknown): RequestSet[] | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure) || err.cause.type !== LLM_PARKED) return null;
  return (err.cause.details?.[0] as RequestSet[] | undefined) ?? [];
}

/** The chain's rounds: in batch mode (`ref` given) parking and tracking, else the live path's proxies. */
export function chainRounds(ref: BatchRoundsRef | undefined): ChainRounds {
  if (!ref) return LIVE;
  const chainId = workflowInfo().workflowId;
  let busy = 0;
  let released = 0;
  let done = false;
  let pending: RequestSet[] = [];
  setHandler(roundReleasedSignal, () => void released++);

  // Conditions are checked once the activation's microtasks are drained: a step that just ended
  // has started its next activity by then, so busy === 0 means nothing runs.
  void (async () => {
    for (;;) {
      await condition(() => done || (busy === 0 && pending.length > 0));
      if (done) return;
      const sets = pending;
      pending = [];
      const seen = released;
      await getExternalWorkflowHandle(ref.collectorId).signal(roundParkedSignal, { chainId, sets });
      await condition(() => done || released !== seen);
    }
  })();

  const counted = async <T>(call: () => Promise<T>): Promise<T> => {
    busy++;
    try {
      return await call();
    } finally {
      busy--;
    }
  };

  const wrap = <A extends AnyActivities>(acts: A, each: (fn: (arg: unknown) => Promise<unknown>, arg: unknown) => Promise<unknown>): A =>
    new Proxy(acts, {
      get(target, name) {
        const fn = (target as Record<string | symbol, unknown>)[name];
        if (typeof fn !== 'function') return fn;
        return (arg: unknown) => each(fn as (arg: unknown) => Promise<unknown>, arg);
      },
    });

  return {
    tracked: (acts) => wrap(acts, (fn, arg) => counted(() => fn(arg))),
    llm: (acts) =>
      wrap(acts, async (fn, arg) => {
        const after: string[] = [];
        for (;;) {
          let sets: RequestSet[] | null;
          try {
            return await counted(() => fn({ ...(arg as object), parkRequests: { prefix: ref.prefix, after: [...after] } }));
          } catch (err) {
            sets = parkedSetsOf(err);
            if (sets === null) throw err;
          }
          after.push(...sets.map((s) => s.planKey));
          const seen = released;
          pending.push(...sets);
          await condition(() => released !== seen);
        }
      }),
    end: () => void (done = true),
  };
}
