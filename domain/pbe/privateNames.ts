/**
 * Pronounceable nonsense identifiers for the private library: three syllables, one of them a `q`
 * followed by a vowel other than `u` (`bruqoven`, `qelimax`). English spells `q` without `u` in only a
 * handful of borrowed words (listed below and refused), and neither Python's keywords, builtins,
 * standard modules nor `str` methods contain such a `q`, so a name can be neither a word a model
 * knows the meaning of nor an existing Python name. Drawn from a stream of their own (not a task's),
 * so the names depend on the dataset seed alone.
 */
import { murmur3Words, Rng } from './rng.js';

// Tags this stream family apart from the per-task streams of rng.ts ("PBEL").
const NAMES_TAG = 0x5042454c;

const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'dr', 'gl', 'kr', 'pl', 'tr', 'vr', 'zl'];
const VOWELS = ['a', 'e', 'i', 'o', 'u'];
const Q_VOWELS = ['a', 'e', 'i', 'o'];
// Empty codas weigh more so that most names end in a vowel and stay easy to say.
const CODAS = ['', '', '', 'n', 'r', 'l', 'm', 'k', 'x'];
const SYLLABLES = 3;

/** Real words (English, or borrowed into it) the syllable shape could spell. */
const REFUSED = new Set([
  'qabala',
  'qabalah',
  'qanat',
  'faqir',
  'niqab',
  'burqa',
  'sheqel',
  'qigong',
  'qiviut',
  'qindar',
  'qintar',
  'qadi',
  'qaid',
  'qoph',
]);

function nameRng(seed: number, purpose: number): Rng {
  const key = [NAMES_TAG, seed >>> 0, purpose];
  return new Rng([murmur3Words(key, 0), murmur3Words(key, 1), murmur3Words(key, 2), murmur3Words(key, 3)]);
}

function drawName(rng: Rng): string {
  const qAt = rng.int(0, SYLLABLES - 1);
  let name = '';
  for (let i = 0; i < SYLLABLES; i++) name += i === qAt ? 'q' + rng.pick(Q_VOWELS) : rng.pick(ONSETS) + rng.pick(VOWELS);
  return name + rng.pick(CODAS);
}

/** True for the names drawName can give and this module accepts (for tests and input checks). */
export function isNonsenseName(name: string): boolean {
  return /^[a-z]+$/.test(name) && /q[aeio]/.test(name) && !/qu/.test(name) && !REFUSED.has(name);
}

/**
 * `count` distinct nonsense names for dataset `seed`, the same for the same (seed, purpose, count).
 * `purpose` separates independent uses (e.g. the module name and the function names).
 */
export function nonsenseNames(seed: number, purpose: number, count: number): string[] {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff)
    throw new RangeError(`nonsenseNames: seed must be an integer in [0, 2^32), got ${seed}`);
  const rng = nameRng(seed, purpose);
  const names: string[] = [];
  // ~10^7 possible names: rejections are rare, so the cap is only a guard against a bug.
  for (let draws = 0; names.length < count; draws++) {
    if (draws >= 1000 + 100 * count) throw new Error(`nonsenseNames: no ${count} distinct names after ${draws} draws`);
    const name = drawName(rng);
    if (isNonsenseName(name) && !names.includes(name)) names.push(name);
  }
  return names;
}
