/**
 * Stub activities for the sweep workflows' unit tests: they answer what the workflows ask with the
 * shapes the real ones return, record every call, and can hold calls until the test lets them go
 * (to see what a workflow starts while others are in flight, or while it is paused).
 */
import { Context } from '@temporalio/activity';
import type { ExecuteShardInput } from '../../activities/sandbox/executeShard.js';
import type { LlmCallSummary } from '../../domain/llm/request.js';
import type { ShardOutcome, ShardTotals } from '../../domain/sweep/records.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import type { CellInput, ShardInput, SweepCellInput, SweepQueues } from '../../workflows/sweepTypes.js';

/** Tokens one stub answer costs (prompt + completion). */
export const PROMPT_TOKENS = 7;
export const COMPLETION_TOKENS = 3;

export function directCell(model = 'm'): SweepCellInput {
  return {
    id: `ds.${model}.direct.t0`,
    dataset: 'ds',
    model,
    method: 'direct',
    temperature: 0,
    endpoint: { id: model, baseUrl: 'http://127.0.0.1:9/v1', model, api: 'completions', requestTimeoutS: 1 },
    sampling: { model, temperature: 0, top_p: 1, max_tokens: 1 },
    stop: [],
  };
}

export function shardInput(sweepId: string, queues: SweepQueues, shape: Partial<ShardInput> = {}): ShardInput {
  return {
    sweepId,
    cell: directCell(),
    mode: 'full',
    datasetKey: 'ds-key',
    shardIndex: 0,
    taskStart: 0,
    taskEnd: 1,
    nSamples: 1,
    timeoutS: 1,
    queues,
    ...shape,
  };
}

export function cellInput(sweepId: string, queues: SweepQueues, shape: Partial<CellInput> = {}): CellInput {
  return {
    sweepId,
    cell: directCell(),
    mode: 'full',
    datasetKey: 'ds-key',
    tasks: 1,
    nSamples: 1,
    k: [1],
    timeoutS: 1,
    queues,
    tasksPerShard: 1,
    maxParallelShards: 1,
    maxHistoryEvents: 8_000,
    ...shape,
  };
}

/** Calls held until the test lets them go: `release()` lets every held call (and later ones, once `open`) return. */
export class Holds {
  private waiting: Array<() => void> = [];
  private opened = false;
  /** How many calls are held now. */
  get held(): number {
    return this.waiting.length;
  }
  async pass(): Promise<void> {
    if (this.opened) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  /** Lets the held calls go (the first `count` of them, or all); later ones are held again. */
  release(count = this.waiting.length): void {
    const now = this.waiting.splice(0, count);
    for (const go of now) go();
  }
  /** Lets every call go, now and from now on. */
  open(): void {
    this.opened = true;
    this.release();
  }
}

/** Calls cancelled while held. */
export interface Cancellations {
  count: number;
}

/**
 * Waits for `holds` to let the call go, heartbeating meanwhile so that a cancellation of the
 * activity reaches it: then it throws the cancellation, after counting it in `cancelled`.
 */
async function passHeartbeating(holds: Holds, cancelled: Cancellations): Promise<void> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 100);
  try {
    await Promise.race([holds.pass(), ctx.cancelled]);
  } catch (err) {
    cancelled.count++;
    throw err;
  } finally {
    clearInterval(beat);
  }
}

/**
 * The direct method's LLM activity: one cached answer per sample, each costing the stub's tokens;
 * `cut` says which answers the endpoint cut at max_tokens.
 */
