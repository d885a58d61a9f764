/**
 * Corpus BLEU as bigcode-evaluation-harness reports it for CoNaLa and Concode (and lists for
 * Spider): Hugging Face's `evaluate.load("bleu")`, which is tensorflow/nmt's compute_bleu over
 * sacreBLEU's 13a tokenizer (mteval-v13a), the tokens being the tokenizer's output split on
 * whitespace. bigcode calls it with max_order=4 and smooth=True (add-one on every order, unigrams
 * included). Scores are in [0, 1], as that metric returns them.
 *
 * One deliberate difference: where every prediction is empty (translation length 0) nmt's code
 * divides by zero and bigcode stops with ZeroDivisionError; here the score is 0 with a brevity
 * penalty of 0. A corpus whose references are all empty scores as if the penalty were 1.
 */
import { pySplitWhitespace } from './pythonText.js';

// mteval-v13a's punctuation rules, in the order the tokenizer applies them.
const PUNCTUATION_13A: Array<[RegExp, string]> = [
  // every ASCII symbol but apostrophe, hyphen, period and comma becomes its own token
  [/([\x7B-\x7E\x5B-\x60\x20-\x26\x28-\x2B\x3A-\x40\x2F])/gu, ' $1 '],
  // period and comma, unless preceded by a digit
  [/([^0-9])([.,])/gu, '$1 $2 '],
  // period and comma, unless followed by a digit
  [/([.,])([^0-9])/gu, ' $1 $2'],
  // a hyphen after a digit
  [/([0-9])(-)/gu, '$1 $2 '],
];

/** sacreBLEU's / Hugging Face's Tokenizer13a, returning the tokens. */
export function tokenize13a(line: string): string[] {
  let text = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (text.includes('&')) {
    text = text.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  return mtevalPunctuation(` ${text} `);
}

/** The language-dependent half of mteval's tokenization, shared with CodeXGLUE's evaluator. */
export function mtevalPunctuation(text: string): string[] {
  let out = text;
  for (const [pattern, replacement] of PUNCTUATION_13A) out = out.replace(pattern, replacement);
  return pySplitWhitespace(out);
}

/** Counts of every n-gram of order 1..maxOrder; tokens hold no whitespace, so a space joins them unambiguously. */
export function ngramCounts(tokens: readonly string[], maxOrder: number): Map<string, { order: number; count: number }> {
  const counts = new Map<string, { order: number; count: number }>();
  for (let order = 1; order <= maxOrder; order++) {
    for (let i = 0; i + order <= tokens.length; i++) {
      const key = tokens.slice(i, i + order).join(' ');
      const seen = counts.get(key);
      if (seen) seen.count += 1;
      else counts.set(key, { order, count: 1 });
    }
  }
  return counts;
}

export interface BleuOptions {
  maxOrder?: number;
  smooth?: boolean;
}

/** The fields of Hugging Face's bleu result. */
export interface CorpusBleu {
  bleu: number;
  precisions: number[];
  brevity_penalty: number;
  length_ratio: number;
  translation_length: number;
  reference_length: number;
}

/**
 * What nmt's compute_bleu sums over a corpus, for one translation or many: clipped n-gram matches
 * and candidate n-grams per order (index 0: unigrams), and the two lengths (the shortest reference's).
 * Sums of these over pairs are the corpus's, so a corpus can be scored a pair at a time.
 */
export interface BleuStatistics {
  matches: number[];
  possible: number[];
  translationLength: number;
  referenceLength: number;
}

/** One translation's statistics against its references (already tokenized). */
export function bleuStatistics(references: ReadonlyArray<readonly string[]>, translation: readonly string[], maxOrder = 4): BleuStatistics {
  if (references.length === 0) throw new RangeError('a prediction has no reference');
  const matches = new Array<number>(maxOrder).fill(0);
  const possible = new Array<number>(maxOrder).fill(0);
  const merged = new Map<string, number>();
  for (const ref of references) {
    for (const [key, { count }] of ngramCounts(ref, maxOrder)) merged.set(key, Math.max(merged.get(key) ?? 0, count));
  }
  for (const [key, { order, count }] of ngramCounts(translation, maxOrder)) {
    matches[order - 1]! += Math.min(count, merged.get(key) ?? 0);
  }
  for (let order = 1; order <= maxOrder; order++) {
    const candidates = translation.length - order + 1;
    if (candidates > 0) possible[order - 1]! += candidates;
  }
  return {
    matches,
    possible,
    translationLength: translation.length,
    referenceLength: Math.min(...references.map((r) => r.length)),
  };
}

/** nmt's compute_bleu from a corpus's summed statistics (max order: their length). */
export function bleuOfStatistics({ matches, possible, translationLength, referenceLength }: BleuStatistics, smooth = false): CorpusBleu {
  const maxOrder = matches.length;
  const precisions = matches.map((m, i) => {
    if (smooth) return (m + 1) / (possible[i]! + 1);
    return possible[i]! > 0 ? m / possible[i]! : 0;
  });
  let geoMean = 0;
  if (Math.min(...precisions) > 0) {
    let logSum = 0;
    for (const p of precisions) logSum += (1 / maxOrder) * Math.log(p);
    geoMean = Math.exp(logSum);
  }
  const ratio = translationLength / referenceLength;
  let brevityPenalty: number;
  if (ratio > 1) brevityPenalty = 1;
  else if (translationLength === 0) brevityPenalty = 0;
  else brevityPenalty = Math.exp(1 - 1 / ratio);
  return {
    bleu: geoMean * brevityPenalty,
    precisions,
    brevity_penalty: brevityPenalty,
    length_ratio: ratio,
    translation_length: translationLength,
    reference_length: referenceLength,
  };
}

/** nmt's compute_bleu over already tokenized text: each translation has one or more references. */
export function corpusBleuOfTokens(
  references: ReadonlyArray<ReadonlyArray<readonly string[]>>,
  translations: ReadonlyArray<readonly string[]>,
  { maxOrder = 4, smooth = false }: BleuOptions = {},
): CorpusBleu {
  if (references.length !== translations.length) {
    throw new RangeError(`BLEU needs one reference set per prediction (${references.length} vs ${translations.length})`);
  }
  const sums: BleuStatistics = {
    matches: new Array<number>(maxOrder).fill(0),
    possible: new Array<number>(maxOrder).fill(0),
    translationLength: 0,
    referenceLength: 0,
  };
  translations.forEach((translation, i) => {
    if (references[i]!.length === 0) throw new RangeError(`prediction ${i} has no reference`);
    const one = bleuStatistics(references[i]!, translation, maxOrder);
    for (let k = 0; k < maxOrder; k++) {
      sums.matches[k]! += one.matches[k]!;
      sums.possible[k]! += one.possible[k]!;
    }
    sums.translationLength += one.translationLength;
    sums.referenceLength += one.referenceLength;
  });
  return bleuOfStatistics(sums, smooth);
}

/** bigcode's CoNaLa / Concode score: HF bleu on the strings, 13a tokens, max order 4, smoothed. */
export function bigcodeBleu(predictions: readonly string[], references: readonly string[]): CorpusBleu {
  return corpusBleu(predictions, references, { maxOrder: 4, smooth: true });
}

/** HF `bleu.compute(predictions, references, max_order, smooth)` with one reference per prediction. */
export function corpusBleu(predictions: readonly string[], references: readonly string[], options: BleuOptions = {}): CorpusBleu {
  return corpusBleuOfTokens(
    references.map((r) => [tokenize13a(r)]),
    predictions.map((p) => tokenize13a(p)),
    options,
  );
}
