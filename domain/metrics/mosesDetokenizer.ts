/**
 * Moses' detokenizer.perl (revision 4134, as the `mosestokenizer` 1.2.1 package bundles and runs it:
 * `perl detokenizer.perl -q -b -l en`) for English, which bigcode runs over CodeXGLUE code-to-text
 * references (`MosesDetokenizer("en")` on the docstring's tokens). Only the English rules: the
 * other languages' branches of the script never fire with `-l en`.
 *
 * Perl's classes as JavaScript's: \p{IsSc} is \p{Sc}, \p{IsAlpha} is \p{Alphabetic}, \p{IsAlnum}
 * is Alphabetic or a decimal digit (\p{Nd}); characters are code points, as the script reads its
 * input as UTF-8. Known gap: Perl 5.36 and Node may know different Unicode versions, so a letter
 * added to Unicode after 14.0 could count as alphabetic here and not there.
 */

const RIGHT_SHIFT = /^[\p{Sc}([{¿¡]+$/u;
const LEFT_SHIFT = /^[,.?!:;\\%}\])]+$/u;
const CONTRACTION = /^'\p{Alphabetic}/u;
const ENDS_ALNUM = /[\p{Alphabetic}\p{Nd}]$/u;
const QUOTES = /^['"„“`]+$/u;
const DOUBLE_QUOTES = /^[„“”]+$/u;
// The script prints a line that looks like one XML/HTML tag untouched (Perl's `.` is anything but \n).
const TAG_LINE = /^<[^\n]+>$/u;

// Code point ranges the script calls CJK (Hangul Jamo, the CJK blocks through Yi, Phags-pa, Hangul
// syllables, compatibility ideographs and forms, halfwidth forms, the Supplementary Ideographic Plane).
const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x11ff],
  [0x2e80, 0xa4cf],
  [0xa840, 0xa87f],
  [0xac00, 0xd7af],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff65, 0xffdc],
  [0x20000, 0x2ffff],
];

function isCjk(codePoint: number | undefined): boolean {
  return codePoint !== undefined && CJK_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

const startsWithCjk = (word: string) => isCjk(word.codePointAt(0));
const endsWithCjk = (word: string) => isCjk(Array.from(word).at(-1)?.codePointAt(0));

// The script's deescape(), in its order (&amp; last).
const ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ['&bar;', '|'],
  ['&#124;', '|'],
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&bra;', '['],
  ['&ket;', ']'],
  ['&quot;', '"'],
  ['&apos;', "'"],
  ['&#91;', '['],
  ['&#93;', ']'],
  ['&amp;', '&'],
];

function deescape(text: string): string {
  return ESCAPES.reduce((out, [from, to]) => out.replaceAll(from, to), text);
}

/**
 * `MosesDetokenizer("en")(tokens)`: the tokens (none may hold a newline) joined by spaces and
 * detokenized as one line; no tokens give "".
 */
export function mosesDetokenizeEnglish(tokens: readonly string[]): string {
  if (tokens.some((token) => token.includes('\n'))) throw new RangeError('a token holds a newline');
  if (tokens.length === 0) return '';
  const line = tokens.join(' ');
  if (TAG_LINE.test(line) || line.trim() === '') return line;
  // Perl's split(/ /) keeps the leading empty field and drops trailing ones.
  const words = deescape(` ${line} `.replaceAll(' @-@ ', '-')).split(' ');
  while (words.length > 0 && words.at(-1) === '') words.pop();
  let text = '';
  let prependSpace = ' ';
  const quoteCount = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const previous = i > 0 ? words[i - 1]! : '';
    if (startsWithCjk(word)) {
      text += i > 0 && endsWithCjk(previous) ? word : prependSpace + word;
      prependSpace = ' ';
    } else if (RIGHT_SHIFT.test(word)) {
      text += prependSpace + word;
      prependSpace = '';
    } else if (LEFT_SHIFT.test(word)) {
      text += word;
      prependSpace = ' ';
    } else if (i > 0 && CONTRACTION.test(word) && ENDS_ALNUM.test(previous)) {
      text += word;
      prependSpace = ' ';
    } else if (QUOTES.test(word)) {
      const key = DOUBLE_QUOTES.test(word) ? '"' : word;
      const count = quoteCount.get(key) ?? 0;
      if (count % 2 === 0) {
        if (word === "'" && i > 0 && previous.endsWith('s')) {
          // A possessive ("the Jones' house"): shifted left, and it opens no quote.
          text += word;
          prependSpace = ' ';
        } else {
          text += prependSpace + word;
          prependSpace = '';
          quoteCount.set(key, count + 1);
        }
      } else {
        text += word;
        prependSpace = ' ';
        quoteCount.set(key, count + 1);
      }
    } else {
      text += prependSpace + word;
      prependSpace = ' ';
    }
  }
  return text.replace(/ +/g, ' ').replace(/^ /, '').replace(/ $/, '');
}
