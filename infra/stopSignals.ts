/**
 * Stop signals for long-lived processes (workers, start-sweep, generate-dataset, the model server).
 *
 * The first SIGTERM (an orchestrator's stop, a scale-down) or SIGINT (Ctrl-C) starts a graceful
 * stop; every later one is said and ignored until that stop is done. Node's default for a signal
 * nobody listens to is to exit at once, and Temporal's Runtime removes its own handlers on the first
 * signal: a second signal (a terminal's Ctrl-C reaching both npm and its child, a relay re-sending,
 * an impatient operator) then killed the process before it had removed its leases or let its
 * activities finish. SIGKILL remains the way to stop at once.
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * A second signal of the same kind this soon after the first is the same stop: a terminal's Ctrl-C
 * reaches both npm and its child, and npm passes it on again a few milliseconds later. It is taken
 * silently; later ones are said (and ignored, as every later one is).
 */
export const SAME_STOP_MS = 300;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface StopSignals {
  /**
   * The first stop signal received, if any. A call, not a property: it changes while the caller
   * awaits, and TypeScript would keep a property's narrowing across those awaits.
   */
  received(): StopSignal | undefined;
  /** Resolves with the first stop signal. */
  readonly first: Promise<StopSignal>;
  /** Gives the signals back to whoever listened before (call once the stop is done). */
  dispose(): void;
}

export interface StopSignalOptions {
  /** Called once, on the first signal: starts the graceful stop (it must not throw). */
  onFirst?: (signal: StopSignal) => void;
  /** What the stop is still waiting for, said when a later signal is ignored. */
  waitingFor?: () => string;
  log?: (line: string) => void;
}

/** Listens for SIGTERM and SIGINT on behalf of `name` (the process's name in its messages). */
export function onStopSignals(name: string, options: StopSignalOptions = {}): StopSignals {
  const log = options.log ?? ((line: string) => console.error(line));
  let received: StopSignal | undefined;
  let receivedAt = 0;
  let resolveFirst: (signal: StopSignal) => void = () => {};
  const first = new Promise<StopSignal>((resolve) => (resolveFirst = resolve));
  const handler = (signal: StopSignal) => {
    if (received === undefined) {
      received = signal;
      receivedAt = Date.now();
      resolveFirst(signal);
      options.onFirst?.(signal);
      return;
    }
    if (signal === received && Date.now() - receivedAt < SAME_STOP_MS) return;
    const waiting = options.waitingFor?.();
    log(
      `${name}: ${signal} ignored: already stopping (on ${received})${waiting ? `, waiting for ${waiting}` : ''}; SIGKILL stops at once, losing that work`,
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return {
    received: () => received,
    first,
    dispose: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, handler);
    },
  };
}
