/**
 * What the steps of the multi-step methods store in S3 and pass to each other. Workflows carry only
 * keys and a few numbers; the texts (plans, snippets, outputs) stay in these objects.
 */
import { z } from 'zod';
import type { LlmCallSummary } from '../llm/request.js';

/** Cost of a method's work beyond the final generation of each sample. */
export const MethodCostSchema = z.object({
  calls: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  sandbox_runs: z.number().int().nonnegative(),
  /** Requests sent that brought no answer (LlmRecord.requestsUnanswered); absent: none. */
  requests_unanswered: z.number().int().nonnegative().optional(),
  /** Of the tokens above, those answered through the provider's Batch API (priced at the batch price); absent: none. */
  batch_prompt_tokens: z.number().int().nonnegative().optional(),
  batch_completion_tokens: z.number().int().nonnegative().optional(),
});
export type MethodCost = z.infer<typeof MethodCostSchema>;

export const ZERO_COST: MethodCost = { calls: 0, prompt_tokens: 0, completion_tokens: 0, sandbox_runs: 0 };

export function addCost(a: MethodCost, b: Partial<MethodCost>): MethodCost {
  const unanswered = (a.requests_unanswered ?? 0) + (b.requests_unanswered ?? 0);
  return {
    calls: a.calls + (b.calls ?? 0),
    prompt_tokens: a.prompt_tokens + (b.prompt_tokens ?? 0),
    completion_tokens: a.completion_tokens + (b.completion_tokens ?? 0),
    sandbox_runs: a.sandbox_runs + (b.sandbox_runs ?? 0),
    ...(unanswered > 0 ? { requests_unanswered: unanswered } : {}),
    ...batchTokensOf(
      (a.batch_prompt_tokens ?? 0) + (b.batch_prompt_tokens ?? 0),
      (a.batch_completion_tokens ?? 0) + (b.batch_completion_tokens ?? 0),
    ),
  };
}

/** The batch-answered token fields, present only when some tokens were answered in batches. */
function batchTokensOf(prompt: number, completion: number): Pick<MethodCost, 'batch_prompt_tokens' | 'batch_completion_tokens'> {
  return prompt > 0 || completion > 0 ? { batch_prompt_tokens: prompt, batch_completion_tokens: completion } : {};
}

/** What a batch of LLM calls cost (calls and tokens; no sandbox runs). */
/** a - b: what is left of a cost once part of it was counted (never below zero). */
export function subtractCost(a: MethodCost, b: MethodCost): MethodCost {
  const unanswered = Math.max(0, (a.requests_unanswered ?? 0) - (b.requests_unanswered ?? 0));
  return {
    calls: Math.max(0, a.calls - b.calls),
    prompt_tokens: Math.max(0, a.prompt_tokens - b.prompt_tokens),
    completion_tokens: Math.max(0, a.completion_tokens - b.completion_tokens),
    sandbox_runs: Math.max(0, a.sandbox_runs - b.sandbox_runs),
    ...(unanswered ? { requests_unanswered: unanswered } : {}),
    ...batchTokensOf(
      Math.max(0, (a.batch_prompt_tokens ?? 0) - (b.batch_prompt_tokens ?? 0)),
      Math.max(0, (a.batch_completion_tokens ?? 0) - (b.batch_completion_tokens ?? 0)),
    ),
  };
}

export function costOfCalls(
  summaries: ReadonlyArray<Pick<LlmCallSummary, 'calls' | 'promptTokens' | 'completionTokens' | 'requestsUnanswered' | 'batch'>>,
): MethodCost {
  return summaries.reduce(
    (c, s) =>
      addCost(c, {
        calls: s.calls,
        prompt_tokens: s.promptTokens,
        completion_tokens: s.completionTokens,
        requests_unanswered: s.requestsUnanswered ?? 0,
        ...(s.batch ? { batch_prompt_tokens: s.promptTokens, batch_completion_tokens: s.completionTokens } : {}),
      }),
    ZERO_COST,
  );
}

/** One round of a self-repair sample, as its trace stores it: the answer, its run, and what it cost. */
export interface RepairRound {
  llmKey: string;
  runKey?: string;
  ok: boolean;
  /** The cost of the call that produced this round's answer. */
  cost: MethodCost;
}

export const PlanArtifactSchema = z.object({
  subtasks: z.array(z.string()).min(1),
  /** The planner's answers, in order; the last one was used (or none parsed: fallback). */
  raw: z.array(z.string()),
  llm_keys: z.array(z.string()),
  /** Subtasks beyond max_subtasks (the safety cap) that were dropped. */
  cut: z.number().int().nonnegative(),
  /** No answer held a numbered list: the whole task became one subtask. */
  fallback: z.boolean(),
  /** Every answer repeated this demo word for word (asked again each time): the plan kept is a copy. */
  copied_demo: z.string().nullable().default(null),
  /** The task as the planner was told it (the template's `[Task]`). */
  requirement: z.string().optional(),
  /** Ids of the demos the planner was shown, in order. */
  planner_examples: z.array(z.string()),
  cost: MethodCostSchema,
});
export type PlanArtifact = z.infer<typeof PlanArtifactSchema>;

export const RecommendArtifactSchema = z.object({
  subtasks: z.array(
    z.object({
      retrieved: z.array(z.string()),
      kept: z.array(z.string()),
      /** The rerank answer named no offered API: the retriever's top few were kept instead. */
      fallback: z.boolean(),
      llm_key: z.string().optional(),
    }),
  ),
  global: z.array(z.string()),
  global_llm_key: z.string().optional(),
  cost: MethodCostSchema,
});
export type RecommendArtifact = z.infer<typeof RecommendArtifactSchema>;

/** One snippet's run: code as run and what it showed (already in the names the model knows). */
export const SnippetRunSchema = z.object({
  code: z.string(),
  status: z.string(),
  ok: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  error: z.string().optional(),
  duration_ms: z.number().nonnegative(),
});
export type SnippetRun = z.infer<typeof SnippetRunSchema>;

/** Small enough for history: where a candidate's answer and run are. */
export interface CandidateRef {
  llmKey: string;
  /** Absent when the model returned no snippet (an LLM error). */
  runKey?: string;
  ok: boolean;
  hasOutput: boolean;
  /** 0 for the first generation, r for the r-th debug round. */
  round: number;
  candidate: number;
}

export interface SubtaskOutcome {
  index: number;
  candidates: CandidateRef[];
  /** Position in `candidates` of the kept one, -1 if none. */
  selected: number;
  debugRounds: number;
}

export interface ExperienceRef {
  subtask: number;
  llmKey: string;
  runKey: string;
}

/** What a method's per-task workflow hands back to the shard. */
export interface MethodTaskOutcome {
  /** Per sample (by sample index): the LLM record holding the final answer. */
  finalKeys: string[];
  /** Everything but the final answers: planning, retrieval, exploration, repairs. */
  cost: MethodCost;
  /**
   * What the final answers cost (their samples' records count it); for live progress and budgets,
   * which see a task only as it ends. Absent from outcomes of chains that ended before it existed.
   */
  finalCost?: MethodCost;
  traceKey: string;
  wallMs: number;
}
