/**
 * The few pieces of Python's string semantics the benchmark scores depend on (bigcode computes them
 * in Python): which characters are whitespace, str.strip(), str.split() with and without a
 * separator, and which strings float() accepts. JavaScript's trim() and \s disagree with Python on
 * U+001C..U+001F, U+0085 (whitespace in Python) and U+FEFF (whitespace in JavaScript only).
 */

/** The characters Python's str.isspace() (and re's \s on str) calls whitespace. */
export const PY_SPACE_CLASS = '\\t\\n\\x0B\\f\\r\\x1C-\\x1F \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';

const LEADING = new RegExp(`^[${PY_SPACE_CLASS}]+`, 'u');
const TRAILING = new RegExp(`[${PY_SPACE_CLASS}]+$`, 'u');
const RUNS = new RegExp(`[${PY_SPACE_CLASS}]+`, 'u');

/** Python's str.strip() without arguments. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python's str.split() without arguments: runs of whitespace separate, no empty pieces. */
export function pySplitWhitespace(text: string): string[] {
  const stripped = pyStrip(text);
  return stripped === '' ? [] : stripped.split(RUNS);
}

/** Python's str.split(sep, maxsplit): at most maxsplit cuts from the left (all of them when omitted). */
export function pySplit(text: string, sep: string, maxsplit = -1): string[] {
  if (sep === '') throw new RangeError('empty separator');
  const parts: string[] = [];
  let start = 0;
  while (maxsplit < 0 || parts.length < maxsplit) {
    const at = text.indexOf(sep, start);
    if (at < 0) break;
    parts.push(text.slice(start, at));
    start = at + sep.length;
  }
  parts.push(text.slice(start));
  return parts;
}

// float()'s grammar: digits may be grouped by single underscores; inf/infinity/nan in any case.
const DIGITS = '[0-9](?:_?[0-9])*';
const PY_FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`, 'i');
const PY_INT = new RegExp(`^[+-]?${DIGITS}$`);

/**
 * Python's float(text) for a str, or undefined where Python raises ValueError. Known gap: Python
 * also accepts non-ASCII decimal digits (e.g. Arabic-Indic), which this refuses.
 */
export function pyFloat(text: string): number | undefined {
  const body = pyStrip(text);
  if (!PY_FLOAT.test(body)) return undefined;
  const lower = body.toLowerCase().replace(/_/g, '');
  const sign = lower.startsWith('-') ? -1 : 1;
  const unsigned = lower.replace(/^[+-]/, '');
  if (unsigned === 'nan') return Number.NaN;
  if (unsigned === 'inf' || unsigned === 'infinity') return sign * Number.POSITIVE_INFINITY;
  return Number(lower);
}

/** Whether Python's int(text) accepts the str (ASCII digits only, as pyFloat). */
export function pyIsIntLiteral(text: string): boolean {
  return PY_INT.test(pyStrip(text));
}
