/**
 * Which cells of a grid send the same LLM requests, and the start order the sweep workflow
 * derives from it: cells sharing a family never run together, every cell starts, and cells that
 * share nothing are never held back.
 */
import { describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../domain/methods/registry.js';
import { nextStartableCell, sharedRequestFamilies, type SharingCell } from '../../domain/sweep/sharing.js';

function grid(datasets: string[], models: string[], methods: string[], temperatures: number[]): SharingCell[] {
  return datasets.flatMap((dataset) =>
    models.flatMap((model) => methods.flatMap((method) => temperatures.map((temperature) => ({ dataset, model, method, temperature })))),
  );
}

const shares = (a: SharingCell, b: SharingCell) => sharedRequestFamilies(a).some((f) => sharedRequestFamilies(b).includes(f));

/** The sweep workflow's loop, with cells finishing in the order `finish` picks among the running. */
function simulate(cells: SharingCell[], maxParallel: number, finish: (running: number[]) => number) {
  const families = cells.map(sharedRequestFamilies);
  const held = new Set<string>();
  const pending = cells.map((_, i) => i);
  const running: number[] = [];
  const started: number[] = [];
  let maxRunning = 0;
  while (pending.length > 0) {
    const next = running.length < maxParallel ? nextStartableCell(pending, families, held) : -1;
    if (next < 0) {
      expect(running.length, 'waiting with nothing running would never end').toBeGreaterThan(0);
      const done = running.splice(finish(running), 1)[0]!;
      for (const f of families[done]!) held.delete(f);
      continue;
    }
    const [i] = pending.splice(next, 1) as [number];
    for (const other of running)
      expect(shares(cells[i]!, cells[other]!), `${JSON.stringify(cells[i])} with ${JSON.stringify(cells[other])}`).toBe(false);
    for (const f of families[i]!) held.add(f);
    running.push(i);
    started.push(i);
    maxRunning = Math.max(maxRunning, running.length);
  }
  return { started, maxRunning };
}

describe('cells that send the same requests', () => {
  it('ExploraCoder variants and temperatures on one dataset and model share; other datasets and models do not', () => {
    const a = { dataset: 'd1', model: 'm1', method: 'exploracoder', temperature: 0.2 };
    expect(shares(a, { ...a, temperature: 0.8 })).toBe(true);
    expect(shares(a, { ...a, method: 'exploracoder-debug-no-summary' })).toBe(true);
    expect(shares(a, { ...a, method: 'self-repair' })).toBe(true);
    expect(shares(a, { ...a, dataset: 'd2' })).toBe(false);
    expect(shares(a, { ...a, model: 'm2' })).toBe(false);
    expect(shares(a, { ...a, method: 'direct' })).toBe(false);
    expect(shares(a, { ...a, method: 'rag' })).toBe(false);
  });

  it('self-repair shares first answers with rag at its own temperature only', () => {
    const sr = { dataset: 'd', model: 'm', method: 'self-repair', temperature: 0.8 };
    expect(shares(sr, { ...sr, method: 'rag' })).toBe(true);
    expect(shares(sr, { ...sr, method: 'rag', temperature: 0.2 })).toBe(false);
    expect(shares({ ...sr, method: 'rag' }, { ...sr, method: 'rag', temperature: 0.2 })).toBe(false);
  });

  it('direct cells share nothing: their requests differ in temperature or prompt', () => {
    const d = { dataset: 'd', model: 'm', method: 'direct', temperature: 0.8 };
    for (const method of METHOD_NAMES) expect(shares(d, { ...d, method })).toBe(false);
  });

  it('the scheduler starts every cell once, never two sharing cells together, whatever order cells finish in', () => {
    const cells = grid(['d1', 'd2'], ['m1', 'm2'], [...METHOD_NAMES], [0.2, 0.8]);
    for (const [name, finish] of [
      ['first started finishes first', () => 0],
      ['last started finishes first', (r: number[]) => r.length - 1],
      ['pseudo-random', (r: number[]) => (r.reduce((a, b) => a * 31 + b, 7) >>> 0) % r.length],
    ] as const) {
      for (const maxParallel of [1, 3, 4, 16]) {
        const { started, maxRunning } = simulate(cells, maxParallel, finish);
        expect(
          [...started].sort((a, b) => a - b),
          `${name}, ${maxParallel} at once`,
        ).toEqual(cells.map((_, i) => i));
        // Direct cells and rag at another temperature can always fill the slots early in the grid.
        if (maxParallel <= 4) expect(maxRunning, `${name}, ${maxParallel} at once`).toBe(maxParallel);
        else expect(maxRunning, `${name}, ${maxParallel} at once`).toBeGreaterThan(4);
      }
    }
  });

  it('a grid without shared requests starts in grid order, as many at once as allowed', () => {
    const cells = grid(['d1'], ['m1'], ['direct'], [0, 0.2, 0.4, 0.6, 0.8]);
    const { started, maxRunning } = simulate(cells, 4, () => 0);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(maxRunning).toBe(4);
  });
});
