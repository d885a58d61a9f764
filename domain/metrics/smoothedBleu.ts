/**
 * The BLEU bigcode reports for CodeXGLUE code-to-text (its `codexglue_code_to_text-*` tasks, under
 * the key "blue"): CodeXGLUE's evaluator (Code-Text/code-to-text/evaluator/bleu.py, itself from
 * MOSES' bleu.py by hieuhoang1972) as bigcode's compute_codexglue_code_to_text_bleu calls it:
 * each text cut at its first tab, stripped, lower-cased and split into word runs and single
 * symbols (splitPuncts); then per pair a sentence BLEU of order 4 with NIST normalisation, the
 * shortest reference length, add-one smoothing on orders 2..4 only and a brevity penalty of
 * exp(min(0, 1 - (r + 1) / (c + 1))); the result is the mean of the sentence scores times 100.
 */
import { mtevalPunctuation, ngramCounts } from './bleu.js';
import { PY_SPACE_CLASS, pySplit, pyStrip } from './pythonText.js';

const ORDER = 4;
// Python's sys.float_info.min, which the evaluator adds inside every log (not Number.MIN_VALUE, a subnormal).
const FLOAT_MIN = 2.2250738585072014e-308;

// Python's \w on str is "alphanumeric or underscore"; \s is str.isspace().
const WORD_OR_SYMBOL = new RegExp(`[\\p{L}\\p{N}_]+|[^${PY_SPACE_CLASS}\\p{L}\\p{N}_]`, 'gu');

/** CodeXGLUE's splitPuncts: runs of word characters and single other non-space characters, space-joined. */
export function splitPuncts(line: string): string {
  return (line.match(WORD_OR_SYMBOL) ?? []).join(' ');
}

// xml.sax.saxutils.unescape(s, {"&quot;": '"'}): &lt; and &gt; first, the extra entity, &amp; last.
function xmlUnescape(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

/** The evaluator's normalize(): mteval-v11a's preprocessing, lower case, then the 13a punctuation rules. */
export function codexglueNormalize(text: string): string[] {
  const joined = text
    .replace(/<skipped>/g, '')
    .replace(/-\n/g, '')
    .replace(/\n/g, ' ');
  return mtevalPunctuation(` ${xmlUnescape(joined)} `.toLowerCase());
}

/** The evaluator's bleu(refs, candidate) (smooth=1), first element: the sentence's smoothed BLEU in [0, 1]. */
export function smoothedSentenceBleu(references: readonly string[], candidate: string): number {
  const refs = references.map(codexglueNormalize);
  const maxRefCounts = new Map<string, number>();
  for (const ref of refs) {
    for (const [key, { count }] of ngramCounts(ref, ORDER)) {
      maxRefCounts.set(key, Math.max(maxRefCounts.get(key) ?? 0, count));
    }
  }
  const test = codexglueNormalize(candidate);
  const refLength = Math.min(...refs.map((r) => r.length));
  const correct = new Array<number>(ORDER).fill(0);
  for (const [key, { order, count }] of ngramCounts(test, ORDER)) {
    correct[order - 1]! += Math.min(maxRefCounts.get(key) ?? 0, count);
  }
  let logBleu = 0;
  for (let k = 0; k < ORDER; k++) {
    const guess = Math.max(test.length - k, 0);
    const add = k > 0 ? 1 : 0;
    logBleu += Math.log(correct[k]! + add + FLOAT_MIN) - Math.log(guess + add + FLOAT_MIN);
  }
  logBleu /= ORDER;
  const brevityPenalty = Math.min(0, 1 - (refLength + 1) / (test.length + 1));
  return Math.exp(logBleu + brevityPenalty);
}

// bigcode keeps what precedes a tab and warns; the evaluator's files are tab-separated.
function prepare(text: string): string {
  return splitPuncts(pyStrip(pySplit(pyStrip(text), '\t')[0]!).toLowerCase());
}

/** One pair's term of compute_codexglue_code_to_text_bleu: its smoothed sentence BLEU in [0, 1], both texts prepared as bigcode does. */
export function codexglueSentenceBleu(reference: string, prediction: string): number {
  return smoothedSentenceBleu([prepare(reference)], prepare(prediction));
}

/** bigcode's compute_codexglue_code_to_text_bleu: the mean smoothed sentence BLEU, times 100. */
export function codexglueBleu(pairs: ReadonlyArray<{ reference: string; prediction: string }>): number {
  if (pairs.length === 0) throw new RangeError('code-to-text BLEU of no pairs');
  let sum = 0;
  for (const { reference, prediction } of pairs) sum += codexglueSentenceBleu(reference, prediction);
  return (sum * 100) / pairs.length;
}

/**
 * bigcode's post-processing of a code-to-text generation (prompt + completion): the text after the
 * prompt's closing "The goal of this function is to:" line, stripped, first line only. `delimiter`
 * is the language's SUFFIX_PROMPT (the family knows which).
 */
export function firstLineAfter(generation: string, delimiter: string): string {
  const parts = pySplit(generation, delimiter);
  if (parts.length < 2) throw new RangeError("the generation does not contain the prompt's delimiter");
  return pySplit(pyStrip(parts[1]!), '\n')[0]!;
}
