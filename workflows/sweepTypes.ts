/** Inputs of the sweep workflows: plain data, built once by the CLI from a validated config. */
import type { DatasetEntry } from '../domain/families/registry.js';
import type { S3Ref } from '../domain/sweep/keys.js';
import type { TaskSelection } from '../domain/sweep/selection.js';
import type { LlmEndpoint } from '../domain/llm/request.js';
import type { Sampling } from '../domain/methods/sampling.js';
import type { MethodOptions } from '../domain/methods/options.js';
import type { SweepMode } from '../domain/sweep/plan.js';
import type { SweepBudgets } from '../domain/sweep/budget.js';
import type { ModelPrice } from '../domain/sweep/price.js';
import type { CellErrorCount, CellErrorHold, CellErrorStop } from '../domain/sweep/cellErrors.js';
import type { Sanitizer } from '../domain/llm/sanitizer.js';
import type { BatchRoundsRef } from './roundSignals.js';

export type { SweepMode };

export interface SweepQueues {
  workflows: string;
  storage: string;
  sandbox: string;
  /** Each model's LLM queue is `<llmBase>-<model id>`. */
  llmBase: string;
  /**
   * The LLM activities' heartbeat timeout: how soon a dead worker's model calls are given to
   * another (the config's `heartbeat_timeout_s`); absent: DEFAULT_LLM_HEARTBEAT_TIMEOUT_S.
   */
  llmHeartbeatTimeoutS?: number;
}

export { pauseOrderSignal, type PauseOrder } from './pauseOrders.js';

export interface SweepDatasetInput {
  name: string;
  /** The dataset's entry in the config, as its family resolved it. */
  entry: DatasetEntry;
  /** The entry's files in S3, by role (files(entry) of its family); none for generated families. */
  files: Record<string, S3Ref>;
  /** Which of its tasks run (tasks, limit_start, limit). */
  selection: TaskSelection;
  /** evaluate-only: the loaded generations (bigcode's list of lists) in S3. */
  savedGenerationsKey?: string;
}

export interface SweepCellInput {
  id: string;
  dataset: string;
  model: string;
  method: string;
  temperature: number;
  /** Its point on the sweep's `prompts:` axis; absent in sweeps without one. */
  prompt?: string;
  endpoint: LlmEndpoint;
  sampling: Sampling;
  stop: string[];
  /** How the chat answers are read (the model's `sanitize`); absent: the fenced-block extraction. */
  sanitize?: Sanitizer;
  /**
   * What part of its dataset the cell's figures are over, written into its results (the family's
   * cellScope: LiveCodeBench's window); absent: all of it, or a cell started before scopes.
   */
  scope?: Record<string, string>;
}

export interface SweepInput {
  sweepId: string;
  configHash: string;
  mode: SweepMode;
  datasets: SweepDatasetInput[];
  cells: SweepCellInput[];
  methodOptions?: MethodOptions;
  nSamples: number;
  k: number[];
  timeoutS: number;
  queues: SweepQueues;
  /** Samples a shard workflow holds (domain/sweep/sharding.ts); absent in sweeps started before 2026-11-29, which keep the legacy sharding. */
  shardSamples?: number;
  maxParallelCells?: number;
  maxParallelShards?: number;
  /** Continue as new after this many history events (tests lower it). */
  maxHistoryEvents?: number;
  /** The config's spend caps (domain/sweep/budget.ts); absent: none. A `set-budget` signal replaces them. */
  budget?: SweepBudgets;
  /** The models' prices by id (a batch-mode model's with its batch price beside), for money spent and forecast; absent: no model has one. */
  prices?: Record<string, ModelPrice>;
  /** When a cell stops on errors (domain/sweep/cellErrors.ts); absent: never (sweeps started before it, or the config's `false`). */
  cellErrorStop?: CellErrorStop;
}

