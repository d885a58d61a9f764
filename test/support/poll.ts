/** The tests' one wait-until loop, and a plain sleep. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  timeoutMs: number;
  /** Pause between probes; default 100 ms. */
  intervalMs?: number;
  /** What is awaited, for the time-out's message; a function is called at the time-out (e.g. to add a process's output). */
  what: string | (() => string);
}

type NotYet = undefined | null | false;

/**
 * Calls `probe` until it returns something other than undefined, null or false, and returns that;
 * throws naming `what` if `timeoutMs` passes first. An error thrown by `probe` ends the wait at once.
 */
export async function waitUntil<T>(probe: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions): Promise<T> {
  const { timeoutMs, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    }
    await sleep(intervalMs);
  }
}
