/**
 * Drawing the pool of distinct input strings a task's examples and tests come from.
 */
import { countStringsOverAlphabet } from './params.js';
import type { Rng } from './rng.js';

/**
 * When the pool would take more than 1/ENUMERATE_FRACTION of all strings, rejection sampling slows
 * down (and can stall on the last few free strings), so we enumerate the space and sample from it
 * instead. Enumeration then costs at most ENUMERATE_FRACTION × the pool size.
 */
const ENUMERATE_FRACTION = 4n;

/** Every string of length lMin..lMax over the alphabet, shortest first, then in alphabet order. */
export function enumerateStrings(alphabet: readonly string[], lMin: number, lMax: number): string[] {
  const out: string[] = [];
  let level: string[] = [''];
  for (let length = 1; length <= lMax; length++) {
    const next: string[] = [];
    for (const prefix of level) for (const ch of alphabet) next.push(prefix + ch);
    level = next;
    if (length >= lMin) out.push(...level);
  }
  if (lMin === 0) out.unshift('');
  return out;
}

/**
 * `n` distinct random strings over the alphabet with lengths in [lMin, lMax], in draw order.
 *
 * - Sparse case (the space has more than 4n strings): each draw picks a length uniformly in
 *   [lMin, lMax], then each character uniformly; duplicates are rejected. At least half of the longest
 *   length class stays free, so each draw is accepted with probability >= 1 / (2 × number of lengths).
 * - Dense case: a uniform random n-subset of all strings (so lengths are weighted by how many strings
 *   each has, not uniform).
 */
export function drawDistinctStrings(rng: Rng, alphabet: readonly string[], lMin: number, lMax: number, n: number): string[] {
  const available = countStringsOverAlphabet(alphabet.length, lMin, lMax);
  if (BigInt(n) > available) {
    throw new RangeError(
      `cannot draw ${n} distinct strings: only ${available} exist of length ${lMin}..${lMax} over ${alphabet.length} characters`,
    );
  }
  if (available <= ENUMERATE_FRACTION * BigInt(n)) return rng.sample(enumerateStrings(alphabet, lMin, lMax), n);

  const seen = new Set<string>();
  const out: string[] = [];
  // A safety net far above the expected number of draws (see the bound above), so a bug cannot hang.
  const maxDraws = 64 * n * (lMax - lMin + 1) + 1024;
  for (let draws = 0; out.length < n; draws++) {
    if (draws >= maxDraws) throw new Error(`drawDistinctStrings: no ${n} distinct strings after ${maxDraws} draws`);
    const length = rng.int(lMin, lMax);
    let s = '';
    for (let i = 0; i < length; i++) s += rng.pick(alphabet);
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}
