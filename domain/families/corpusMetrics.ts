/**
 * Every family's corpus metric by its id, for readers of stored results that know a cell's metric
 * only by the id its results.json records (a comparison recomputes the metric from resampled tasks).
 */
import { CLASSIFICATION_METRICS } from './classification/index.js';
import { CODEXGLUE_BLEU_METRIC } from './code-to-text/index.js';
import { FIM_EXACT_MATCH } from './santacoder-fim/index.js';
import { BIGCODE_BLEU } from './textScored.js';
import type { CorpusMetric } from './types.js';

const BY_ID = new Map<string, CorpusMetric>(
  [BIGCODE_BLEU, CODEXGLUE_BLEU_METRIC, FIM_EXACT_MATCH, ...Object.values(CLASSIFICATION_METRICS)].map((m) => [m.id, m]),
);

/** The corpus metric with this id, or undefined when no family has one. */
export const corpusMetricById = (id: string): CorpusMetric | undefined => BY_ID.get(id);
