/**
 * `self-repair`: generate (rag's first answer, shared through the cache), run on the visible
 * examples, repair from the errors; the budget is the number of subtasks ExploraCoder plans.
 */
import { planFamily, ragAnswerFamily } from '../../domain/methods/sharedFamilies.js';
import { ASSUMED_SUBTASKS, batchedRequests, singleAnswers, type MethodDefinition } from '../../domain/methods/types.js';

/** self-repair has no switches. */
export type SelfRepairVariant = Record<string, never>;

export const selfRepairMethod = {
  kind: 'self-repair',
  needsLibrary: true,
  needsChat: true,
  promptTemplateScope:
    "the first answer (rag's request: system message and instruction); the repair turns continue that conversation in the method's words; the planner (the budget) keeps its own prompt",
  optionsRead: ['rag_k', 'max_subtasks', 'planner_examples', 'observation_chars', 'repair_check', 'retriever', 'embeddings', 'doc_masking'],
  names: {
    'self-repair': {
      description: 'generate, run on the visible examples, repair from the errors; budget = subtasks ExploraCoder plans',
      variant: {},
    },
  },
  // Every sample is assumed to use half its budget.
  estimateCost: (_variant, ctx) => {
    const { tasks, n } = ctx;
    const batched = batchedRequests(ctx);
    const repairs = tasks * n * (ASSUMED_SUBTASKS / 2);
    const shared = [
      singleAnswers('plan', tasks),
      { part: 'rag', atCellTemperature: true, templated: true, requests: batched, answers: tasks * n },
    ];
    return {
      llmRequests: tasks + batched + repairs,
      llmAnswers: tasks + tasks * n + repairs,
      sandboxRuns: tasks * n * (ASSUMED_SUBTASKS / 2 + 2),
      estimate: true,
      shared,
    };
  },
  sharedRequestFamilies: (_variant, cell) => [planFamily(cell), ragAnswerFamily(cell)],
  outlineTrace: (trace, sample) =>
    (trace.repairs ?? [])
      .filter((r) => sample === undefined || r.sample_index === sample)
      .map(
        (r) =>
          `sample ${r.sample_index}: ${r.rounds.map((x, i) => `${i === 0 ? 'first' : `repair ${i}`} ${x.ok ? 'ok' : x.status}`).join(' -> ')}`,
      ),
} as const satisfies MethodDefinition<'self-repair', SelfRepairVariant>;
