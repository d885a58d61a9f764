/**
 * A batch-mode cell's round collector, for the multi-round methods (self-repair, CAPIR,
 * ExploraCoder): their task chains park the requests of each step (workflows/roundParking.ts) and
 * wait; once every chain the cell's shards started waits (or the parked requests reach the
 * model's max_requests), the collector pools the parked sets (a request two chains park once) and
 * answers them through batchAnswersWorkflow children, as a cell's batch phase does, then releases
 * the chains, which find their answers cached. One batch per round of requests, whatever the
 * number of tasks. It continues as new between rounds when its history grows.
 */
import { condition, continueAsNew, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/llm/batch.js';
import type { LlmEndpoint } from '../domain/llm/request.js';
import type { RequestSet } from '../infra/llm/batchPlan.js';
import { answerSets } from './cellBatches.js';
import {
  batchRoundsProgressQuery,
  roundChainsSignal,
  roundParkedSignal,
  roundReleasedSignal,
  roundsCloseSignal,
  roundsHoldSignal,
  type BatchRoundsProgress,
} from './roundSignals.js';

export interface BatchRoundsInput {
  sweepId: string;
  cellId: string;
  endpoint: LlmEndpoint;
  llmQueue: string;
  workflowQueue: string;
  /** The cell's batch folder: each round's pooled sets go under `<prefix>r<round>/`. */
  prefix: string;
  /** Continue as new past this many history events. */
  maxHistoryEvents?: number;
  /** How long all chains must stay waiting before their round is sent (chains of a shard start together). */
  settleMs?: number;
  /** Its cell was held when it started it (a held cell's collector submits no round). */
  held?: boolean;
  /** Carried across continue-as-new. */
  carried?: {
    round: number;
    running: string[];
    waiting: Record<string, RequestSet[]>;
    closing: boolean;
    requestsSent: number;
    held: boolean;
  };
}

export interface BatchRoundsOutcome {
  rounds: number;
  requestsSent: number;
}

const SETTLE_MS = 1000;

export async function batchRoundsWorkflow(input: BatchRoundsInput): Promise<BatchRoundsOutcome> {
  const running = new Set<string>(input.carried?.running ?? []);
  const waiting = new Map<string, RequestSet[]>(Object.entries(input.carried?.waiting ?? {}));
  let closing = input.carried?.closing ?? false;
  let round = input.carried?.round ?? 0;
  let requestsSent = input.carried?.requestsSent ?? 0;
  let held = input.carried?.held ?? input.held ?? false;
  let batches: string[] = [];
  let changes = 0;
  setHandler(roundChainsSignal, ({ started = [], ended = [] }) => {
    for (const id of started) running.add(id);
    for (const id of ended) {
      running.delete(id);
      waiting.delete(id);
    }
    changes++;
  });
  setHandler(roundParkedSignal, ({ chainId, sets }) => {
    running.add(chainId);
    waiting.set(chainId, [...(waiting.get(chainId) ?? []), ...sets]);
    changes++;
  });
  setHandler(roundsCloseSignal, () => void (closing = true));
  setHandler(roundsHoldSignal, (order) => {
    held = order.held;
    changes++;
  });
  setHandler(batchRoundsProgressQuery, (): BatchRoundsProgress => ({
    round,
    chains: running.size,
    waiting: waiting.size,
    batches,
    requestsSent,
    held,
  }));
  const pool = proxyActivities<Pick<BatchActivities, 'poolRequestSets'>>({
    taskQueue: input.llmQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['ZodError'] },
  });
  const maxRequests = input.endpoint.batch?.maxRequests ?? Infinity;
  const parked = () => [...waiting.values()].reduce((a, sets) => a + sets.reduce((b, s) => b + s.requests, 0), 0);
  const allWait = () => waiting.size > 0 && [...running].every((id) => waiting.has(id));
  const full = () => parked() >= maxRequests;

  for (;;) {
    // A held cell's chains wait, their requests parked, until it goes on (batches in flight go on).
    await condition(() => (!held && (allWait() || full())) || (closing && waiting.size === 0 && running.size === 0));
    if (held || (!allWait() && !full())) return { rounds: round, requestsSent };
    if (!full()) {
      // A chain a shard is starting now may not have said so yet: wait until nothing changes for a moment.
      const seen = changes;
      if (await condition(() => changes !== seen, input.settleMs ?? SETTLE_MS)) continue;
    }
    round++;
    const chains = [...waiting.keys()];
    const sets = chains.flatMap((id) => waiting.get(id)!);
    for (const id of chains) waiting.delete(id);
    const prefix = `${input.prefix}r${round}/`;
    const pooled = await pool.poolRequestSets({ endpoint: input.endpoint, sets, prefix });
    const me = workflowInfo().workflowId;
    const outcomes = await answerSets(
      {
        sweepId: input.sweepId,
        owner: input.cellId,
        endpoint: input.endpoint,
        llmQueue: input.llmQueue,
        workflowQueue: input.workflowQueue,
        prefix,
      },
      pooled,
      (setId) => `${me}/r${round}-${setId}`,
      (ids) => void (batches = ids),
    );
    requestsSent += outcomes.reduce((a, o) => a + o.requests, 0);
    batches = [];
    // A chain that ended meanwhile (cancelled, terminated) is not there to hear it.
    await Promise.all(
      chains.map((id) =>
        getExternalWorkflowHandle(id)
          .signal(roundReleasedSignal, { round })
          .catch(() => undefined),
      ),
    );
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= (input.maxHistoryEvents ?? 10_000))
      await continueAsNew<typeof batchRoundsWorkflow>({
        ...input,
        carried: { round, running: [...running], waiting: Object.fromEntries(waiting), closing, requestsSent, held },
      });
  }
}
