/**
 * ExploraCoder: plan -> recommend APIs -> Chain of API Exploration (m snippets per subtask, run,
 * select) -> final solution; ExploraCoder* debugs a subtask's snippets when all fail. The paper's
 * ablations are settings of the variant's switches, each a named method.
 */
import { planFamily } from '../../domain/methods/sharedFamilies.js';
import { ASSUMED_SUBTASKS, batchedRequests, singleAnswers, type MethodDefinition } from '../../domain/methods/types.js';
import type { SelectionMode } from './selection.js';

/** Share of subtasks whose m candidates all fail, as the paper observed (0.32 per subtask): for estimates. */
const ASSUMED_DEBUG_RATE = 0.32;

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

/** The paper's ablations, as switches of the variant; a name's suffixes combine in this order. */
const ABLATIONS = [
  {
    suffix: 'no-summary',
    what: 'without the library summary and planner demos',
    apply: (v: ExploraVariant): ExploraVariant => ({ ...v, summaryAndExamples: false }),
  },
  {
    suffix: 'no-exploration',
    what: 'without exploration (plan and all recommended docs, one shot)',
    apply: (v: ExploraVariant): ExploraVariant => ({ ...v, explore: false }),
  },
  {
    suffix: 'random-selection',
    what: 'keeping a random candidate per subtask instead of a passing one',
    apply: (v: ExploraVariant): ExploraVariant => ({ ...v, selection: 'random' as const }),
  },
] as const;

/**
 * exploracoder and exploracoder-debug (ExploraCoder*), each with any combination of the ablations
 * as suffixes in ABLATIONS order (`exploracoder-debug-no-summary-random-selection`); selection is
 * part of exploration, so random-selection does not combine with no-exploration. The names of the
 * paper's single ablations (`exploracoder-debug-no-summary`, ...) are among them.
 */
type AblationSuffix =
  '' | '-no-summary' | '-no-exploration' | '-random-selection' | '-no-summary-no-exploration' | '-no-summary-random-selection';
export type ExploraName = `exploracoder${'' | '-debug'}${AblationSuffix}`;

function exploraNames(): Record<ExploraName, { description: string; variant: ExploraVariant }> {
  const out: Record<string, { description: string; variant: ExploraVariant }> = {};
  const bases = [
    {
      name: 'exploracoder',
      description: 'plan -> recommend APIs -> Chain of API Exploration (m snippets per subtask, run, select) -> final solution',
      variant: EXPLORA,
    },
    {
      name: 'exploracoder-debug',
      description: 'ExploraCoder*: exploracoder, and when all m snippets of a subtask fail the model debugs them',
      variant: { ...EXPLORA, debug: true },
    },
  ];
  for (const base of bases) {
    for (let mask = 0; mask < 1 << ABLATIONS.length; mask++) {
      const chosen = ABLATIONS.filter((_, i) => mask & (1 << i));
      if (chosen.some((a) => a.suffix === 'no-exploration') && chosen.some((a) => a.suffix === 'random-selection')) continue;
      const name = [base.name, ...chosen.map((a) => a.suffix)].join('-');
      out[name] = {
        description:
          chosen.length === 0
            ? base.description
            : `ablation: ${base.name === 'exploracoder' ? 'ExploraCoder' : 'ExploraCoder*'} ${chosen.map((a) => a.what).join(', ')}`,
        variant: chosen.reduce((v, a) => a.apply(v), base.variant),
      };
    }
  }
  return out as Record<ExploraName, { description: string; variant: ExploraVariant }>;
}

