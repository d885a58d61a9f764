/**
 * A budgeted sweep's spend ledger on a Temporal dev server of the test's own (test/support/workflow-env.ts): it adds up every task's `spend`
 * signal exactly once across its continue-as-new runs, keeps its verdict across them, and tells the
 * sweep only when the verdict changes: when a cap would be passed, and when raised caps let go.
 *
 * The client signals in groups, as shards do (one signal per finished task), not in one unbroken
 * stream: while signals keep arriving the server refuses a run's ending (each new signal must be
 * handled first), so a client that never pauses keeps one run open however long it gets. That is
 * the documented limit of the design (docs/sweeps/cost.md#budgets), not what this test measures.
 */
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spendLedgerWorkflow } from '../../workflows/spendLedger.js';
import { closeLedgerSignal, setBudgetSignal, spendLedgerQuery, spendSignal, type HoldVerdict } from '../../workflows/spendReports.js';
import { uniqueSuffix } from '../support/config.js';
import { startWorkflowEnv, testQueues, withStubWorkers } from '../support/workflow-env.js';

const MAX_EVENTS = 40;
const TASKS = 200;
// Each task costs 10 tokens: a cap of 455 is passed by the next task once 450 are spent (45 tasks).
const CAP = 455;
const GROUP = 10;

const signalsNamed = (events: temporal.api.history.v1.IHistoryEvent[], name: string) =>
  events
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === name)
    .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString()) as HoldVerdict);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startWorkflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('spend ledger', () => {
  it('counts every task once across continue-as-new runs and tells the sweep each change of its verdict', async () => {
    const queues = testQueues();
    const { client } = env;
    await withStubWorkers(env, queues, { activities: {} }, async () => {
      const suffix = uniqueSuffix();
      const taskQueue = queues.workflows;
      // The verdicts go to a workflow that only keeps them in its history: another ledger, which
      // has no handler for them.
      const listener = await client.workflow.start(spendLedgerWorkflow, {
        workflowId: `explora-test/ledger-listener-${suffix}`,
        taskQueue,
        args: [
          {
            sweepWorkflowId: 'nobody',
            prices: {},
            maxHistoryEvents: 8_000,
            state: { spentByModel: {}, budget: null, hold: null, seq: 0 },
          },
        ],
      });
      const ledger = await client.workflow.start(spendLedgerWorkflow, {
        workflowId: `explora-test/ledger-${suffix}`,
        taskQueue,
        args: [
          {
            sweepWorkflowId: listener.workflowId,
            prices: {},
            maxHistoryEvents: MAX_EVENTS,
            state: { spentByModel: {}, budget: { sweep: { tokens: CAP }, models: {} }, hold: null, seq: 0 },
          },
        ],
      });
      const spend = { model: 'm', calls: 1, promptTokens: 4, completionTokens: 6 };
      // A query waits for the workflow task in flight, so once it counts every signal sent, the
      // run has handled them and the ending it asked for (if any) was not refused.
      const sendGroups = async (from: number, to: number) => {
        for (let t = from; t < to; t++) {
          await ledger.signal(spendSignal, spend);
          if ((t + 1) % GROUP === 0 || t + 1 === to) {
            await expect
              .poll(async () => (await ledger.query(spendLedgerQuery)).spentByModel.m?.tasks, { timeout: 30_000, interval: 20 })
              .toBe(t + 1);
          }
        }
      };
      await sendGroups(0, 50);
      const held = await ledger.query(spendLedgerQuery);
      expect(held.hold).toMatchObject({ field: 'budget.tokens', limit: CAP, spent: 450, nextTask: 10 });
      await ledger.signal(setBudgetSignal, { sweep: { tokens: 10 * CAP }, models: {} });
      await sendGroups(50, TASKS);
      await ledger.signal(closeLedgerSignal);
      const final = await ledger.result();

      expect(final.spentByModel).toEqual({ m: { calls: TASKS, promptTokens: 4 * TASKS, completionTokens: 6 * TASKS, tasks: TASKS } });
      expect(final.hold).toBeNull();
      expect(final.seq).toBe(2);
      // The runs continued as new; a run can pass the limit by the signals of one group, and none
      // holds more than a small share of the history.
      const runs: number[] = [];
      let runId: string | undefined = ledger.firstExecutionRunId;
      while (runId) {
        const { events } = await client.workflow.getHandle(ledger.workflowId, runId).fetchHistory();
        runs.push(events!.length);
        runId = events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      const total = runs.reduce((a, b) => a + b, 0);
      expect(runs.length, `run lengths ${runs.join(', ')}`).toBeGreaterThan(5);
      for (const length of runs) expect(length, `run lengths ${runs.join(', ')}`).toBeLessThan(Math.min(total / 4, MAX_EVENTS + 5 * GROUP));

      // The sweep heard two verdicts, the hold at 450 tokens and the release, once each.
      const { events } = await listener.fetchHistory();
      const verdicts = signalsNamed(events!, 'budget-hold');
      expect(verdicts.map((v) => v.seq)).toEqual([1, 2]);
      expect(verdicts[0]!.hold).toMatchObject({ field: 'budget.tokens', spent: 450 });
      expect(verdicts[1]!.hold).toBeNull();
      await listener.terminate();
    });
  });
});
