/**
 * Prompted classification as bigcode's instruct_codexglue_defect_detection and
 * instruct_codexglue_clone_detection score it (astraios branch of bigcode-evaluation-harness): the
 * answer is read from the text after the prompt's last "\nAnswer:", and Hugging Face's `accuracy`
 * and `f1` (average="macro") metrics, i.e. scikit-learn's accuracy_score and f1_score, are reported.
 * A reply that says neither yes nor no is the label "-1", which counts as a class of its own in
 * the macro F1 (as in scikit-learn, over the labels seen in the references or the predictions).
 */
import { pySplit } from './pythonText.js';

/** The phrases bigcode falls back on when the first clause says neither or both of yes and no. */
export const DEFECT_KEYWORDS = {
  positive: ['there is a', 'ere is a', 'has a defect', 'contains a defect'],
  negative: ['there is no defect'],
} as const;
export const CLONE_KEYWORDS = { positive: ['there is a', 'ere is a'], negative: ['there is no'] } as const;

export type YesNoLabel = '1' | '0' | '-1';

/**
 * bigcode's postprocess_generation for the yes/no tasks: the first clause (up to a period or comma)
 * of the answer decides when it contains exactly one of "yes" and "no" as substrings (so "not",
 * "know" and "cannot" count as "no", as in bigcode); otherwise the keyword phrases anywhere in the
 * answer; otherwise "-1".
 */
export interface YesNoKeywords {
  positive: readonly string[];
  negative: readonly string[];
}

export function parseYesNo(generation: string, keywords: YesNoKeywords): YesNoLabel {
  const parts = pySplit(generation, '\nAnswer:');
  const answer = parts[parts.length - 1]!;
  const lower = answer.toLowerCase();
  const firstClause = pySplit(lower.replaceAll(',', '.'), '.')[0]!;
  const yes = firstClause.includes('yes');
  const no = firstClause.includes('no');
  if (yes && !no) return '1';
  if (no && !yes) return '0';
  if (keywords.positive.some((k) => lower.includes(k.toLowerCase()))) return '1';
  if (keywords.negative.some((k) => lower.includes(k.toLowerCase()))) return '0';
  return '-1';
}

export interface ClassificationScores {
  accuracy: number;
  /** Mean over the labels seen in references or predictions of each label's F1 (scikit-learn's "macro"). */
  f1_macro: number;
  /** Per label: F1 = 2 tp / (2 tp + fp + fn), 0 where that is 0 / 0 (scikit-learn's zero_division default). */
  f1_by_label: Record<string, number>;
}

/** accuracy_score and f1_score(average="macro") of scikit-learn, on string labels. */
export function classificationScores(predictions: readonly string[], references: readonly string[]): ClassificationScores {
  if (predictions.length !== references.length) {
    throw new RangeError(`${predictions.length} predictions for ${references.length} references`);
  }
  if (predictions.length === 0) throw new RangeError('classification scores of no predictions');
  // numpy.unique's order (code-unit order equals code-point order for these labels' ASCII).
  const labels = [...new Set([...references, ...predictions])].sort();
  const f1ByLabel: Record<string, number> = {};
  for (const label of labels) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    predictions.forEach((p, i) => {
      const r = references[i];
      if (p === label && r === label) tp += 1;
      else if (p === label) fp += 1;
      else if (r === label) fn += 1;
    });
    const denominator = 2 * tp + fp + fn;
    f1ByLabel[label] = denominator === 0 ? 0 : (2 * tp) / denominator;
  }
  const correct = predictions.filter((p, i) => p === references[i]).length;
  let sum = 0;
  for (const label of labels) sum += f1ByLabel[label]!;
  return { accuracy: correct / predictions.length, f1_macro: sum / labels.length, f1_by_label: f1ByLabel };
}

/**
 * CodeComplex (Java time complexity, 7 classes) has no prompted task in bigcode, which fine-tunes a
 * classifier and reports accuracy. explora prompts for the class instead; this reads it from the
 * reply's first line: one of the dataset's labels, or the Big-O form of one. Anything else is "-1".
 */
export const COMPLEXITY_LABELS = ['constant', 'logn', 'linear', 'nlogn', 'quadratic', 'cubic', 'np'] as const;

const BIG_O: Array<[RegExp, (typeof COMPLEXITY_LABELS)[number]]> = [
  [/^o\(1\)$/, 'constant'],
  [/^o\(log\(?n\)?\)$/, 'logn'],
  [/^o\(n\)$/, 'linear'],
  [/^o\(n\*?log\(?n\)?\)$/, 'nlogn'],
  [/^o\(n(\^2|\*\*2|²|\*n)\)$/, 'quadratic'],
  [/^o\(n(\^3|\*\*3|³|\*n\*n)\)$/, 'cubic'],
  [/^o\((2|k|c)\^n\)$|^o\(n!\)$|^exponential$/, 'np'],
];

export function parseComplexity(reply: string): string {
  const firstLine = reply.trim().split('\n')[0]!.toLowerCase();
  const bare = firstLine
    .replace(/\s+/g, '')
    .replace(/[.`*]+$/, '')
    .replace(/^[`*]+/, '');
  for (const label of COMPLEXITY_LABELS) if (bare === label) return label;
  for (const [pattern, label] of BIG_O) if (pattern.test(bare)) return label;
  return '-1';
}
