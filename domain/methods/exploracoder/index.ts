/**
 * ExploraCoder: plan -> recommend APIs -> Chain of API Exploration (m snippets per subtask, run,
 * select) -> final solution; ExploraCoder* debugs a subtask's snippets when all fail. The paper's
 * ablations are settings of the variant's switches, each a named method.
 */
import { planFamily } from '../sharedFamilies.js';
import { ASSUMED_SUBTASKS, batchedRequests, singleAnswers, type MethodDefinition } from '../types.js';
import type { SelectionMode } from './selection.js';

/** ExploraCoder's switches; the ablations of the paper are settings of these. */
export interface ExploraVariant {
  /** ExploraCoder*: debug a subtask's candidates when all of them fail. */
  debug: boolean;
  /** Planner sees the library summary and few-shot planner examples. */
  summaryAndExamples: boolean;
  /** Chain of API Exploration; without it the final step gets the plan and all recommended docs at once. */
  explore: boolean;
  selection: SelectionMode;
}

const EXPLORA: ExploraVariant = { debug: false, summaryAndExamples: true, explore: true, selection: 'prefer-passing' };
const EXPLORA_DEBUG: ExploraVariant = { ...EXPLORA, debug: true };

export const exploracoderMethod = {
  kind: 'exploracoder',
  needsLibrary: true,
  needsChat: true,
  takesPromptTemplate: false,
  names: {
    exploracoder: {
      description: 'plan -> recommend APIs -> Chain of API Exploration (m snippets per subtask, run, select) -> final solution',
      variant: EXPLORA,
    },
    'exploracoder-debug': {
      description: 'ExploraCoder*: exploracoder, and when all m snippets of a subtask fail the model debugs them',
      variant: EXPLORA_DEBUG,
    },
    'exploracoder-debug-no-summary': {
      description: 'ablation: ExploraCoder* without the library summary and planner examples',
      variant: { ...EXPLORA_DEBUG, summaryAndExamples: false },
    },
    'exploracoder-debug-no-exploration': {
      description: 'ablation: ExploraCoder* without exploration (plan and all recommended docs, one shot)',
      variant: { ...EXPLORA_DEBUG, explore: false },
    },
    'exploracoder-debug-random-selection': {
      description: 'ablation: ExploraCoder* keeping a random candidate per subtask instead of a passing one',
      variant: { ...EXPLORA_DEBUG, selection: 'random' },
    },
  },
  // Estimated with ASSUMED_SUBTASKS subtasks, no debugging and a rerank for each subtask.
  estimateCost: (v, ctx) => {
    const { tasks, n, options } = ctx;
    const s = ASSUMED_SUBTASKS;
    const explore = v.explore ? s * options.candidates : 0;
    const steps = tasks * (1 + s + 1 + explore);
    // The planner's prompt depends on the summary switch; later subtasks' explorations on the
    // candidates kept before, hence on the selection rule too.
    const summary = v.summaryAndExamples ? '' : '-no-summary';
    const shared = [
      singleAnswers(`plan${summary}`, tasks),
      singleAnswers(`rerank${summary}`, tasks * (s + 1)),
      ...(explore ? [singleAnswers(`explore${summary}-${v.selection}`, tasks * explore)] : []),
    ];
    return { llmRequests: steps + batchedRequests(ctx), llmAnswers: steps + tasks * n, sandboxRuns: tasks * (explore + n), estimate: true, shared };
  },
  // Every variant plans (and reranks) at temperature 0, and explores at the options' temperature,
  // not the cell's: all of them on one dataset and model share their plans.
  sharedRequestFamilies: (_v, cell) => [planFamily(cell)],
  outlineTrace: (trace) =>
    trace.subtasks.flatMap((s) => [
      `subtask ${s.index + 1}: ${s.description} [${s.outcome}${s.debug_rounds ? `, ${s.debug_rounds} debug round(s)` : ''}]`,
      `  APIs: ${(s.apis ?? []).join(', ') || '-'}`,
      ...s.attempts.map((a) => `  ${a.selected ? '*' : ' '} round ${a.round ?? 0} candidate ${a.candidate ?? '?'}: ${a.status}${a.error ? ` — ${a.error.split('\n').pop()}` : ''}`),
    ]),
} as const satisfies MethodDefinition<'exploracoder', ExploraVariant>;
