/**
 * Python 3's `repr()` of a `str`, reproduced in TypeScript.
 *
 * The dataset embeds Python string literals in prompts, solutions and tests, and those texts must be
 * byte-identical to what the Python reference generator wrote (see the card example), so this follows
 * CPython's `unicode_repr` step by step:
 *
 * - quote: single quotes, unless the string contains `'` and no `"` (then double quotes);
 * - the chosen quote and `\` are backslash-escaped; `\t`, `\n`, `\r` use their short escapes;
 * - other code points below 0x20, and 0x7F, become `\xNN`;
 * - other ASCII is kept as is;
 * - non-ASCII is kept as is when "printable", else `\xNN` (< 0x100), `\uNNNN` (< 0x10000) or
 *   `\UNNNNNNNN`, with lowercase hex digits.
 *
 * Printability approximation: CPython calls a code point printable unless its general category is
 * Cc, Cf, Cs, Co, Cn (unassigned), Zl, Zp or Zs (space U+0020 excepted, but that is ASCII). We use
 * the same category rule through JS Unicode property escapes, so the only possible difference is the
 * Unicode *version*: a code point assigned in Node's ICU tables but not in the running Python's
 * `unicodedata` (or vice versa) may be classified differently. ASCII and Latin-1 (e.g. U+0080..U+009F
 * are Cc, U+00A0 is Zs, U+00AD is Cf) are exact. Lone surrogates (possible in both JS and Python
 * strings) are category Cs and come out as `\udXXX`, as in Python.
 */

// Categories Python's str.isprintable() treats as non-printable.
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(cp: number, digits: number): string {
  return cp.toString(16).padStart(digits, '0');
}

function escapeNonAscii(ch: string, cp: number): string {
  if (!NON_PRINTABLE.test(ch)) return ch;
  if (cp < 0x100) return `\\x${hex(cp, 2)}`;
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  // for..of iterates code points; a lone surrogate comes out as a one-unit string.
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else out += escapeNonAscii(ch, cp);
  }
  return out + quote;
}
