/**
 * The shared score kind of samples scored from their text (TaskChecking `text`: CoNaLa's BLEU,
 * code-to-text, classification...): a sample's statistics, summed per cell into its family's corpus
 * metric (CorpusFold) and per task (so that a comparison resamples tasks and recomputes the metric).
 * Nothing runs: such a cell has no pass@k, and is compared on its metric's headline.
 */
import { z } from 'zod';
import { corpusScoreLine, type CorpusScore } from '../sweep/corpusScore.js';
import { CorpusFold, noPassAtKReason, textCheckingOf } from '../sweep/textScores.js';
import type { CorpusMetric, TextStats } from '../families/types.js';
import { declareScoreKind } from './scoreKind.js';

const TextSampleSchema = z.object({ kind: z.literal('text'), stats: z.record(z.string(), z.number()) });

const CorpusScoreSchema = z.object({
  metric: z.string(),
  headline: z.string(),
  samplesScored: z.enum(['first', 'all']),
  samples: z.number().int(),
  figures: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
});
/** A corpus score as a stored summary holds it (CorpusScore). */
export const StoredCorpusScoreSchema: z.ZodType<CorpusScore> = CorpusScoreSchema;

const TextFiguresSchema = CorpusScoreSchema.extend({ kind: z.literal('text') });
type TextFigures = z.output<typeof TextFiguresSchema>;

/** The statistics of the task's samples its cell's corpus metric scores, summed, and how many. */
type TextTask = { samples: number; stats: TextStats };

/** The cell's corpus metric and its fold, from its first text-scored record (one metric per cell). */
type TextCell = { scored: { metric: CorpusMetric; fold: CorpusFold } | null };

/** A corpus score's headline figure, when it is a number. */
export function headlineOf(score: CorpusScore): number | undefined {
  const v = score.figures[score.headline];
  return typeof v === 'number' ? v : undefined;
}

/** A corpus score as results.json writes it: the metric, which samples and how many, then its figures. */
export function corpusScoreJson(score: CorpusScore): Record<string, unknown> {
  return { metric: score.metric, samples_scored: score.samplesScored, samples: score.samples, ...score.figures };
}

export const TEXT_SCORES = declareScoreKind<z.output<typeof TextSampleSchema>, TextTask, TextCell, TextFigures>({
  sampleKind: 'text',
  sampleSchema: TextSampleSchema,
  recordScore: (score) => ({ kind: 'text', stats: score.stats as TextStats }),
  rowFields: (sample) => ({ stats: sample.stats }),
  runs: false,
  newCell: () => ({ scored: null }),
  add: (cell, task, sample, { problem, taskId, sampleIndex }) => {
    const checking = textCheckingOf(problem);
    if (checking === null) throw new Error(`record of task ${taskId} has a text score, but its task is run`);
    cell.scored ??= { metric: checking.metric, fold: new CorpusFold(checking.metric) };
    if (cell.scored.metric.id !== checking.metric.id)
      throw new Error(`task ${taskId} is scored by ${checking.metric.id}, the cell's others by ${cell.scored.metric.id}`);
    cell.scored.fold.add(sample.stats, sampleIndex === 0);
    // Per task as well: a paired comparison resamples tasks and recomputes the corpus metric from their sums.
    if (cell.scored.metric.samples !== 'all' && sampleIndex !== 0) return task;
    const text = task ?? { samples: 0, stats: {} };
    text.samples++;
    for (const [key, value] of Object.entries(sample.stats)) text.stats[key] = (text.stats[key] ?? 0) + value;
    return text;
  },
  figures: (cell) => {
    const corpus = cell.scored?.fold.result() ?? null;
    return corpus ? { kind: 'text', ...corpus } : null;
  },
  noPassAtK: (cell) => noPassAtKReason(cell.scored!.metric),
  cellKind: 'text',
  cellSchema: TextFiguresSchema,
  perTaskJson: (text) => ({ text }),
  perTaskShape: { text: z.object({ samples: z.number().int().positive(), stats: z.record(z.string(), z.number()) }).optional() },
  resultsJson: corpusScoreJson,
  // A task scored from its text: the metric's figures ({"conala": {"bleu": ...}}), no pass@k.
  metricsLine: (figures, parts) => ({ ...parts.passAtK, ...figures.figures, ...parts.alsoText }),
  progressLine: (figures) => corpusScoreLine(figures),
  headline: (figures) => ({ name: figures.headline, value: headlineOf(figures) }),
  report: {
    order: 10,
    intro:
      "Datasets scored from the generations' text against each task's reference, nothing run (pass@k does not apply): the family's metric as its peer harness reports it (CoNaLa, Concode: bigcode's corpus BLEU over each task's first sample).",
    tableId: 'text-scores-table',
    headers: () => ['metric', 'headline', 'figures'],
    rows: (figures, _ks, f) => [
      [
        { html: f.esc(figures.metric) },
        { num: true, html: f.dec(headlineOf(figures) ?? NaN, 4) },
        { html: f.esc(corpusScoreLine(figures)) },
      ],
    ],
  },
  statistic: 'corpus-bootstrap',
  corpusMetric: (figures) => figures.metric,
});
