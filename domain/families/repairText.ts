/**
 * The string steps bigcode's program-repair tasks (quixbugs.py, parity.py, python_bugs.py) post-process
 * generations with, in Python's semantics: a split at any of the stop words (re.split over the
 * escaped words joined by `|`: leftmost match first, and at one place the first word in the list),
 * the text before its last or its first match, Python's rstrip(), and a prefix of n code points
 * (Python's str slicing; JavaScript's counts UTF-16 units).
 */
import { PY_SPACE_CLASS } from '../metrics/pythonText.js';

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Where re.split("|".join(re.escape(w) for w in stops), text) cuts: each match's start, in order. */
function stopMatches(text: string, stops: readonly string[]): number[] {
  const pattern = new RegExp(stops.map(escape).join('|'), 'gu');
  return [...text.matchAll(pattern)].map((m) => m.index);
}

/**
 * bigcode's QuixBugs remove_last_block: "".join(re.split("(stops)", text)[:-2]), the text before
 * the last stop word; the empty string when no stop word occurs (the list then has one piece).
 */
export function removeLastBlock(text: string, stops: readonly string[]): string {
  const at = stopMatches(text, stops).at(-1);
  return at === undefined ? '' : text.slice(0, at);
}

const TRAILING = new RegExp(`[${PY_SPACE_CLASS}]+$`, 'u');

/** Python's str.rstrip() without arguments. */
export function pyRstrip(text: string): string {
  return text.replace(TRAILING, '');
}

/** bigcode's Parity first_block: re.split("stops", text)[0].rstrip(), the text before the first stop word. */
export function firstBlock(text: string, stops: readonly string[]): string {
  const at = stopMatches(text, stops)[0];
  return pyRstrip(at === undefined ? text : text.slice(0, at));
}

/** Python's text[:n]: the first n code points. */
export function codePointPrefix(text: string, n: number): string {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === n) break;
    units += ch.length;
    points++;
  }
  return text.slice(0, units);
}

/** Python's len(text): its code points. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