export const exploracoderMethod = {
  kind: 'exploracoder',
  needsLibrary: true,
  needsChat: true,
  promptTemplateScope:
    "the final solution (its system message and its closing instruction); the planner, the reranks, the exploration and debug prompts keep the paper's wording",
  optionsRead: [
    'candidates',
    'max_subtasks',
    'retrieve_k',
    'rerank_keep',
    'global_k',
    'global_rerank',
    'planner_examples',
    'debug_rounds',
    'debug_temperature',
    'debug_mode',
    'explore_temperature',
    'explore_top_p',
    'observation_chars',
    'retriever',
    'embeddings',
    'doc_masking',
  ],
  names: exploraNames(),
  // Estimated with ASSUMED_SUBTASKS subtasks, a rerank for each and the global one, CoAE's m
  // candidates per subtask in requests of samples_per_request choices (one request of n = m when
  // the endpoint honours n), and for ExploraCoder* the paper's observed debug rate per subtask:
  // one request each in the authors' sequential protocol, every failed candidate per round otherwise.
  estimateCost: (v, ctx) => {
    const { tasks, n, options, samplesPerRequest } = ctx;
    const s = ASSUMED_SUBTASKS;
    const m = options.candidates;
    const exploreRequests = v.explore ? s * Math.ceil(m / samplesPerRequest) : 0;
    const exploreAnswers = v.explore ? s * m : 0;
    const debugged = v.explore && v.debug ? Math.ceil(s * ASSUMED_DEBUG_RATE) : 0;
    const debugRequests = debugged * (options.debug_mode === 'sequential' ? 1 : m * options.debug_rounds);
    const steps = 1 + s + 1; // plan, reranks, global rerank
    // The planner's prompt depends on the summary switch; later subtasks' explorations on the
    // candidates kept before, hence on the selection rule too.
    const summary = v.summaryAndExamples ? '' : '-no-summary';
    const shared = [
      singleAnswers(`plan${summary}`, tasks),
      // The per-subtask reranks are CAPIR's too; the global rerank is ExploraCoder's own.
      singleAnswers(`rerank${summary}`, tasks * s),
      singleAnswers(`global-rerank${summary}`, tasks),
      ...(exploreRequests
        ? [
            {
              part: `explore${summary}-${v.selection}`,
              atCellTemperature: false,
              requests: tasks * exploreRequests,
              answers: tasks * exploreAnswers,
            },
          ]
        : []),
      // Debugging runs at debug_temperature, not the cell's: the debug variants at every temperature share it.
      ...(debugRequests ? [singleAnswers(`debug${summary}-${v.selection}`, tasks * debugRequests)] : []),
    ];
    return {
      llmRequests: tasks * (steps + exploreRequests + debugRequests) + batchedRequests(ctx),
      llmAnswers: tasks * (steps + exploreAnswers + debugRequests) + tasks * n,
      sandboxRuns: tasks * (exploreAnswers + debugRequests + n),
      estimate: true,
      shared,
    };
  },
  // Every variant plans (and reranks) at temperature 0, and explores at the options' temperature,
  // not the cell's: all of them on one dataset and model share their plans.
  sharedRequestFamilies: (_v, cell) => [planFamily(cell)],
  outlineTrace: (trace) => [
    ...(trace.plan_copied_demo
      ? [`plan: a copy of planner demo ${trace.plan_copied_demo} (asked ${trace.stages?.plan?.requests ?? '?'} times)`]
      : []),
    ...(trace.plan_cut ? [`plan: ${trace.plan_cut} subtask(s) beyond the safety cap max_subtasks were dropped`] : []),
    ...trace.subtasks.flatMap((s) => [
      `subtask ${s.index + 1}: ${s.description} [${s.outcome}${s.debug_rounds ? `, ${s.debug_rounds} debug round(s)` : ''}]`,
      `  APIs: ${(s.apis ?? []).join(', ') || '-'}`,
      ...s.attempts.map(
        (a) =>
          `  ${a.selected ? '*' : ' '} round ${a.round ?? 0} candidate ${a.candidate ?? '?'}: ${a.status}${a.error ? ` — ${a.error.split('\n').pop()}` : ''}`,
      ),
    ]),
  ],
} as const satisfies MethodDefinition<'exploracoder', ExploraVariant>;
