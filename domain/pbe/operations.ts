/**
 * The string methods a PBE World pipeline is made of, as one registry: adding a method means adding
 * one entry to OPERATIONS (plus its name in the JSON Schema's method enum, which a test cross-checks).
 *
 * Every `apply` reproduces Python 3's `str` method exactly for the strings the generator produces
 * (printable ASCII); notes on the non-ASCII corner cases are next to each implementation.
 */
import { pyRepr } from './pyrepr.js';
import type { Rng } from './rng.js';

/** One step of a pipeline as stored in `canonical_pipeline`. */
export interface PipelineStep {
  method: string;
  args: string[];
}

export interface Operation {
  /** Python method name, also the `method` field of a pipeline step. */
  readonly name: string;
  /** Number of (string) arguments. */
  readonly arity: number;
  /** How the prompt describes the method, e.g. `s = s.replace(old, new)`. */
  readonly signature: string;
  /** Python semantics of `s.<name>(*args)`. */
  apply(s: string, args: readonly string[]): string;
  /** The Python statement of the canonical solution, e.g. `s = s.replace('bb', 'aa')`. */
  renderStatement(args: readonly string[]): string;
  /**
   * Random arguments that make sense for the current pool strings, or null when the method cannot
   * change any of them now (e.g. `upper` on an all-uppercase pool). Null depends only on the pool,
   * never on the random draw, so "ops with non-null args" is a well-defined set to pick from.
   */
  drawArgs(rng: Rng, pool: readonly string[], alphabet: readonly string[]): string[] | null;
}

// Longest `old` / `new` drawn for replace: short patterns keep tasks solvable from a few examples.
const MAX_REPLACE_OLD_LENGTH = 3;
const MAX_REPLACE_NEW_LENGTH = 3;
// strip(chars) gets one or two distinct characters.
const MAX_STRIP_CHARS = 2;

function methodCall(name: string, args: readonly string[]): string {
  return `s = s.${name}(${args.map(pyRepr).join(', ')})`;
}

/**
 * Python's `s.replace(old, new)`: literal, global, leftmost non-overlapping, and for an empty `old`
 * inserts `new` before every code point and at the end (`'ab'.replace('', '-') == '-a-b-'`).
 * An indexOf loop rather than String.replace/replaceAll, whose replacement strings interpret `$&`, `$1`...
 */
