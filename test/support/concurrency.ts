/**
 * At most `n` of the calls it wraps run at once; the others wait their turn, in order. For a file
 * whose concurrent cases (describe.concurrent) each start CPU-heavy processes: they overlap their
 * waits without all starting at once on a small machine.
 */
export function concurrencyLimit(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
