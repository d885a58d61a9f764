/** The progress line's ETA: from the answer rate while answers come, from the execution rate after. */
import { describe, expect, it } from 'vitest';
import { etaSeconds } from '../../scripts/lib/sweep-view.js';

const at = (seconds: number) => 1_000_000 + seconds * 1000;
const cell = (answered: number, samplesDone: number) => ({ answered, samplesDone, samplesTotal: 100, startedAtMs: at(0) });

describe('etaSeconds', () => {
  it('while generating: the answers left at the answer rate, executions not awaited', () => {
    // 20 answers in 10 s: 80 more take 40 s.
    expect(etaSeconds(cell(20, 0), at(10))).toBe(40);
  });

  it('once every sample is answered: the executions left at the execution rate', () => {
    // 100 answered, 50 executed in 25 s: 50 more take 25 s.
    expect(etaSeconds(cell(100, 50), at(25))).toBe(25);
  });

  it('unknown before the first answer; zero once all is executed', () => {
    expect(etaSeconds(cell(0, 0), at(5))).toBeNull();
    expect(etaSeconds(cell(100, 0), at(5))).toBeNull();
    expect(etaSeconds(cell(100, 100), at(5))).toBe(0);
  });
});
