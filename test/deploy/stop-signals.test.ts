/**
 * onStopSignals, the one listener every long-lived process (worker, start-sweep, generate-dataset,
 * the model server) stops by: SIGTERM and SIGINT reach the same handler, so a process tested
 * stopping on one of them (test/deploy/stop-signals.e2e.test.ts) stops the same way on the other.
 * The handler is called directly here: emitting a signal at the test's own process would reach
 * vitest's listeners too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { onStopSignals, SAME_STOP_MS, STOP_SIGNALS, type StopSignal, type StopSignals } from '../../infra/stopSignals.js';

type Listener = (signal: StopSignal) => void;

let listening: StopSignals | undefined;
afterEach(() => {
  listening?.dispose();
  listening = undefined;
});

/** Starts listening; returns what was said, the signals onFirst got, and the listener added per signal. */
function listen(waitingFor?: () => string) {
  const before = new Map(STOP_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const said: string[] = [];
  const firsts: StopSignal[] = [];
  listening = onStopSignals('proc', {
    onFirst: (s) => firsts.push(s),
    log: (line) => said.push(line),
    ...(waitingFor ? { waitingFor } : {}),
  });
  const added = Object.fromEntries(STOP_SIGNALS.map((s) => [s, process.listeners(s).filter((l) => !before.get(s)!.has(l))])) as Record<
    StopSignal,
    Listener[]
  >;
  return { said, firsts, added, signals: listening };
}

describe('onStopSignals', () => {
  it('listens to SIGTERM and SIGINT with one and the same handler, and gives both back on dispose', () => {
    const { added, signals } = listen();
    expect(added.SIGTERM).toHaveLength(1);
    expect(added.SIGINT).toEqual(added.SIGTERM);
    signals.dispose();
    listening = undefined;
    for (const s of STOP_SIGNALS) expect(process.listeners(s)).not.toContain(added.SIGTERM[0]);
  });

  for (const first of STOP_SIGNALS) {
    const other = first === 'SIGTERM' ? 'SIGINT' : 'SIGTERM';
    it(`${first} first: one stop; the same signal at once is taken silently, later ones and ${other} are said and ignored`, async () => {
      const { said, firsts, added, signals } = listen(() => '2 activities');
      const handler = added[first][0]!;
      handler(first);
      expect(firsts).toEqual([first]);
      expect(signals.received()).toBe(first);
      await expect(signals.first).resolves.toBe(first);
      handler(first); // a relay's copy, milliseconds later
      expect(said).toEqual([]);
      handler(other);
      expect(said).toEqual([
        `proc: ${other} ignored: already stopping (on ${first}), waiting for 2 activities; SIGKILL stops at once, losing that work`,
      ]);
      await new Promise((r) => setTimeout(r, SAME_STOP_MS + 20));
      handler(first);
      expect(said[1]).toMatch(new RegExp(`^proc: ${first} ignored: already stopping \\(on ${first}\\)`));
      expect(firsts).toEqual([first]);
    });
  }
});
