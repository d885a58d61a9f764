/**
 * What a method kind is made of, as one definition in its own folder: its named methods (a kind
 * may have several, such as ExploraCoder and its ablations), what it needs of the dataset and the
 * model, its cost estimate for `--dry-run`, the request families it shares with other cells, and
 * how `scripts/trace.ts` outlines its stored trace. Each is methods/<kind>/definition.ts; the
 * registry (registry.ts) lists the kinds; each kind's workflow and activities sit beside its
 * definition, listed in methods/workflows.ts and methods/activities.ts (a kind missing from either
 * is a type error).
 */
import type { ExplorationTrace } from '../report/trace.js';
import type { MethodOptions } from './options.js';

/** A named method of a kind, as sweep configs name it. */
export interface NamedMethod<Variant> {
  /** One line for `--dry-run` and `--help`. */
  description: string;
  /** The kind's switches for this name (ExploraCoder's ablations are settings of them). */
  variant: Variant;
}

export interface CostContext {
  tasks: number;
  /** Samples per task. */
  n: number;
  options: MethodOptions;
  /** The model's samples_per_request: steps whose samples share one prompt send that many per request. */
  samplesPerRequest: number;
  /**
   * The dataset asks each sample in two steps (its family's asksInTwoSteps: HumanEvalExplain
   * describes, then writes from the description): only direct runs such a dataset.
   */
  twoSteps: boolean;
}

export interface MethodCostEstimate {
  llmRequests: number;
  /** Answers generated (a request of n choices generates n): what bounds the completion tokens. */
  llmAnswers: number;
  sandboxRuns: number;
  /** False only when the figures are exact. */
  estimate: boolean;
  /**
   * Of llmRequests, those whose prompt carries the sample's own earlier answer (a two-step
   * dataset's second step, one per sample): the forecast counts their prompts as that answer plus
   * the step's prompt. Absent: none.
   */
  secondStepRequests?: number;
  /**
   * Parts of llmRequests that other cells on the same dataset and model send byte for byte (see
   * domain/sweep/sharing.ts), by name; `atCellTemperature` parts are shared only with cells of the
   * same temperature.
   */
  shared: SharedRequests[];
}

export interface SharedRequests {
  part: string;
  atCellTemperature: boolean;
  /**
   * The part's requests carry the cell's prompt template: shared only by cells of one template.
   * Absent: the method's own prompts (planner, reranks, exploration), the same whatever the template.
   */
  templated?: boolean;
  requests: number;
  answers: number;
}

/** The cell a method runs in, as far as sharing requests with other cells goes. */
export interface SharingCell {
  dataset: string;
  model: string;
  method: string;
  temperature: number;
}

export interface MethodDefinition<Kind extends string, Variant> {
  kind: Kind;
  /** Needs the dataset's API library (docs). */
  needsLibrary: boolean;
  /** Needs a chat model (multi-step prompts). */
  needsChat: boolean;
  /**
   * Which of its requests a cell's prompt template (`models[i].prompt` or the `prompts:` axis,
   * domain/methods/promptTemplate.ts) shapes, and which keep the method's own wording: one line,
   * shown under the report's list of templates and in `scripts/trace.ts --summary`.
   */
  promptTemplateScope: string;
  /**
   * The `method_options` this kind reads (its own steps and the shared ones it runs: planner,
   * retrieval, doc masking): the report shows only the options of the sweep's methods.
   */
  optionsRead: readonly (keyof MethodOptions)[];
  /** The names sweep configs use for this kind, each with its variant. */
  names: Record<string, NamedMethod<Variant>>;
  /** Requests and sandbox runs of a cell, for `--dry-run`. */
  estimateCost(variant: Variant, ctx: CostContext): MethodCostEstimate;
  /**
   * Names of the request families the cell sends that another cell may send too (byte-identical
   * requests): the sweep never runs two cells holding one family at once, so the later one finds
   * every shared answer in the cache.
   */
  sharedRequestFamilies(variant: Variant, cell: SharingCell): string[];
  /** The kind's part of a stored trace as readable lines (`scripts/trace.ts --summary`). */
  outlineTrace(trace: ExplorationTrace, sample: number | undefined): string[];
}

/** Subtasks a plan is assumed to have for cost estimates (the real count is known only after planning). */
export const ASSUMED_SUBTASKS = 4;

/** A cost part made of single-answer requests. */
export function singleAnswers(part: string, requests: number, atCellTemperature = false): SharedRequests {
  return { part, atCellTemperature, requests, answers: requests };
}

/** Requests for one prompt's n samples per task, samplesPerRequest to a request. */
export function batchedRequests(ctx: CostContext): number {
  return ctx.tasks * Math.ceil(ctx.n / ctx.samplesPerRequest);
}
