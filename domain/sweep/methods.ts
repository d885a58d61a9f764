/**
 * The registry of code-generation methods a sweep can run. Adding a method is one entry in
 * `METHODS`: its name becomes valid in sweep configs, its `kind` picks the workflow step that runs
 * it, and its cost estimates feed the dry-run plan.
 */
import type { MethodOptions } from '../methods/options.js';
import type { SelectionMode } from '../methods/exploracoder/selection.js';

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

export type MethodKind = 'direct' | 'rag' | 'self-repair' | 'exploracoder';

export interface MethodSpec {
  kind: MethodKind;
  /** One line for `--dry-run` and `--help`. */
  description: string;
  /** Needs the dataset's API library (docs). */
  needsLibrary: boolean;
  /** Needs a chat model (multi-step prompts). */
  needsChat: boolean;
  variant?: ExploraVariant;
}

const EXPLORA: ExploraVariant = { debug: false, summaryAndExamples: true, explore: true, selection: 'prefer-passing' };
const EXPLORA_DEBUG: ExploraVariant = { ...EXPLORA, debug: true };

export const METHODS = {
  direct: {
    kind: 'direct',
    description: 'one request per sample; the extracted code is run against the hidden tests',
    needsLibrary: false,
    needsChat: false,
  },
  rag: {
    kind: 'rag',
    description: 'naive RAG (DocPrompting): the top rag_k API docs for the whole task in one prompt per sample',
    needsLibrary: true,
    needsChat: false,
  },
  'self-repair': {
    kind: 'self-repair',
    description: 'generate, run on the visible examples, repair from the errors; budget = subtasks ExploraCoder plans',
    needsLibrary: true,
    needsChat: true,
  },
  exploracoder: {
    kind: 'exploracoder',
    description: 'plan -> recommend APIs -> Chain of API Exploration (m snippets per subtask, run, select) -> final solution',
    needsLibrary: true,
    needsChat: true,
    variant: EXPLORA,
  },
  'exploracoder-debug': {
    kind: 'exploracoder',
    description: 'ExploraCoder*: exploracoder, and when all m snippets of a subtask fail the model debugs them',
    needsLibrary: true,
    needsChat: true,
    variant: EXPLORA_DEBUG,
  },
  'exploracoder-debug-no-summary': {
    kind: 'exploracoder',
    description: 'ablation: ExploraCoder* without the library summary and planner examples',
    needsLibrary: true,
    needsChat: true,
    variant: { ...EXPLORA_DEBUG, summaryAndExamples: false },
  },
  'exploracoder-debug-no-exploration': {
    kind: 'exploracoder',
    description: 'ablation: ExploraCoder* without exploration (plan and all recommended docs, one shot)',
    needsLibrary: true,
    needsChat: true,
    variant: { ...EXPLORA_DEBUG, explore: false },
  },
  'exploracoder-debug-random-selection': {
    kind: 'exploracoder',
    description: 'ablation: ExploraCoder* keeping a random candidate per subtask instead of a passing one',
    needsLibrary: true,
    needsChat: true,
    variant: { ...EXPLORA_DEBUG, selection: 'random' },
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;

export const METHOD_NAMES = Object.keys(METHODS) as [MethodName, ...MethodName[]];

export function methodSpec(name: MethodName): MethodSpec {
  return METHODS[name];
}

/** Subtasks a plan is assumed to have for cost estimates (the real count is known only after planning). */
export const ASSUMED_SUBTASKS = 4;

export interface MethodCostEstimate {
  llmRequests: number;
  /** Answers generated (a request of n choices generates n): what bounds the completion tokens. */
  llmAnswers: number;
  sandboxRuns: number;
  /** False only when the figures are exact. */
  estimate: boolean;
  /**
   * Parts of llmRequests that other cells on the same dataset and model send byte for byte (see
   * sharing.ts), by name; `atCellTemperature` parts are shared only with cells of the same
   * temperature.
   */
  shared: SharedRequests[];
}

export interface SharedRequests {
  part: string;
  atCellTemperature: boolean;
  requests: number;
  answers: number;
}

/**
 * Requests and sandbox runs for `tasks` tasks with `n` samples each. Exploring methods are
 * estimated with ASSUMED_SUBTASKS subtasks, no debugging and a rerank for each subtask; self-repair
 * with every sample using half its budget. `samplesPerRequest` is the model's: the steps whose
 * samples share one prompt (direct's and rag's answers, self-repair's first answers, ExploraCoder's
 * final solutions) send that many samples in one request.
 */
export function estimateMethodCost(name: MethodName, tasks: number, n: number, o: MethodOptions, samplesPerRequest = 1): MethodCostEstimate {
  const spec: MethodSpec = METHODS[name];
  const s = ASSUMED_SUBTASKS;
  /** Requests for one prompt's n samples. */
  const batched = tasks * Math.ceil(n / samplesPerRequest);
  const one = (part: string, requests: number, atCellTemperature = false) => ({ part, atCellTemperature, requests, answers: requests });
  switch (spec.kind) {
    case 'direct':
      return { llmRequests: batched, llmAnswers: tasks * n, sandboxRuns: tasks * n, estimate: false, shared: [] };
    case 'rag':
      return { llmRequests: batched, llmAnswers: tasks * n, sandboxRuns: tasks * n, estimate: false, shared: [{ part: 'rag', atCellTemperature: true, requests: batched, answers: tasks * n }] };
    case 'self-repair': {
      const repairs = tasks * n * (s / 2);
      const shared = [one('plan', tasks), { part: 'rag', atCellTemperature: true, requests: batched, answers: tasks * n }];
      return { llmRequests: tasks + batched + repairs, llmAnswers: tasks + tasks * n + repairs, sandboxRuns: tasks * n * (s / 2 + 2), estimate: true, shared };
    }
    case 'exploracoder': {
      const v = spec.variant!;
      const explore = v.explore ? s * o.candidates : 0;
      const steps = tasks * (1 + s + 1 + explore);
      // The planner's prompt depends on the summary switch; later subtasks' explorations on the
      // candidates kept before, hence on the selection rule too.
      const summary = v.summaryAndExamples ? '' : '-no-summary';
      const shared = [
        one(`plan${summary}`, tasks),
        one(`rerank${summary}`, tasks * (s + 1)),
        ...(explore ? [one(`explore${summary}-${v.selection}`, tasks * explore)] : []),
      ];
      return { llmRequests: steps + batched, llmAnswers: steps + tasks * n, sandboxRuns: tasks * (explore + n), estimate: true, shared };
    }
  }
}
