/**
 * Decomposed-retrieval baselines of the paper, on ExploraCoder's plan (the same cached planner
 * call, so every method compared sees the same plan):
 * - `capir`: per-subtask retrieval and model rerank, then one generation per sample with the docs
 *   the reranks kept (no global rerank, no exploration);
 * - `capir-self-repair`: CAPIR's answer run on the task's example inputs, checking only for runtime
 *   errors (as the paper does); on an error, two-stage Self-Repair: the model's feedback in words
 *   first, then the code from it; at most as many repairs as the plan has subtasks;
 * - `epigen`: plan first, generate once: CAPIR's docs plus the plan in the one generation prompt.
 *   The brief describes EpiGen only as that; what it retrieves is assumed to be CAPIR's.
 */
import { planFamily } from '../../domain/methods/sharedFamilies.js';
import { ASSUMED_SUBTASKS, batchedRequests, singleAnswers, type MethodDefinition } from '../../domain/methods/types.js';

export interface CapirVariant {
  /** The generation prompt also holds the plan (EpiGen). */
  planInPrompt: boolean;
  /** Two-stage self-repair on runtime errors (CAPIR + Self-Repair). */
  repair: boolean;
}

/** Repairs a sample is assumed to need, for estimates: the paper's 0.75 per round, over the budget. */
const ASSUMED_REPAIRS = 2;

export const capirMethod = {
  kind: 'capir',
  needsLibrary: true,
  needsChat: true,
  promptTemplateScope:
    "the generation (rag's layout: system message and instruction); CAPIR + Self-Repair's feedback and repair turns continue that conversation in the method's words; the planner and the reranks keep their own prompts",
  optionsRead: [
    'max_subtasks',
    'planner_examples',
    'retrieve_k',
    'rerank_keep',
    'observation_chars',
    'repair_check',
    'retriever',
    'embeddings',
    'doc_masking',
  ],
  names: {
    capir: {
      description: 'CAPIR: plan, per-subtask retrieval and rerank, one generation per sample with the kept docs',
      variant: { planInPrompt: false, repair: false },
    },
    'capir-self-repair': {
      description:
        'CAPIR + Self-Repair: CAPIR, then on a runtime error on the example inputs the model writes feedback, then code (budget = subtasks)',
      variant: { planInPrompt: false, repair: true },
    },
    epigen: {
      description: 'EpiGen: plan first, generate once (CAPIR docs and the plan in one prompt)',
      variant: { planInPrompt: true, repair: false },
    },
  },
  // Plan, a rerank per subtask (ASSUMED_SUBTASKS), n answers; with repair ASSUMED_REPAIRS two-stage
  // repairs per sample (feedback + code) and a run of each answer on the example inputs.
  estimateCost: (v, ctx) => {
    const { tasks, n } = ctx;
    const steps = tasks * (1 + ASSUMED_SUBTASKS);
    const repairs = v.repair ? tasks * n * ASSUMED_REPAIRS * 2 : 0;
    const runs = v.repair ? tasks * n * (ASSUMED_REPAIRS + 1) : 0;
    return {
      llmRequests: steps + batchedRequests(ctx) + repairs,
      llmAnswers: steps + tasks * n + repairs,
      sandboxRuns: tasks * n + runs,
      estimate: true,
      // CAPIR + Self-Repair's first answers are CAPIR's requests (EpiGen's prompt differs).
      shared: [
        singleAnswers('plan', tasks),
        singleAnswers('rerank', tasks * ASSUMED_SUBTASKS),
        ...(v.planInPrompt
          ? []
          : [{ part: 'capir', atCellTemperature: true, templated: true, requests: batchedRequests(ctx), answers: tasks * n }]),
      ],
    };
  },
  sharedRequestFamilies: (_v, cell) => [planFamily(cell)],
  outlineTrace: (trace, sample) => [
    ...trace.subtasks.map((s) => `subtask ${s.index + 1}: ${s.description}  APIs: ${(s.apis ?? []).join(', ') || '-'}`),
    ...(trace.repairs ?? [])
      .filter((r) => sample === undefined || r.sample_index === sample)
      .map(
        (r) =>
          `sample ${r.sample_index}: ${r.rounds.map((x, i) => `${i === 0 ? 'first' : `repair ${i}`} ${x.ok ? 'ok' : x.status}`).join(' -> ')}`,
      ),
  ],
} as const satisfies MethodDefinition<'capir', CapirVariant>;
