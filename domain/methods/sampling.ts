/**
 * How a task's samples become requests: the sampling fields every request carries, and samples laid
 * out over requests of several choices (the API's `n`) so that a sample's request, and so its cache
 * identity, never depends on which samples an attempt asks for.
 */
import type { FimTokens } from '../llm/fim.js';
import type { LlmBody } from '../llm/request.js';
import type { PromptTemplate } from './promptTemplate.js';

export interface Sampling {
  model: string;
  temperature: number;
  top_p: number;
  max_tokens: number;
  stop?: string[];
  /** Base seed; sample i sends base + i, so samples differ reproducibly. Omitted when undefined. */
  seed?: number;
  /**
   * The cell's prompt template (`models[i].prompt` or its point on the `prompts:` axis): direct's
   * and rag's requests, and the final-solution requests of the multi-step methods (each method's
   * promptTemplateScope). Absent: the named default prompts. Never sent as a field (samplingFields
   * and chatBody leave it out).
   */
  prompt?: PromptTemplate;
  /**
   * The model's FIM tokens (`models[i].fim`), given to the cells of fill-in-the-middle datasets
   * only: their completion prompts are FIM prompts (domain/llm/fim.ts). Never sent as a field.
   */
  fim?: FimTokens;
}

/**
 * Samples 0..nSamples-1 of a task as requests of up to `perRequest` choices each: consecutive runs
 * starting at multiples of `perRequest`, so a sample always lands in the same request (and so the
 * same cache identity) for a given sweep.
 */
export function requestRuns(nSamples: number, perRequest: number): number[][] {
  const runs: number[][] = [];
  for (let first = 0; first < nSamples; first += perRequest) {
    runs.push(Array.from({ length: Math.min(perRequest, nSamples - first) }, (_, j) => first + j));
  }
  return runs;
}

/** A task's samples asked for in an order requests of several choices cannot be laid over. */
export class SampleLayoutError extends Error {
  override name = 'SampleLayoutError';
}

export interface SampleCall {
  body: LlmBody;
  sampleIndex: number;
  /** Which of the request's choices answers this sample (absent: the request has one). */
  choice?: number;
}

/**
 * The calls answering a task's samples, `perRequest` samples to a request (laid out by
 * requestRuns; `bodyOf(first sample, choices)` makes each request). With several to a request the
 * samples must be the task's 0..n-1 in order: a sample's request, and so its cache identity, must
 * not depend on which samples an attempt asks for.
 */
export function sampleCalls(
  sampleIndices: readonly number[],
  perRequest: number,
  bodyOf: (firstSample: number, choices: number) => LlmBody,
): SampleCall[] {
  if (perRequest === 1) return sampleIndices.map((sampleIndex) => ({ body: bodyOf(sampleIndex, 1), sampleIndex }));
  if (sampleIndices.some((s, i) => s !== i)) {
    throw new SampleLayoutError(`samples_per_request needs the task's samples 0..n-1 in order, got ${sampleIndices.join(',')}`);
  }
  return requestRuns(sampleIndices.length, perRequest).flatMap((run) => {
    const body = bodyOf(run[0]!, run.length);
    return run.map((sampleIndex, choice) => ({ body, sampleIndex, choice }));
  });
}

/** The sampling fields every single-call request body carries; sample i sends seed + i. */
export function samplingFields(sampling: Sampling, sampleIndex: number) {
  return {
    model: sampling.model,
    temperature: sampling.temperature,
    top_p: sampling.top_p,
    max_tokens: sampling.max_tokens,
    ...(sampling.stop && sampling.stop.length ? { stop: sampling.stop } : {}),
    ...(sampling.seed !== undefined ? { seed: sampling.seed + sampleIndex } : {}),
  };
}

/**
 * The request asking again for the choices `slots` of `body` (0-based positions among its `n`) that
 * an answer left out: endpoints that ignore `n` answer one choice, some cap it. It asks for
 * `slots.length` choices with the seed of the first missing one (`body.seed + slots[0]`), so that
 * it is the request a one-choice layout would send for that sample, and answers do not repeat on an
 * endpoint that honours `seed` but not `n`. Every slot: the body itself.
 */
export function remainingChoicesBody<B extends LlmBody>(body: B, slots: readonly number[]): B {
  const n = body.n ?? 1;
  if (slots.length === 0 || slots.some((s, i) => !Number.isInteger(s) || s < 0 || s >= n || (i > 0 && s <= slots[i - 1]!))) {
    throw new Error(`remaining choices ${slots.join(',')} of a request for ${n}: want increasing positions in 0..${n - 1}`);
  }
  if (slots.length === n) return body;
  const { n: _n, seed, ...rest } = body;
  return { ...rest, ...(seed !== undefined ? { seed: seed + slots[0]! } : {}), ...(slots.length > 1 ? { n: slots.length } : {}) } as B;
}
