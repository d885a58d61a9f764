/**
 * The exploration trace of one ExploraCoder sample: an optional `trace` field of a sample record
 * (records.ts), written by a method that explores before it answers and shown subtask by subtask in
 * the sweep report. Methods without exploration (e.g. `direct`) leave it out.
 *
 * ExploraCoder plans a task as a chain of subtasks; for each subtask it asks the model for a few
 * candidate snippets (typically each trying the APIs the planner proposed), runs them in the
 * sandbox, keeps what it observed, selects the snippets that worked and carries them (the
 * "experience") into the later subtasks and into the final generation. The shape follows that:
 *
 *   trace.plan              the planner's decomposition, as the model wrote it
 *   trace.subtasks[i]       description, proposed APIs, every attempt (code, run status, output,
 *                           exception, which one was selected), outcome, the experience kept
 *   trace.final_prompt      what the final generation was asked with (experience included)
 *   trace.prompt_template   the cell's prompt template, when it had one (it shaped the final
 *                           solution's requests only; absent: the method's default prompts)
 *
 * Text fields are free-form and may be long; the report clips them for display.
 */
import { z } from 'zod';
import { ExceptionInfoSchema, ExecutionStatusSchema } from '../execution/types.js';
import { StoredPromptTemplateSchema } from '../methods/storedPromptTemplate.js';

export const ExplorationAttemptSchema = z.object({
  /** The candidate snippet as it was run (with the chained experience before it, if any). */
  code: z.string(),
  /** How its run ended; `not_executed` when the method decided not to run it, `llm_error` when no snippet came back. */
  status: z.union([ExecutionStatusSchema, z.enum(['not_executed', 'llm_error'])]),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  exception: ExceptionInfoSchema.optional(),
  duration_ms: z.number().nonnegative().optional(),
  /** This attempt's snippet was kept as the subtask's experience. */
  selected: z.boolean().optional(),
  /** 0: generated for the subtask; r: the r-th self-debug round. */
  round: z.number().int().nonnegative().optional(),
  candidate: z.number().int().nonnegative().optional(),
  /** The error as the model saw it. */
  error: z.string().optional(),
  llm_key: z.string().optional(),
  run_key: z.string().optional(),
});
export type ExplorationAttempt = z.infer<typeof ExplorationAttemptSchema>;

export const ExplorationSubtaskSchema = z.object({
  /** 0-based position in the plan. */
  index: z.number().int().nonnegative(),
  description: z.string(),
  /** APIs the planner (or a retriever) proposed for this subtask. */
  apis: z.array(z.string()).optional(),
  attempts: z.array(ExplorationAttemptSchema),
  /** solved: at least one attempt was selected; unsolved: none worked; skipped: not explored (e.g. budget). */
  outcome: z.enum(['solved', 'unsolved', 'skipped']),
  /** What was carried into later subtasks and the final generation. */
  experience: z.string().optional(),
  calls: z.number().int().nonnegative().optional(),
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  /** The retriever's candidates, before the model's rerank kept `apis`. */
  retrieved: z.array(z.string()).optional(),
  /** The rerank answer named no offered API: the retriever's top ones were kept. */
  rerank_fallback: z.boolean().optional(),
  debug_rounds: z.number().int().nonnegative().optional(),
  /** CoAE success: some candidate of the first generation (round 0) ran without an exception. */
  explored_ok: z.boolean().optional(),
  /** Some candidate ran, the debugged ones included (ExploraCoder*). */
  ok_after_debug: z.boolean().optional(),
  /** Debug requests sent for this subtask (the authors' protocol stops at the first fix that runs). */
  debug_requests: z.number().int().nonnegative().optional(),
});
export type ExplorationSubtask = z.infer<typeof ExplorationSubtaskSchema>;

/**
 * What one stage of a method cost on a task, counted as the paper's Table 6 counts: a request is
 * one API call whatever its `n` (a request of n = m choices is one), `answers` the choices it
 * brought back, tokens as the endpoint reported them (a request's prompt counted once).
 */
export const StageCostSchema = z.object({
  requests: z.number().int().nonnegative(),
  answers: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});
export type StageCost = z.infer<typeof StageCostSchema>;

export const STAGES = ['plan', 'rerank', 'global_rerank', 'explore', 'debug', 'feedback', 'repair', 'final'] as const;
export type Stage = (typeof STAGES)[number];

export const ExplorationTraceSchema = z.object({
  /** The method that wrote the trace, e.g. `exploracoder`. */
  method: z.string().optional(),
  plan: z.string().optional(),
  subtasks: z.array(ExplorationSubtaskSchema),
  final_prompt: z.string().optional(),
  task_id: z.string().optional(),
  task_index: z.number().int().nonnegative().optional(),
  plan_fallback: z.boolean().optional(),
  /** Every planner answer repeated this demo word for word: the plan is a copy of it. */
  plan_copied_demo: z.string().nullable().optional(),
  /** Subtasks dropped by the safety cap (max_subtasks). */
  plan_cut: z.number().int().nonnegative().optional(),
  /** The task as the planner's template stated it. */
  requirement: z.string().optional(),
  /** Ids of the planner demos (the library's usage examples) the planner was shown. */
  planner_examples: z.array(z.string()).optional(),
  /** Per stage: requests, answers and tokens (the paper's Table 6 units), the final answers included. */
  stages: z.partialRecord(z.enum(STAGES), StageCostSchema).optional(),
  /** APIs the global rerank kept for the final step. */
  global_apis: z.array(z.string()).optional(),
  /** Per sample: the final answer. */
  finals: z.array(z.object({ sample_index: z.number().int().nonnegative(), llm_key: z.string(), code: z.string() })).optional(),
  /** self-repair: per sample, each answer and how it did on the visible examples. */
  repairs: z
    .array(
      z.object({
        sample_index: z.number().int().nonnegative(),
        rounds: z.array(
          z.object({ code: z.string(), ok: z.boolean(), status: z.string(), error: z.string().optional(), llm_key: z.string() }),
        ),
      }),
    )
    .optional(),
  repair_budget: z.number().int().nonnegative().optional(),
  /**
   * The cell's prompt template (models[i].prompt or the prompts: axis), which shaped the requests
   * that write the solution (the method's promptTemplateScope). Absent: the default prompts.
   */
  prompt_template: StoredPromptTemplateSchema.optional(),
  /** Everything but the final answers. */
  cost: z.object({ calls: z.number(), prompt_tokens: z.number(), completion_tokens: z.number(), sandbox_runs: z.number() }).optional(),
});
export type ExplorationTrace = z.infer<typeof ExplorationTraceSchema>;
