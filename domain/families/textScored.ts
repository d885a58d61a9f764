/**
 * What families scored from their text share (TaskChecking `text`: CoNaLa, Concode, Spider's BLEU,
 * code-to-text, FIM, classification): the steps a run would need, which such a family never has
 * asked (no program, no tests, no limits, no run score), and the corpus metrics they use. A family
 * spreads `TEXT_SCORED_STEPS` into its definition and says in `checking` how one sample is scored.
 */
import { bleuOfStatistics, bleuStatistics, tokenize13a } from '../metrics/bleu.js';
import type { ExecutionLimits } from '../execution/types.js';
import type { CorpusMetric, MetricFigures, RunOutcome, TaskScore, TextStats } from './types.js';

/** A step a text-scored task never takes: asked anyway, it fails loudly (a caller forgot the `text` kind). */
function neverRun(step: string): never {
  throw new Error(`${step}: this task is scored from its text, never run (TaskChecking 'text')`);
}

/** The run steps of a text-scored family, shared: nothing is embedded, tested, limited or run. */
export const TEXT_SCORED_STEPS = {
  embedSolution: (_problem: unknown, solution: string): string => solution,
  tests: (): string => neverRun('tests'),
  limits: (_problem: unknown, _reference: string | null, _timeoutMs: number): Partial<ExecutionLimits> => neverRun('limits'),
  score: (_problem: unknown, _outcome: RunOutcome): TaskScore => neverRun('score'),
  requirements: () => [] as const,
} as const;

const ORDER = 4;

/**
 * bigcode's BLEU for CoNaLa and Concode (and explora's Spider BLEU): Hugging Face's
 * `evaluate.load("bleu")` with max_order=4, smooth=True over sacreBLEU's 13a tokens (bleu.ts),
 * computed over each task's FIRST sample only, as bigcode's process_results does
 * (`gens = [gen[0] for gen in generations]`). A sample's statistics are its clipped n-gram matches
 * and candidates per order and its two lengths; their sums are the corpus's, so the figures equal
 * `bigcodeBleu` over the same pairs. The figures are HF bleu's fields, bigcode's output.
 */
export const BIGCODE_BLEU: CorpusMetric = {
  id: 'bleu',
  samples: 'first',
  headline: 'bleu',
  figures(sums: Readonly<TextStats>): MetricFigures {
    const at = (key: string) => sums[key] ?? 0;
    const bleu = bleuOfStatistics(
      {
        matches: Array.from({ length: ORDER }, (_, i) => at(`matches_${i + 1}`)),
        possible: Array.from({ length: ORDER }, (_, i) => at(`possible_${i + 1}`)),
        translationLength: at('translation_length'),
        referenceLength: at('reference_length'),
      },
      true,
    );
    return { ...bleu };
  },
};

/** A prediction's statistics for BIGCODE_BLEU against its one reference. */
export function bigcodeBleuStats(prediction: string, reference: string): TextStats {
  const s = bleuStatistics([tokenize13a(reference)], tokenize13a(prediction), ORDER);
  const stats: TextStats = { translation_length: s.translationLength, reference_length: s.referenceLength };
  for (let i = 0; i < ORDER; i++) {
    stats[`matches_${i + 1}`] = s.matches[i]!;
    stats[`possible_${i + 1}`] = s.possible[i]!;
  }
  return stats;
}
