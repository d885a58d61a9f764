/**
 * Reads earlier answers of the sweep's models from the LLM cache (cache.ts's layout), for the dry
 * run's expected completion tokens. First the groups of the sweep's own first requests (those it
 * can name: its direct prompts, each task's samples one group), the best predictor there is; for a
 * model with none of those, a sample of the cache: it is keyed by request hash, not by model, so the
 * most recently written segments of a bounded listing are read, within a budget of objects and time,
 * never a scan of a large cache.
 */
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { tallyAnswers, type AnswerTally, type CachedModelKey } from '../../domain/llm/answerLengths.js';
import { LlmRecordSchema } from '../../domain/llm/request.js';
import { getText, listObjects, type Bucket } from '../s3.js';
import { readGroup } from './cache.js';

export interface CachedAnswersLimits {
  /** Keys listed at most (a LIST returns 1,000 per request). */
  maxKeys: number;
  /** Segments read at most. */
  maxSegments: number;
  /** Answers per model after which reading stops. */
  enoughAnswers: number;
  /** Stop reading after this long. */
  deadlineMs: number;
}

export const DEFAULT_CACHED_ANSWERS_LIMITS: CachedAnswersLimits = {
  maxKeys: 20_000,
  maxSegments: 200,
  enoughAnswers: 2_000,
  deadlineMs: 8_000,
};

/** Groups of a model's own planned requests read at most (one LIST, and a GET per segment, each). */
export const MAX_OWN_GROUPS = 64;

export interface CachedAnswersFound {
  byModel: Map<string, AnswerTally>;
  /** Models whose figure is from answers to the sweep's own requests (else from the sample). */
  ownRequests: Set<string>;
}

/**
 * Earlier answers per model: those in `ownGroups` (by model id: cache groups of the sweep's own
 * requests, cache.ts's callGroup), then a sample of the cache for models without any there.
 */
export async function readCachedAnswers(
  bucket: Bucket,
  models: readonly CachedModelKey[],
  ownGroups: ReadonlyMap<string, readonly string[]>,
  limits: CachedAnswersLimits = DEFAULT_CACHED_ANSWERS_LIMITS,
): Promise<CachedAnswersFound> {
  const byModel = new Map<string, AnswerTally>();
  const ownRequests = new Set<string>();
  for (const m of models) {
    const groups = [...new Set(ownGroups.get(m.id) ?? [])].slice(0, MAX_OWN_GROUPS);
    const found = await Promise.all(groups.map((g) => readGroup(bucket, g)));
    const tally = new Map<string, AnswerTally>();
    tallyAnswers(
      found.flatMap((f) => [...f.records.values()]),
      [m],
      tally,
    );
    const t = tally.get(m.id);
    if (t && t.answers > 0) {
      byModel.set(m.id, t);
      ownRequests.add(m.id);
    }
  }
  const rest = models.filter((m) => !byModel.has(m.id));
  if (rest.length > 0) for (const [id, t] of await sampleCache(bucket, rest, limits)) byModel.set(id, t);
  return { byModel, ownRequests };
}

/** Answers of these models in the most recent segments of a bounded listing of the cache. */
async function sampleCache(
  bucket: Bucket,
  models: readonly CachedModelKey[],
  limits: CachedAnswersLimits,
): Promise<Map<string, AnswerTally>> {
  const started = Date.now();
  const segments: Array<{ key: string; modifiedMs: number }> = [];
  let listed = 0;
  for await (const o of listObjects(bucket, 'llm-cache/')) {
    if (o.key.endsWith('.jsonl')) segments.push(o);
    if (++listed >= limits.maxKeys || Date.now() - started > limits.deadlineMs / 2) break;
  }
  segments.sort((a, b) => b.modifiedMs - a.modifiedMs);
  const byModel = new Map<string, AnswerTally>();
  const enough = () => models.every((m) => (byModel.get(m.id)?.answers ?? 0) >= limits.enoughAnswers);
  let read = 0;
  const BATCH = 16;
  for (let i = 0; i < segments.length && read < limits.maxSegments; i += BATCH) {
    if (enough() || Date.now() - started > limits.deadlineMs) break;
    const batch = segments.slice(i, Math.min(i + BATCH, i + limits.maxSegments - read));
    const texts = await Promise.all(batch.map((s) => getText(bucket, s.key)));
    texts.forEach((text, j) => {
      if (text === null) return; // removed since the listing
      try {
        tallyAnswers(
          parseJsonl(text, LlmRecordSchema, batch[j]!.key).map((r) => r.row),
          models,
          byModel,
        );
      } catch {
        // A segment being rewritten, or of another version's layout: it only thins the sample.
      }
    });
    read += batch.length;
  }
  return byModel;
}
