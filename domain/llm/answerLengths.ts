/**
 * How long a model's answers were, from the LLM cache's records (domain/llm/request.ts): the dry
 * run's expected completion tokens. A request's usage is stored on its first record (the others of a
 * request of n choices carry 0), so answers are counted per request: its tokens over its choices.
 */
import type { LlmRecord } from './request.js';

/** A model as the cache's records name it: the endpoint's base URL and the model name in the body. */
export interface CachedModelKey {
  id: string;
  baseUrl: string;
  model: string;
}

export interface AnswerTally {
  answers: number;
  completionTokens: number;
}

interface StoredRequest {
  base_url?: unknown;
  body?: { model?: unknown; n?: unknown };
}

/**
 * Adds the records' answered requests to the tallies of the models they are of (by id): only requests
 * the endpoint answered with usage (a server that reports none says nothing about lengths).
 */
export function tallyAnswers(
  records: Iterable<Pick<LlmRecord, 'status' | 'calls' | 'promptTokens' | 'completionTokens' | 'request'>>,
  models: readonly CachedModelKey[],
  into: Map<string, AnswerTally>,
): void {
  for (const r of records) {
    if (r.status !== 'ok' || r.calls < 1 || r.promptTokens <= 0) continue;
    const request = (r.request ?? {}) as StoredRequest;
    const model = models.find((m) => m.baseUrl === request.base_url && m.model === request.body?.model);
    if (!model) continue;
    const n = typeof request.body?.n === 'number' && request.body.n > 1 ? request.body.n : 1;
    const tally = into.get(model.id) ?? { answers: 0, completionTokens: 0 };
    tally.answers += n;
    tally.completionTokens += r.completionTokens;
    into.set(model.id, tally);
  }
}
