/**
 * A text-scored set's corpus score (domain/sweep/textScores.ts folds it) as results, progress and
 * reports show it; apart from the fold so that readers of results need not load the families.
 */
import type { CorpusMetric, MetricFigures } from '../families/types.js';

/** A corpus metric's result: its figures, which samples they cover and how many. */
export interface CorpusScore {
  metric: string;
  headline: string;
  /** Which samples of each task were scored (CorpusMetric.samples). */
  samplesScored: CorpusMetric['samples'];
  /** Samples the figures are computed from. */
  samples: number;
  figures: MetricFigures;
}

/** A corpus score in one line: the headline first, then the other figures ("bleu 0.3124; precisions 0.61 0.40 ..."). */
export function corpusScoreLine(score: CorpusScore): string {
  const show = (v: number | number[]) =>
    Array.isArray(v) ? v.map((x) => x.toFixed(4)).join(' ') : Number.isInteger(v) ? String(v) : v.toFixed(4);
  const rest = Object.entries(score.figures).filter(([k]) => k !== score.headline);
  const which = score.samplesScored === 'first' ? "each task's first sample" : 'every sample';
  return [
    `${score.headline} ${score.figures[score.headline] === undefined ? '-' : show(score.figures[score.headline]!)}`,
    ...rest.map(([k, v]) => `${k} ${show(v)}`),
  ]
    .join('; ')
    .concat(` (${score.metric} over ${which}: ${score.samples} samples)`);
}
