/**
 * The seeded pseudo-random generator behind PBE World datasets.
 *
 * Written here rather than taken from a package on purpose: the bytes of every dataset ever generated
 * depend on this exact sequence, so it must never change because a dependency was upgraded. Treat any
 * edit to this file as a dataset version change.
 *
 * - Generator: xoshiro128** (Blackman & Vigna), 128-bit state, 32-bit outputs.
 * - Per-task streams: the state of task `index` under `seed` is MurmurHash3_x86_32 of the 16-byte key
 *   (domain tag, seed, index low word, index high word) under four different hash seeds. A task's
 *   randomness therefore depends on (seed, index) only, so any task can be generated on its own, in any
 *   order, on any shard, or retried, and come out the same.
 */

const TWO_POW_32 = 0x1_0000_0000;

// Distinguishes this stream family from any other use of the same hash ("PBEW").
const DOMAIN_TAG = 0x50424557;

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3_x86_32 of a sequence of 32-bit little-endian words. */
export function murmur3Words(words: readonly number[], hashSeed: number): number {
  let h = hashSeed >>> 0;
  for (const word of words) {
    let k = Math.imul(word >>> 0, 0xcc9e2d51);
    k = rotl(k, 15);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = rotl(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  h ^= words.length * 4;
  return fmix32(h);
}

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** Four 32-bit words of state; an all-zero state (a fixed point of xoshiro) is replaced. */
  constructor(state: readonly [number, number, number, number]) {
    [this.s0, this.s1, this.s2, this.s3] = state.map((w) => w >>> 0) as [number, number, number, number];
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 0x9e3779b9;
  }

  /** Next 32-bit output, uniform in [0, 2^32). */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform integer in [lo, hi] (inclusive), without modulo bias; at most 2^32 values. */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || lo > hi) {
      throw new RangeError(`Rng.int: need integers lo <= hi, got [${lo}, ${hi}]`);
    }
    const range = hi - lo + 1;
    if (range > TWO_POW_32) throw new RangeError(`Rng.int: range ${range} exceeds 2^32`);
    if (range === 1) return lo;
    // Reject the top partial block of outputs so every residue is equally likely.
    const limit = TWO_POW_32 - (TWO_POW_32 % range);
    for (;;) {
      const u = this.nextUint32();
      if (u < limit) return lo + (u % range);
    }
  }

  /** Uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty array');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Fisher-Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }

  /**
   * `n` distinct elements in random order (a partial Fisher-Yates over a copy), for sampling a few
   * elements of a large array without shuffling all of it.
   */
  sample<T>(items: readonly T[], n: number): T[] {
    if (!Number.isInteger(n) || n < 0 || n > items.length) {
      throw new RangeError(`Rng.sample: cannot take ${n} of ${items.length} elements`);
    }
    const copy = items.slice();
    for (let i = 0; i < n; i++) {
      const j = this.int(i, copy.length - 1);
      const tmp = copy[i]!;
      copy[i] = copy[j]!;
      copy[j] = tmp;
    }
    return copy.slice(0, n);
  }
}

/** The independent random stream of task `index` in the dataset generated with `seed`. */
export function taskRng(seed: number, index: number): Rng {
  if (!Number.isInteger(seed) || seed < 0 || seed >= TWO_POW_32) {
    throw new RangeError(`taskRng: seed must be an integer in [0, 2^32), got ${seed}`);
  }
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`taskRng: index must be a non-negative safe integer, got ${index}`);
  }
  const key = [DOMAIN_TAG, seed, index % TWO_POW_32, Math.floor(index / TWO_POW_32)];
  return new Rng([murmur3Words(key, 0), murmur3Words(key, 1), murmur3Words(key, 2), murmur3Words(key, 3)]);
}