/** What a cell and each of its shards work on. */
interface CellScope {
  sweepId: string;
  cell: SweepCellInput;
  mode: SweepMode;
  datasetKey: string;
  savedGenerationsKey?: string;
  libraryKey?: string;
  methodOptions?: MethodOptions;
  /**
   * Where each task's cost goes as a `spend` signal: the sweep's spend ledger (its workflow id), or
   * (`reportsSpend`, cells and shards of sweeps started before the ledger) the sweep workflow.
   * Neither: the sweep has no budget and counts nothing.
   */
  spendLedger?: string;
  reportsSpend?: true;
}

export interface CellInput extends CellScope {
  tasks: number;
  nSamples: number;
  k: number[];
  timeoutS: number;
  queues: SweepQueues;
  tasksPerShard: number;
  /** The most samples one activity of a shard takes (the sweep's `shardSamples`; sharding.ts sampleSlices); absent in cells started before slices: one activity a task. */
  samplesPerActivity?: number;
  maxParallelShards: number;
  maxHistoryEvents: number;
  /** When the cell stops on errors (domain/sweep/cellErrors.ts); absent: never. */
  errorStop?: CellErrorStop;
  /** Batch mode gathered by model (`batch.gather: model`): the sweep answered the cell's requests in batches already, the cell makes none. */
  batchedBySweep?: true;
  /** How long a multi-round cell's round collector waits for its chains to stay still before it sends a round (batchRounds.ts); absent: 1 s. */
  roundSettleMs?: number;
  /** Carried across continue-as-new. */
  resume?: CellProgressState;
}

export interface CellProgressState {
  nextShard: number;
  samplesDone: number;
  tasksDone: number;
  /** Sum over finished tasks of c/n: pass@1 so far = passSum / tasksDone. */
  passSum: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the tokens, those answered in provider batches; absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
  sandboxRuns: number;
  startedAtMs: number;
  paused: boolean;
  run: number;
  /** The last pause order applied (from the sweep); absent in states older than orders. */
  pauseSeq?: number;
  /** The last pause order sent to this cell's shards. */
  shardPauseSeq?: number;
  /**
   * Errors counted since the cell started or was last released (domain/sweep/cellErrors.ts), and
   * `samplesBase`: samplesDone then. Absent: none yet, or a cell that does not stop on errors.
   */
  errorCount?: Omit<CellErrorCount, 'attempted'> & { samplesBase: number };
  /** Why the cell holds (it starts nothing until released); null or absent: it does not. */
  errorHold?: CellErrorHold | null;
  /** The limits now: the input's, until a release brings the config's (null: none). */
  errorStop?: CellErrorStop | null;
  /** How many times it held on errors, and the last reason (its results say it); absent: never. */
  errorHolds?: { count: number; last: string };
  /** Tasks of its finished shards, executed or not (progress only; absent in states older than it). */
  tasksAnswered?: number;
  /** Answers of its finished shards cut at max_tokens (progress only; absent in states older than it). */
  cutAtMaxTokens?: number;
}

export interface ShardInput extends CellScope {
  shardIndex: number;
  taskStart: number;
  taskEnd: number;
  nSamples: number;
  /** As its cell's: over this many samples, a task's answers and the shard's runs are cut into slices, an activity each. */
  samplesPerActivity?: number;
  timeoutS: number;
  queues: SweepQueues;
  /** Its cell stops on errors: the shard reports them, asks the cell before each task, and retries a task that failed for good. */
  reportsErrors?: true;
  /** Tasks that generate at once, as its cell gave (domain/sweep/sharding.ts nextShardWindow); absent: TASK_WINDOW. */
  taskWindow?: number;
  /** Its cell overlaps shards: the shard signals it (`shard-generated`) once every task has its answers, before it runs them. */
  tellsGenerated?: true;
  /** Batch mode, multi-round methods: its chains park their requests for the cell's round collector (workflows/batchRounds.ts); every task starts at once. */
  batchRounds?: BatchRoundsRef;
}