export function stubLlm(holds?: Holds, cut: (taskIndex: number, sample: number) => boolean = () => false) {
  /** `concurrency`: the requests the activity was told to send at once, where told. */
  const calls: Array<{ taskIndex: number; sampleIndices: number[]; concurrency?: number }> = [];
  const cancelled: Cancellations = { count: 0 };
  let inFlight = 0;
  let mostInFlight = 0;
  const activities = {
    async generateDirect(input: { taskIndex: number; sampleIndices: number[]; concurrency?: number }): Promise<LlmCallSummary[]> {
      calls.push({
        taskIndex: input.taskIndex,
        sampleIndices: input.sampleIndices,
        ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
      });
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        if (holds) await passHeartbeating(holds, cancelled);
      } finally {
        inFlight--;
      }
      return input.sampleIndices.map((s) => ({
        key: `llm/${input.taskIndex}/${s}`,
        status: 'ok',
        cached: false,
        promptTokens: PROMPT_TOKENS,
        completionTokens: COMPLETION_TOKENS,
        calls: 1,
        ...(cut(input.taskIndex, s) ? { cut: true as const } : {}),
      }));
    },
  };
  return { activities, calls, cancelled, mostInFlight: () => mostInFlight };
}

/** What running a shard's (or a slice's) samples gives: every sample passes. */
export function outcomeOf(input: Pick<ExecuteShardInput, 'shardIndex' | 'taskStart' | 'taskEnd' | 'nSamples' | 'slice'>): ShardOutcome {
  const n = input.slice ? input.slice.end - input.slice.start : input.nSamples;
  const tasks = Array.from({ length: input.taskEnd - input.taskStart }, (_, i) => ({ taskIndex: input.taskStart + i, n, c: n, s: n }));
  return {
    shardIndex: input.shardIndex,
    tasks,
    samples: tasks.length * n,
    sandboxRuns: tasks.length * n,
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
}

export interface StorageStubOptions {
  /** Each executeShard call waits here first. */
  holds?: Holds;
  /** Shards an earlier run finished (finishedShards). */
  finished?: ShardTotals[];
  /** Tasks of the sweep's one dataset (prepareSweepDataset). */
  tasks?: number;
  /** executeShard fails this many times (retryably) before it answers. */
  failures?: number;
}

/** The storage and sandbox activities the shard, cell and sweep workflows call. */
export function stubStorage(options: StorageStubOptions = {}) {
  const executed: ExecuteShardInput[] = [];
  const joined: Array<{ shardIndex: number; slices: unknown[] }> = [];
  const finishedAsked: Array<{ from: number; shards: number }> = [];
  const cancelled: Cancellations = { count: 0 };
  let inFlight = 0;
  let mostInFlight = 0;
  let failures = options.failures ?? 0;
  const summary = (cellId: string): CellSummary => ({ cell: { cell: cellId }, resultsKey: `results/${cellId}` }) as unknown as CellSummary;
  const activities = {
    async executeShard(input: ExecuteShardInput): Promise<ShardOutcome> {
      executed.push(input);
      if (failures > 0) {
        failures--;
        throw new Error('the sandbox is down (a stub failure)');
      }
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        if (options.holds) await passHeartbeating(options.holds, cancelled);
      } finally {
        inFlight--;
      }
      return outcomeOf(input);
    },
    async joinShardSlices(input: {
      shardIndex: number;
      taskStart: number;
      taskEnd: number;
      nSamples: number;
      slices: unknown[];
    }): Promise<ShardOutcome> {
      joined.push({ shardIndex: input.shardIndex, slices: input.slices });
      return outcomeOf(input);
    },
    async finishedShards(input: { from: number; shards: number }): Promise<ShardTotals[]> {
      finishedAsked.push({ from: input.from, shards: input.shards });
      return (options.finished ?? []).filter((t) => t.shardIndex >= input.from && t.shardIndex < input.shards);
    },
    async finalizeCell(input: { cellId: string }): Promise<CellSummary> {
      return summary(input.cellId);
    },
    async prepareSweepDataset(input: { dataset: string }): Promise<{ key: string; tasks: number }> {
      return { key: `datasets/${input.dataset}`, tasks: options.tasks ?? 1 };
    },
    async finishedCells(): Promise<Record<string, CellSummary>> {
      return {};
    },
    async finalizeSweep(input: { sweepId: string }): Promise<string> {
      return `sweeps/${input.sweepId}/results.json`;
    },
    async buildSweepReport(input: { sweepId: string }): Promise<string> {
      return `sweeps/${input.sweepId}/report.html`;
    },
  };
  return { activities, executed, joined, finishedAsked, cancelled, mostInFlight: () => mostInFlight };
}
