import { describe, expect, it } from 'vitest';
import { drawDistinctStrings } from '../../domain/pbe/pool.js';
import { Rng, taskRng } from '../../domain/pbe/rng.js';

describe('Rng', () => {
  it('int stays in [lo, hi], hits every value, and is roughly uniform', () => {
    const rng = taskRng(1, 2);
    const counts = new Map<number, number>();
    const draws = 60_000;
    for (let i = 0; i < draws; i++) {
      const v = rng.int(-2, 3);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2, 3]);
    for (const c of counts.values()) expect(Math.abs(c - draws / 6)).toBeLessThan(draws / 6 / 10);
    expect(rng.int(7, 7)).toBe(7);
    expect(() => rng.int(3, 2)).toThrow(RangeError);
    expect(() => rng.int(0, 2 ** 32)).toThrow(RangeError);
    const big = rng.int(0, 2 ** 32 - 1);
    expect(big).toBeGreaterThanOrEqual(0);
    expect(big).toBeLessThan(2 ** 32);
  });

  it('shuffle permutes in place, and every position moves across runs', () => {
    const rng = taskRng(0, 0);
    const firsts = new Set<number>();
    for (let run = 0; run < 200; run++) {
      const items = [0, 1, 2, 3, 4, 5, 6, 7];
      const same = rng.shuffle(items);
      expect(same).toBe(items);
      expect([...items].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      firsts.add(items[0]!);
    }
    expect(firsts.size).toBe(8);
  });

  it('pick and sample', () => {
    const rng = taskRng(0, 1);
    expect(() => rng.pick([])).toThrow(RangeError);
    const sample = rng.sample([1, 2, 3, 4, 5], 3);
    expect(new Set(sample).size).toBe(3);
    expect(() => rng.sample([1], 2)).toThrow(RangeError);
  });

  it('an all-zero state still produces a stream', () => {
    const rng = new Rng([0, 0, 0, 0]);
    expect(new Set([rng.nextUint32(), rng.nextUint32(), rng.nextUint32()]).size).toBeGreaterThan(1);
  });

  it('taskRng validates seed and index', () => {
    expect(() => taskRng(-1, 0)).toThrow(RangeError);
    expect(() => taskRng(2 ** 32, 0)).toThrow(RangeError);
    expect(() => taskRng(0, -1)).toThrow(RangeError);
    expect(() => taskRng(0, 0.5)).toThrow(RangeError);
  });
});

describe('drawDistinctStrings', () => {
  it('draws distinct strings in range, sparse and dense spaces alike', () => {
    const rng = taskRng(3, 3);
    for (const [alphabet, lMin, lMax, n] of [
      [['a', 'b'], 5, 5, 16], // dense: 32 strings
      [['a', 'b'], 1, 3, 14], // the whole space
      [['a', 'b', 'c'], 2, 9, 200], // sparse
      [['a'], 1, 40, 10], // one letter: one string per length
    ] as const) {
      const pool = drawDistinctStrings(rng, alphabet, lMin, lMax, n);
      expect(pool).toHaveLength(n);
      expect(new Set(pool).size).toBe(n);
      for (const s of pool) {
        expect(s.length >= lMin && s.length <= lMax).toBe(true);
        expect([...s].every((ch) => (alphabet as readonly string[]).includes(ch))).toBe(true);
      }
    }
    expect(() => drawDistinctStrings(rng, ['a', 'b'], 1, 1, 3)).toThrow(RangeError);
  });
});