export function pyReplace(s: string, oldText: string, newText: string): string {
  if (oldText === '') {
    let out = newText;
    for (const ch of s) out += ch + newText;
    return out;
  }
  let at = s.indexOf(oldText);
  if (at < 0) return s;
  let out = '';
  let from = 0;
  while (at >= 0) {
    out += s.slice(from, at) + newText;
    from = at + oldText.length;
    at = s.indexOf(oldText, from);
  }
  return out + s.slice(from);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Python's `s.strip(chars)`: removes any code point of `chars` from both ends; '' removes nothing. */
export function pyStrip(s: string, chars: string): string {
  if (SURROGATE.test(s) || SURROGATE.test(chars)) {
    // Work on code points so a strip character never splits a surrogate pair.
    const strip = new Set(chars);
    const cps = Array.from(s);
    let start = 0;
    let end = cps.length;
    while (start < end && strip.has(cps[start]!)) start++;
    while (end > start && strip.has(cps[end - 1]!)) end--;
    return cps.slice(start, end).join('');
  }
  // Without surrogates, code units are code points.
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** First and last code point of a non-empty string (the same one if it has a single code point). */
function endCodePoints(s: string): string[] {
  const first = String.fromCodePoint(s.codePointAt(0)!);
  const lastUnit = s.charCodeAt(s.length - 1);
  const lastIsPairTail = lastUnit >= 0xdc00 && lastUnit <= 0xdfff && s.length >= 2 && /[\uD800-\uDBFF]/.test(s[s.length - 2]!);
  const last = lastIsPairTail ? s.slice(-2) : s.slice(-1);
  return [first, last];
}

function randomString(rng: Rng, alphabet: readonly string[], length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += rng.pick(alphabet);
  return out;
}

/**
 * Case mapping: JS toUpperCase/toLowerCase (locale-independent) and Python's upper/lower both apply the
 * full Unicode mappings (e.g. 'ß'.upper() == 'SS', final sigma in lower), so they agree except where
 * Node's and Python's Unicode versions differ; for ASCII they are exact.
 */
function caseOperation(name: 'upper' | 'lower', map: (s: string) => string): Operation {
  return {
    name,
    arity: 0,
    signature: `s = s.${name}()`,
    apply: (s) => map(s),
    renderStatement: (args) => methodCall(name, args),
    drawArgs: (_rng, pool) => (pool.some((s) => map(s) !== s) ? [] : null),
  };
}

export const OPERATIONS: readonly Operation[] = [
  {
    name: 'replace',
    arity: 2,
    signature: 's = s.replace(old, new)',
    apply: (s, [oldText, newText]) => pyReplace(s, oldText!, newText!),
    renderStatement: (args) => methodCall('replace', args),
    drawArgs(rng, pool, alphabet) {
      // `old` is a substring of a current string, so at least that string changes.
      const sources = pool.filter((s) => s.length > 0);
      if (sources.length === 0) return null;
      const source = Array.from(rng.pick(sources));
      const oldLength = rng.int(1, Math.min(MAX_REPLACE_OLD_LENGTH, source.length));
      const start = rng.int(0, source.length - oldLength);
      const oldText = source.slice(start, start + oldLength).join('');
      // `new` differs from `old` (else nothing changes); '' always differs, so give up to it.
      let newText = '';
      for (let attempt = 0; attempt < 16; attempt++) {
        const candidate = randomString(rng, alphabet, rng.int(0, MAX_REPLACE_NEW_LENGTH));
        if (candidate !== oldText) {
          newText = candidate;
          break;
        }
      }
      return [oldText, newText];
    },
  },
  caseOperation('upper', (s) => s.toUpperCase()),
  caseOperation('lower', (s) => s.toLowerCase()),
  {
    name: 'strip',
    arity: 1,
    signature: 's = s.strip(chars)',
    apply: (s, [chars]) => pyStrip(s, chars!),
    renderStatement: (args) => methodCall('strip', args),
    drawArgs(rng, pool) {
      // Characters found at an end of some current string, so that string loses at least one.
      const endChars: string[] = [];
      for (const s of pool) {
        if (s === '') continue;
        for (const ch of endCodePoints(s)) if (!endChars.includes(ch)) endChars.push(ch);
      }
      if (endChars.length === 0) return null;
      const count = rng.int(1, Math.min(MAX_STRIP_CHARS, endChars.length));
      return [rng.sample(endChars, count).join('')];
    },
  },
];

const BY_NAME = new Map(OPERATIONS.map((op) => [op.name, op]));

export const OPERATION_NAMES: readonly string[] = OPERATIONS.map((op) => op.name);

export function getOperation(name: string): Operation {
  const op = BY_NAME.get(name);
  if (!op) throw new Error(`unknown PBE operation ${JSON.stringify(name)} (known: ${OPERATION_NAMES.join(', ')})`);
  return op;
}

function checkedOperation(step: PipelineStep): Operation {
  const op = getOperation(step.method);
  if (step.args.length !== op.arity) {
    throw new Error(`${op.name} takes ${op.arity} argument(s), got ${step.args.length}`);
  }
  return op;
}

export function applyStep(s: string, step: PipelineStep): string {
  return checkedOperation(step).apply(s, step.args);
}

export function applyPipeline(s: string, pipeline: readonly PipelineStep[]): string {
  let out = s;
  for (const step of pipeline) out = applyStep(out, step);
  return out;
}

/** The Python statement line of one step (without indentation). */
export function renderStep(step: PipelineStep): string {
  return checkedOperation(step).renderStatement(step.args);
}
