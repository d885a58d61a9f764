/**
 * Parameters of the API-aware methods (rag, self-repair, ExploraCoder and its ablations), the
 * `method_options:` section of a sweep config. Defaults are the paper's: m = 5 candidates per
 * subtask at temperature 0.8 / top_p 0.95, top-20 retrieval per subtask, k_G = 15 global APIs,
 * 4 planner examples.
 */
import { z } from 'zod';

export const EmbeddingsConfigSchema = z.strictObject({
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
  model: z.string().min(1, 'must not be empty'),
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be the NAME of an environment variable, never the key itself')
    .optional(),
  request_timeout_s: z.number().positive().max(3600).default(60),
});

export const MethodOptionsSchema = z
  .strictObject({
    /** m: experimental snippets generated per subtask. */
    candidates: z.int().min(1).max(20).default(5),
    /**
     * A safety cap on the subtasks kept from a plan; the paper has none (Torchdata-Manual plans up to
     * 13). A longer plan is cut, and the trace says so.
     */
    max_subtasks: z.int().min(1).max(200).default(40),
    /** k: APIs retrieved per subtask before the model's rerank. */
    retrieve_k: z.int().min(1).max(200).default(20),
    /** APIs the rerank may keep per subtask. */
    rerank_keep: z.int().min(1).max(50).default(5),
    /** k_G: APIs kept by the global rerank for the final step. */
    global_k: z.int().min(1).max(100).default(15),
    /**
     * What the global rerank is offered: `all-candidates` (the paper's) every per-subtask retrieval
     * candidate, always reranked down to global_k; `kept-union` (not the paper's) the union of what
     * the per-subtask reranks kept, with no call when it is at most global_k.
     */
    global_rerank: z.enum(['all-candidates', 'kept-union']).default('all-candidates'),
    /** k_D: planner demos, the library's usage examples most similar to the task (never a benchmark task). */
    planner_examples: z.int().min(0).max(16).default(4),
    /** Self-debug rounds when all candidates of a subtask fail (exploracoder-debug and ablations); the authors run one. */
    debug_rounds: z.int().min(1).max(10).default(1),
    /** Temperature of the debug requests; the authors' code debugs greedily. */
    debug_temperature: z.number().min(0).max(2).default(0),
    /**
     * `sequential` (the authors'): the failed candidates are debugged one after another, each fix
     * run before the next is asked, stopping at the first fix that runs. `all-at-once` (not the
     * paper's): every failed candidate is debugged at once, each round.
     */
    debug_mode: z.enum(['sequential', 'all-at-once']).default('sequential'),
    /**
     * What a repairing method (self-repair, capir-self-repair) checks on the task's example inputs:
     * `runtime-errors` (the paper's) only that the calls run; `outputs` (not the paper's) also that
     * they return the expected values, which only PBE examples and doctests show.
     */
    repair_check: z.enum(['runtime-errors', 'outputs']).default('runtime-errors'),
    explore_temperature: z.number().min(0).max(2).default(0.8),
    explore_top_p: z.number().gt(0).max(1).default(0.95),
    /** Characters of a snippet's output and error a model is shown (the rest is cut, and says so). */
    observation_chars: z.int().min(100).max(100_000).default(1200),
    /** Documents `rag` puts in its one prompt. */
    rag_k: z.int().min(1).max(200).default(10),
    retriever: z.enum(['bm25', 'dense']).default('bm25'),
    /**
     * Doc masking (domain/apidocs/masking.ts): usage examples and parameter details removed from
     * every doc every method sees. `auto` (the paper's): on for unseen libraries (PBE World's private
     * module, MonkeyEval, BeatNumEval), off for Python's str and user libraries; `off` is not the
     * paper's on unseen libraries.
     */
    doc_masking: z.enum(['auto', 'on', 'off']).default('auto'),
    /** An OpenAI-compatible embeddings endpoint, for `retriever: dense`. */
    embeddings: EmbeddingsConfigSchema.optional(),
  })
  .superRefine((o, ctx) => {
    if (o.retriever === 'dense' && !o.embeddings) {
      ctx.addIssue({ code: 'custom', path: ['embeddings'], message: 'retriever: dense needs an embeddings endpoint (base_url, model)' });
    }
    if (o.rerank_keep > o.retrieve_k) {
      ctx.addIssue({ code: 'custom', path: ['rerank_keep'], message: `must be <= retrieve_k (${o.retrieve_k})` });
    }
  });

export type MethodOptions = z.output<typeof MethodOptionsSchema>;
export type EmbeddingsConfig = z.output<typeof EmbeddingsConfigSchema>;
