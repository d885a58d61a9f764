/**
 * The worker-side kit every method's activities are built on: what a method's activity factory is
 * given (the bucket, the cached LLM client, the embedding client), the helpers its LLM steps share
 * (the task's problem and visible docs, one cached chat answer, stored artefacts), and the shape of
 * a method's activities as the worker registers them (methods/activities.ts lists them).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DatasetLibrary } from '../../domain/apidocs/library.js';
import { visibleLibrary } from '../../domain/apidocs/masking.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { ChatMessage, LlmBody, LlmCallSummary, LlmEndpoint } from '../../domain/llm/request.js';
import { costOfCalls, PlanArtifactSchema, RecommendArtifactSchema, type MethodCost } from '../../domain/methods/artifacts.js';
import { chatBody, type ChatSampling } from '../../domain/methods/chat.js';
import type { Sampling } from '../../domain/methods/sampling.js';
import type { MethodTaskRef } from '../../domain/methods/taskRef.js';
import { loadDatasetLibrary } from '../../infra/library.js';
import type { createEmbeddingClient } from '../../infra/llm/embeddings.js';
import type { LlmActivities } from '../../infra/llm/llm.js';
import { loadProblems } from '../../infra/problems.js';
import { getText, type Bucket } from '../../infra/s3.js';

/** What a method's activity factories are given by the worker. */
export interface MethodActivityDeps {
  bucket: Bucket;
  llm: LlmActivities;
  embeddings: ReturnType<typeof createEmbeddingClient>;
}

/** Activity implementations: one input each, a promise back (any input type is assignable to `never`'s). */
type ActivityFunctions = Record<string, (input: never) => Promise<unknown>>;

/**
 * A method's activities as the worker registers them: `llm` on each model's LLM queue, `storage`
 * (its trace writer) on the storage queue. Activity names are the keys, global across methods:
 * the worker refuses two methods registering one name.
 */
export interface MethodActivities<Kind extends string = string> {
  role: 'method-activities';
  kind: Kind;
  llm?: (deps: MethodActivityDeps) => ActivityFunctions;
  storage?: (bucket: Bucket) => ActivityFunctions;
}

export function defineMethodActivities<Kind extends string>(parts: Omit<MethodActivities<Kind>, 'role'>): MethodActivities<Kind> {
  return { role: 'method-activities', ...parts };
}

export function isMethodActivities(value: unknown): value is MethodActivities {
  return typeof value === 'object' && value !== null && (value as { role?: unknown }).role === 'method-activities';
}

/** What a step that asked for one answer returns: the answer's key, whether there is one, its cost. */
export interface LlmStepResult {
  llmKey: string;
  ok: boolean;
  cost: MethodCost;
}

/** One call's cost, its unanswered requests included (what costOfCalls counts for several). */
export function costOf(s: LlmCallSummary): MethodCost {
  return costOfCalls([s]);
}

/** Deterministic steps (plan, rerank) ask at temperature 0; retries of a malformed plan sample instead. */
export function greedy(sampling: Sampling): ChatSampling {
  return {
    model: sampling.model,
    temperature: 0,
    top_p: 1,
    max_tokens: sampling.max_tokens,
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
  };
}

export function exploring(ref: MethodTaskRef): ChatSampling {
  return {
    model: ref.sampling.model,
    temperature: ref.options.explore_temperature,
    top_p: ref.options.explore_top_p,
    max_tokens: ref.sampling.max_tokens,
    ...(ref.sampling.seed !== undefined ? { seed: ref.sampling.seed } : {}),
  };
}

export function finalSampling(sampling: Sampling): ChatSampling {
  return {
    model: sampling.model,
    temperature: sampling.temperature,
    top_p: sampling.top_p,
    max_tokens: sampling.max_tokens,
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
  };
}

export function chatOnly(endpoint: LlmEndpoint): void {
  if (endpoint.api !== 'chat')
    throw ApplicationFailure.nonRetryable(
      `model ${endpoint.id} uses the completions API; this method needs a chat model`,
      'LlmConfigError',
    );
}

/** The helpers a method's LLM activities share, over the worker's bucket and clients. */
export function methodContext({ bucket, llm }: MethodActivityDeps) {
  // Plain functions, not an object's methods: the methods' activities take them apart.
  async function readJson<T>(key: string, schema: { parse: (v: unknown) => T }): Promise<T | null> {
    const text = await getText(bucket, key);
    return text === null ? null : schema.parse(JSON.parse(text));
  }

  /** One cached answer: its summary, and its text when the call succeeded. */
  async function ask(endpoint: LlmEndpoint, body: LlmBody, sampleIndex: number): Promise<{ summary: LlmCallSummary; text: string | null }> {
    const [summary] = await llm.callLlm({ endpoint, calls: [{ body, sampleIndex }] });
    if (summary!.status !== 'ok') return { summary: summary!, text: null };
    const record = await llm.readLlmRecord(summary!.key);
    return { summary: summary!, text: record?.text ?? null };
  }

  /**
   * A step that asks for one chat answer and returns it as the step's result. `index` is the
   * sample (or candidate) the answer is for: it keys the cache and seeds the request.
   */
  async function answerStep(endpoint: LlmEndpoint, sampling: ChatSampling, messages: ChatMessage[], index: number): Promise<LlmStepResult> {
    const { summary, text } = await ask(endpoint, chatBody(sampling, messages, index), index);
    return { llmKey: summary.key, ok: text !== null, cost: costOf(summary) };
  }

  /** The task's problem and the docs every method sees (masked for unseen libraries, unless told otherwise). */
  async function context(ref: MethodTaskRef): Promise<{ problem: SweepProblem; library: DatasetLibrary }> {
    const [problems, stored] = await Promise.all([loadProblems(bucket, ref.datasetKey), loadDatasetLibrary(bucket, ref.libraryKey)]);
    const problem = problems[ref.taskIndex];
    if (!problem) throw ApplicationFailure.nonRetryable(`task index ${ref.taskIndex} is out of range`, 'InvalidTask');
    return { problem, library: visibleLibrary(stored, ref.options.doc_masking) };
  }

  async function mustRead<T>(key: string, schema: { parse: (v: unknown) => T }, what: string): Promise<T> {
    const value = await readJson(key, schema);
    if (value === null) throw new Error(`${what} ${key} is missing`);
    return value;
  }

  /** The plan and the per-subtask recommendation (ExploraCoder's steps, CAPIR's) a planned method's later steps read. */
  async function planAndRecommendation(planKey: string, recommendKey: string) {
    const plan = await mustRead(planKey, PlanArtifactSchema, 'plan');
    const rec = await mustRead(recommendKey, RecommendArtifactSchema, 'recommendation');
    return { plan, rec };
  }

  /** The chat messages a stored answer was asked with. */
  async function messagesOf(key: string): Promise<ChatMessage[]> {
    const record = await llm.readLlmRecord(key);
    if (!record) throw new Error(`LLM record ${key} is missing`);
    const request = record.request as { body?: { messages?: ChatMessage[] } };
    if (!request.body?.messages)
      throw ApplicationFailure.nonRetryable('this method needs a chat model (the stored answer has no messages)', 'LlmConfigError');
    return request.body.messages;
  }

  return { ask, answerStep, context, readJson, mustRead, planAndRecommendation, messagesOf };
}

export type MethodContext = ReturnType<typeof methodContext>;
