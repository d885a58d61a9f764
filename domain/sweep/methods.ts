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
   * temperature. One answer per request in every part.
   */
  shared: SharedRequests[];
}

export interface SharedRequests {
  part: string;
  atCellTemperature: boolean;
  requests: number;
}

/**
 * Requests and sandbox runs for `tasks` tasks with `n` samples each. Exploring methods are
 * estimated with ASSUMED_SUBTASKS subtasks, no debugging and a rerank for each subtask; self-repair
 * with every sample using half its budget. `samplesPerRequest` is the model's: only `direct` sends
 * several samples in one request (its samples share one prompt).
 */
export function estimateMethodCost(name: MethodName, tasks: number, n: number, o: MethodOptions, samplesPerRequest = 1): MethodCostEstimate {
  const spec: MethodSpec = METHODS[name];
  const s = ASSUMED_SUBTASKS;
  switch (spec.kind) {
    case 'direct':
      return { llmRequests: tasks * Math.ceil(n / samplesPerRequest), llmAnswers: tasks * n, sandboxRuns: tasks * n, estimate: false, shared: [] };
    case 'rag':
      return { llmRequests: tasks * n, llmAnswers: tasks * n, sandboxRuns: tasks * n, estimate: false, shared: [{ part: 'rag', atCellTemperature: true, requests: tasks * n }] };
    case 'self-repair': {
      const rounds = 1 + s / 2;
      const requests = tasks * (1 + n * rounds);
      const shared = [
        { part: 'plan', atCellTemperature: false, requests: tasks },
        { part: 'rag', atCellTemperature: true, requests: tasks * n },
      ];
      return { llmRequests: requests, llmAnswers: requests, sandboxRuns: tasks * n * (rounds + 1), estimate: true, shared };
    }
    case 'exploracoder': {
      const v = spec.variant!;
      const explore = v.explore ? s * o.candidates : 0;
      const requests = tasks * (1 + s + 1 + explore + n);
      // The planner's prompt depends on the summary switch; later subtasks' explorations on the
      // candidates kept before, hence on the selection rule too.
      const summary = v.summaryAndExamples ? '' : '-no-summary';
      const shared = [
        { part: `plan${summary}`, atCellTemperature: false, requests: tasks },
        { part: `rerank${summary}`, atCellTemperature: false, requests: tasks * (s + 1) },
        ...(explore ? [{ part: `explore${summary}-${v.selection}`, atCellTemperature: false, requests: tasks * explore }] : []),
      ];
      return { llmRequests: requests, llmAnswers: requests, sandboxRuns: tasks * (explore + n), estimate: true, shared };
    }
  }
}
