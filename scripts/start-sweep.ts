/**
 * `node --import tsx scripts/start-sweep.ts --config FILE [--id ID]` (`npm run sweep -- ...`): start
 * (or resume) a sweep, show its progress and print the results table. Run again with the same id, it
 * does only what is missing.
 */
import { readFileSync, existsSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { isGrpcServiceError, WorkflowFailedError, WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import { Command, Option } from 'commander';
import { environmentHelp, logLevelFrom, type ExploraConfig } from '../domain/config/env.js';
import { loadConfig as loadExploraConfig } from '../infra/config.js';
import { onStopSignals, type StopSignals } from '../infra/stopSignals.js';
import {
  describeSweepConfigDifferences,
  loadSweepConfig,
  sweepConfigHash,
  sweepIdProblem,
  type SweepConfig,
} from '../domain/sweep/config.js';
import { defaultSweepId, llmTaskQueue, spendLedgerWorkflowId, sweepWorkflowId, type SweepRun } from '../domain/sweep/keys.js';
import { checkS3Access, s3ClientFor, sha256Hex, type Bucket } from '../infra/s3.js';
import { missingSearchAttributes, searchAttributeCommands } from '../infra/temporal/searchAttributes.js';
import { sweepProgressQuery, sweepSetBudgetSignal, sweepWorkflow } from '../workflows/sweep.js';
import {
  addSpend,
  batchSpend,
  capUses,
  describeBudgets,
  describeSpentAgainstCaps,
  NO_SPEND,
  pricesOf,
  sweepBudgetsOf,
  type Spend,
  type SweepBudgets,
} from '../domain/sweep/budget.js';
import type { CellSummary } from '../domain/sweep/results.js';
import { TASK_WINDOW } from '../workflows/sweepShard.js';
import { generatedSamplesProblem } from '../domain/sweep/sharding.js';
import type { SweepMode } from '../workflows/sweepTypes.js';
import { FORK_SERVER_HELP, NO_FORK_SERVER_HELP, SHARE_PROCESS_HELP } from '../infra/sandbox/process/contract.js';
import { createWorkers, inFlight, installRuntime, stopWorkers } from '../workers/runWorkers.js';
import { rootCauseMessage } from './lib/errors.js';
import { workflowUiLink } from './lib/dataset-remote.js';
import { connectBeforeWriting, unansweredModels, unknownModelNames, type TemporalClient } from './lib/preflight.js';
import {
  buildSweepInput,
  checkSweepRecord,
  countTasks,
  loadGenerations,
  queuesOf,
  SweepInputError,
  writeSweepRecord,
} from './lib/sweep-input.js';
import { checkSweepReferences, formatReferenceChecks } from './lib/references.js';
import { dryRunText } from './lib/dry-run.js';
import { writeCellFiles } from './lib/cell-files.js';
import { findFinishedSweep, type FinishedSweep } from './lib/finished-sweep.js';
import { warnWhileUnserved, type WatchedQueue } from './lib/queue-pollers.js';
import { formatResultsTable, showSweepProgress } from './lib/sweep-view.js';
import { heldOnErrorsLines, releaseHeldCells } from './lib/cell-holds.js';
import { describeCellErrorHold, type CellErrorStop } from '../domain/sweep/cellErrors.js';

/** How long the in-process workers let tasks in flight finish after Ctrl-C: the command returns within 10 s. */
const IN_PROCESS_STOP_GRACE_MS = 5_000;

interface Flags {
  config: string;
  id?: string;
  generationOnly: boolean;
  evaluateOnly: boolean;
  loadGenerations: string[];
  dryRun: boolean;
  worker: 'in-process' | 'external';
  progress: boolean;
  wait: boolean;
  checkReferences: boolean;
  outputDir?: string;
  shareProcess: boolean;
  forkServer: boolean;
  baseline: number;
  minDifference: number;
  cacheForecast: boolean;
}

/** A rate flag's value: a number strictly between 0 and 1, or an error naming the flag. */
function rateFlag(flag: string): (value: string) => number {
  return (value) => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x) || x <= 0 || x >= 1)
      throw new Error(`${flag} ${value}: must be a number between 0 and 1 (exclusive), e.g. 0.3`);
    return x;
  };
}

function loadConfig(file: string): SweepConfig {
  if (!existsSync(file)) throw new Error(`--config ${file}: no such file`);
  // A SweepConfigError's message names every problem, by field or by line and column.
  return loadSweepConfig(readFileSync(file, 'utf8'), file);
}

function generationsByDataset(values: string[], config: SweepConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    const [name, file] = eq > 0 ? [v.slice(0, eq), v.slice(eq + 1)] : [config.datasets.length === 1 ? config.datasets[0]!.name : '', v];
    if (!name) throw new Error(`--load-generations ${v}: the config has ${config.datasets.length} datasets; write DATASET=FILE`);
    if (!config.datasets.some((d) => d.name === name)) throw new Error(`--load-generations ${v}: no dataset named ${name} in the config`);
    if (!existsSync(file)) throw new Error(`--load-generations ${v}: no such file ${file}`);
    out[name] = file;
  }
  return out;
}

const program = new Command('start-sweep')
  .description('Start or resume a sweep (datasets x models x methods x temperatures), follow it, print pass@k')
  .requiredOption('--config <file>', 'sweep config, YAML or JSON')
  .option(
    '--id <id>',
    "sweep id (default: the config's id, else derived from the config's hash; with --evaluate-only, -eval-<hash of the generations> appended)",
  )
  .option('--generation-only', 'generate and save samples, do not execute them', false)
  .option('--evaluate-only', 'execute loaded generations instead of calling models', false)
  .option(
    '--load-generations <file>',
    'with --evaluate-only: bigcode generations.json (list of lists), or DATASET=FILE; repeatable',
    (v: string, acc: string[]) => [...acc, v],
    [] as string[],
  )
  .option(
    '--dry-run',
    'validate the config and print the plan, what it will cost (tokens, money at models[i].price) and the power of its comparisons; start nothing',
    false,
  )
  .option(
    '--baseline <rate>',
    "with --dry-run: the pass@1 the power of the grid's comparisons is computed from",
    rateFlag('--baseline'),
    0.5,
  )
  .option(
    '--min-difference <d>',
    'with --dry-run: the difference of pass@1 the comparisons should decide (80% power); smaller ones get a warning',
    rateFlag('--min-difference'),
    0.05,
  )
  .option('--no-cache-forecast', 'with --dry-run: do not read the LLM cache for the expected completion tokens')
  .addOption(
    new Option('--worker <mode>', 'in-process: also serve the queues while waiting; external: rely on `npm run worker`')
      .choices(['in-process', 'external'])
      .default('in-process'),
  )
  .option('--no-progress', 'no progress bars')
  .option('--no-wait', 'start (or find) the sweep, print its link and return')
  .option(
    '--check-references',
    "first run each dataset's reference solutions in the sandbox and list the tasks whose reference fails",
    false,
  )
  .option('--share-process', `in-process worker: ${SHARE_PROCESS_HELP}`, false)
  .option('--fork-server', `in-process worker: ${FORK_SERVER_HELP}`, true)
  .option('--no-fork-server', `in-process worker: ${NO_FORK_SERVER_HELP}`)
  .option(
    '--output-dir <dir>',
    "when the sweep ends, also write each cell's generations.json, references.json, results.json and samples.jsonl to DIR/<cell>/, with bigcode's evaluation_results.json (and evalplus's eval_results.json for evalplus cells, BigCodeBench's eval_results.json and pass_at_k.json for its cells)",
  )
  .addHelpText('after', environmentHelp(['temporal', 's3', 'sandbox']));

program.action(async (flags: Flags) => {
  const config = loadConfig(flags.config);
  if (!flags.dryRun) {
    const given = (['baseline', 'minDifference', 'cacheForecast'] as const).filter((f) => program.getOptionValueSource(f) === 'cli');
    if (given.length)
      throw new Error(
        `${given.map((f) => ({ baseline: '--baseline', minDifference: '--min-difference', cacheForecast: '--no-cache-forecast' })[f]).join(', ')}: only with --dry-run`,
      );
  }
  if (flags.generationOnly && flags.evaluateOnly) throw new Error('--generation-only and --evaluate-only exclude each other');
  if (flags.evaluateOnly !== flags.loadGenerations.length > 0) throw new Error('--evaluate-only and --load-generations go together');
  const mode: SweepMode = flags.evaluateOnly ? 'evaluate-only' : flags.generationOnly ? 'generation-only' : 'full';
  const tooMany = generatedSamplesProblem(config.n_samples, mode);
  if (tooMany) throw new Error(`${flags.config}: ${tooMany}`);
  const generations = generationsByDataset(flags.loadGenerations, config);
  if (mode === 'evaluate-only') {
    const missing = config.datasets.filter((d) => !generations[d.name]).map((d) => d.name);
    if (missing.length)
      throw new Error(`--load-generations: no generations file for dataset(s) ${missing.join(', ')}; give one per dataset as DATASET=FILE`);
  }
  const run: SweepRun =
    mode === 'evaluate-only'
      ? { mode, generations: Object.fromEntries(Object.entries(generations).map(([d, f]) => [d, sha256Hex(readFileSync(f))])) }
      : { mode };
  if (flags.id !== undefined) {
    const problem = sweepIdProblem(flags.id);
    if (problem) throw new Error(`--id: ${problem}`);
  }
  const sweepId = flags.id ?? defaultSweepId(config.id, sweepConfigHash(config, sha256Hex), run, sha256Hex);
  // Given on the command line, not defaulted: the fork servers are on unless --no-fork-server.
  const forkServerFlag = flags.forkServer ? '--fork-server' : '--no-fork-server';
  for (const [given, flag] of [
    [flags.shareProcess, '--share-process'],
    [program.getOptionValueSource('forkServer') === 'cli', forkServerFlag],
  ] as const)
    if (given && flags.worker === 'external')
      throw new Error(
        `${flag} applies to the in-process worker; with --worker external, give it to the workers: npm run worker -- ${flag}`,
      );
  if (flags.outputDir !== undefined && !flags.wait)
    throw new Error('--output-dir needs to wait for the sweep: drop --no-wait (or run sweep-status later)');
  const env = loadExploraConfig(process.env);
  const s3 = s3ClientFor(env);
  const bucket = { s3, name: env.s3.bucket };
  let temporal: TemporalClient | undefined;
  try {
    // Every connection is checked before the first write (the inputs' upload, the record): a start
    // refused for a setting leaves nothing behind. A dry run writes nothing and needs no Temporal.
    // A finished sweep (by its stored results, even when its history has expired) is shown from S3
    // alone: it needs no Temporal and asks no model.
    let finishedBefore: FinishedSweep | null = null;
    if (!flags.dryRun) {
      await checkS3Access(env, s3);
      finishedBefore = await findFinishedSweep(bucket, { sweepId, configHash: sweepConfigHash(config, sha256Hex), mode });
    }
    if (!flags.dryRun && !finishedBefore) {
      temporal = await connectBeforeWriting(env, s3, async ({ connection, client }) => {
        await requireSearchAttributes(connection, env.temporal.namespace, env.temporal.address);
        if (mode !== 'evaluate-only') await requireModelEndpoints(client, sweepId, config);
      });
    }
    if (flags.checkReferences) {
      const report = await checkSweepReferences(config, config.datasets, {
        bucket,
        configFile: flags.config,
        timeoutS: config.timeout_s,
        progress: flags.progress && process.stderr.isTTY === true,
        log: (line) => console.error(line),
      });
      console.error(formatReferenceChecks(report));
    }
    // What the run would refuse, the dry run refuses too: a clash with what the id was started as,
    // and the files' contents. (Without S3, a dry run still validates the rest.)
    const record = await checkSweepRecord(bucket, sweepId, config, run, describeSweepConfigDifferences).catch((err: Error) => {
      if (!flags.dryRun || err instanceof SweepInputError) throw err;
      console.error(`start-sweep: note: not checked against what sweep ${sweepId} was started as (${err.message})`);
      return null;
    });
    if (flags.dryRun) {
      const counts = await countTasks(bucket, flags.config, config);
      for (const [dataset, file] of Object.entries(generations))
        loadGenerations(file, dataset, Math.min(config.limit ?? Infinity, counts[dataset]!), config.n_samples);
      console.log(
        await dryRunText(bucket, flags.config, { ...config, id: sweepId }, mode, {
          power: { baseline: flags.baseline, target: flags.minDifference },
          readCache: flags.cacheForecast,
          log: (line) => console.error(line),
        }),
      );
      return;
    }
    // A finished sweep started again shows its stored results and starts (and writes) nothing.
    const finished = finishedBefore;
    if (finished) {
      console.error(`sweep ${sweepId}: ${workflowUiLink(env, sweepWorkflowId(sweepId))}`);
      console.error(
        `sweep ${sweepId} has finished: its stored results follow; nothing was started (docs/sweeps/running.md#running-a-finished-sweep-again)`,
      );
      await printResults(env, config, bucket, sweepId, finished, flags.outputDir);
      return;
    }
    // The in-process workers get ready (their workflow bundle, sandbox, connections and leases:
    // seconds) while the sweep's input is uploaded and its workflow started, so they take its first
    // task at once. Every check that refuses a start has passed by now; if the start fails anyway,
    // they are closed unused (their leases removed).
    let workersStarting: ReturnType<typeof createWorkers> | undefined;
    if (flags.wait && flags.worker === 'in-process') {
      installRuntime(logLevelFrom(process.env, 'ERROR'));
      workersStarting = createWorkers(env, {
        roles: ['workflows', 'storage', 'sandbox', 'llm'],
        // A detach returns in seconds: what is in flight then is cancelled (its answers so far
        // kept) and taken up by whichever worker serves the sweep next.
        stopGraceMs: IN_PROCESS_STOP_GRACE_MS,
        llmModels: config.models.map((m) => ({ id: m.id, concurrency: m.concurrency })),
        ...(flags.shareProcess ? { shareProcess: true } : {}),
        forkServer: flags.forkServer,
      });
      // Its failure is reported where it is awaited (below), not as an unhandled rejection before.
      workersStarting.catch(() => {});
    }
    const closeUnused = () => workersStarting?.then((w) => w.close()).catch(() => {});
    const input = await buildSweepInput(config, bucket, {
      sweepId,
      configFile: flags.config,
      mode,
      generations,
      queues: queuesOf(env),
      log: (line) => console.error(line),
    }).catch(async (err: unknown) => {
      await closeUnused();
      throw err;
    });

    const { client } = temporal!;
    let signals: StopSignals | undefined;
    let inProcess: Awaited<ReturnType<typeof createWorkers>> | undefined;
    let running: Promise<unknown> | undefined;
    try {
      const workflowId = sweepWorkflowId(sweepId);
      // A running sweep is joined, not restarted: it must be running the same kind of run.
      const status = await client.workflow
        .getHandle(workflowId)
        .describe()
        .then(
          (d) => d.status.name,
          (err: unknown) => {
            if (err instanceof WorkflowNotFoundError) return null;
            throw err;
          },
        );
      if (status === 'RUNNING' && record?.run && record.run.mode !== mode) {
        throw new Error(
          `sweep ${sweepId} is running as ${record.run.mode}; wait for it to finish (or stop it) before starting it as ${mode}, or use another --id`,
        );
      }
      await writeSweepRecord(bucket, sweepId, config, run);
      await client.workflow.start(sweepWorkflow, {
        taskQueue: env.taskQueues.workflows,
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [input],
      });
      console.error(`sweep ${sweepId}: ${workflowUiLink(env, workflowId)}`);
      // A running sweep takes the config's budgets, and its cells held on errors are released with
      // the config's limits. Asked once this command's own workers serve it (below), when it has
      // any: a paused sweep nobody serves answers no query.
      const budgetsToRunning =
        status === 'RUNNING'
          ? async () => {
              await updateBudgets(client, sweepId, input.budget ?? null);
              await releaseCells(
                client,
                sweepId,
                input.cells.map((c) => c.id),
                input.cellErrorStop ?? null,
              );
            }
          : null;
      if (!flags.wait) {
        await budgetsToRunning?.();
        return;
      }
      // SIGINT (Ctrl-C) or SIGTERM detaches: the sweep lives on the server and carries on wherever
      // workers serve it. The in-process workers stop gracefully first (their tasks in flight finish
      // or are handed back, their leases are removed); later signals do not cut that short.
      signals = onStopSignals('start-sweep', {
        onFirst: (signal) => {
          console.error(
            `\nstart-sweep: ${signal}: detaching${inProcess ? `; stopping the in-process workers (${inFlight(inProcess.workers)})` : ''}`,
          );
          if (inProcess) stopWorkers(inProcess.workers);
        },
        waitingFor: () => (inProcess ? `the in-process workers (${inFlight(inProcess.workers)})` : 'the detach'),
      });
      if (workersStarting) {
        inProcess = await workersStarting;
        // A signal while they started: they stop before serving.
        if (!signals.received()) running = Promise.all(inProcess.workers.map((w) => w.run()));
      }
      await budgetsToRunning?.();
      // With external workers, a queue nobody serves would leave the sweep waiting in silence.
      const unserved =
        flags.worker === 'external'
          ? warnWhileUnserved(client, env.temporal.namespace, neededQueues(env, config), {
              graceMs: 15_000,
              everyMs: 15_000,
              hint: (missing) => workerCommand(env, missing, flags.config),
              log: (line) => console.error(`start-sweep: ${line}`),
            })
          : undefined;
      const view = showSweepProgress(client, sweepId, flags.progress);
      const detached = signals.first.then(() => 'detached' as const);
      let result;
      // On a detach the wait for the result is cancelled before the connection closes: a long poll
      // cut by the close is retried by the SDK on the closed channel, which throws outside any handler.
      const waiting = new AbortController();
      // The SDK adds an abort listener to it for every RPC it makes under it, and never removes
      // it: one per long poll of the history (~20 s), which warned MaxListenersExceededWarning in
      // every longer sweep. A closure per poll is no leak worth the warning.
      setMaxListeners(0, waiting.signal);
      const finished = resultPatiently(client, workflowId, waiting.signal, env.temporal.address);
      try {
        const outcome = await Promise.race([finished, detached]);
        if (outcome === 'detached') {
          waiting.abort();
          await finished.catch(() => {});
          console.error(
            `\ndetached from sweep ${sweepId}; it keeps running on the server.\n` +
              `  follow it:  node bin/run.mjs scripts/sweep-status.ts ${sweepId} --watch   (needs a worker: npm run worker -- --sweep-config ${flags.config})\n` +
              `  or resume serving it here:  npm run sweep -- --config ${flags.config} --id ${sweepId}`,
          );
          return;
        }
        result = outcome;
      } finally {
        await unserved?.stop();
        await view.stop();
      }
      await printResults(env, config, bucket, sweepId, result, flags.outputDir);
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw new Error(`sweep failed: ${rootCauseMessage(err)}`);
      throw err;
    } finally {
      if (!inProcess) await closeUnused();
      if (inProcess) {
        stopWorkers(inProcess.workers);
        await running?.catch(() => {});
        await inProcess.close();
        if (signals?.received())
          console.error(
            `start-sweep: in-process workers stopped on ${signals.received()}: tasks in flight done or handed back, leases removed`,
          );
      }
    }
  } finally {
    await temporal?.close();
    s3.destroy();
  }
});

/** A finished sweep's results table, its --output-dir files and where its results and report are. */
async function printResults(
  env: ExploraConfig,
  config: SweepConfig,
  bucket: Bucket,
  sweepId: string,
  result: FinishedSweep,
  outputDir: string | undefined,
): Promise<void> {
  console.log(formatResultsTable(result.cells));
  for (const line of [...heldOnErrorsLines(result.cells), ...spentAgainstCaps(config, result.cells)]) console.log(line);
  if (outputDir !== undefined) console.log(`cell files: ${await writeCellFiles(bucket, sweepId, result.cells, outputDir)}`);
  console.log(`results: s3://${env.s3.bucket}/${result.resultsKey}`);
  console.log(`report: s3://${env.s3.bucket}/${result.reportKey} (locally: node bin/run.mjs scripts/report.ts ${sweepId})`);
  console.log(`Web UI: ${workflowUiLink(env, sweepWorkflowId(sweepId))}`);
}

/** gRPC codes of a Temporal that does not answer (UNAVAILABLE, DEADLINE_EXCEEDED): an outage, waited out. */
const OUTAGE_CODES = new Set([14, 4]);

function isOutage(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    if (isGrpcServiceError(e) && OUTAGE_CODES.has(e.code)) return true;
  return false;
}

/**
 * The sweep's result, waiting through Temporal outages: following a sweep is no reason to fail when
 * the server restarts (the sweep carries on where workers serve it). Said once when it stops
 * answering and once when it answers again.
 */
async function resultPatiently(client: Client, workflowId: string, signal: AbortSignal, address: string) {
  let down = false;
  for (;;) {
    try {
      const result = await client.connection.withAbortSignal(signal, () =>
        client.workflow.getHandle<typeof sweepWorkflow>(workflowId).result(),
      );
      if (down) console.error(`start-sweep: Temporal at ${address} answers again`);
      return result;
    } catch (err) {
      if (signal.aborted || !isOutage(err)) throw err;
      if (!down)
        console.error(
          `start-sweep: Temporal at ${address} does not answer (${(err as Error).message.split('\n')[0]}); ` +
            'waiting for it, retrying every 2 s (the sweep carries on wherever workers serve it; Ctrl-C detaches)',
        );
      down = true;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, 2_000);
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) throw new Error('detached');
    }
  }
}

/**
 * What the sweep's cells spent against each of the config's caps, said at the end: a cap can be
 * passed by the tasks that were running when it was reached, and a sweep that did so says by how much.
 */
function spentAgainstCaps(config: SweepConfig, cells: readonly CellSummary[]): string[] {
  const budgets = sweepBudgetsOf(config);
  if (!budgets) return [];
  const spent: Record<string, Spend> = {};
  for (const c of cells) {
    const model = String(c.cell.model);
    spent[model] = addSpend(spent[model] ?? NO_SPEND, {
      calls: c.cost.calls,
      promptTokens: c.cost.promptTokens,
      completionTokens: c.cost.completionTokens,
      tasks: c.tasks,
      ...batchSpend(c.cost.batchPromptTokens ?? 0, c.cost.batchCompletionTokens ?? 0),
    });
  }
  return describeSpentAgainstCaps(capUses(budgets, spent, pricesOf(config.models) ?? {}), TASK_WINDOW).map((l) => `budget ${l}`);
}

/**
 * A running sweep joined again takes the config's budgets (docs/sweeps/cost.md#budgets): raising the one
 * it is held at resumes it. A sweep started without a budget counts no spend, so none can be added.
 */
async function updateBudgets(client: Client, sweepId: string, budget: SweepBudgets | null): Promise<void> {
  const handle = client.workflow.getHandle<typeof sweepWorkflow>(sweepWorkflowId(sweepId));
  // A sweep whose spend ledger runs counts spend: told without a query, which needs a worker.
  const ledger = await client.workflow
    .getHandle(spendLedgerWorkflowId(sweepId))
    .describe()
    .then(
      (d) => d.status.name,
      () => null,
    );
  if (ledger === 'RUNNING') {
    await handle.signal(sweepSetBudgetSignal, budget);
    console.error(`sweep ${sweepId}: budgets set to the config's (${budget ? describeBudgets(budget) : 'none'})`);
    return;
  }
  const progress = await handle.query(sweepProgressQuery).catch((err: unknown) => {
    if (budget)
      console.error(
        `start-sweep: note: sweep ${sweepId} did not say whether it counts spend (${(err as Error).message.split('\n')[0]}); ` +
          'its budget: was not sent (a worker must serve the sweep: run this again without --no-wait, or with a worker running)',
      );
    return undefined;
  });
  if (progress === undefined) return;
  if (!progress || progress.pausedFor === undefined) {
    if (budget) console.error(`start-sweep: note: sweep ${sweepId} started before budgets existed; its budget: is not applied`);
    return;
  }
  if (!progress.countsSpend) {
    if (budget)
      console.error(
        `start-sweep: note: sweep ${sweepId} started without a budget, so it counts no spend; ` +
          'its budget: applies only when started anew (after it ends)',
      );
    return;
  }
  await handle.signal(sweepSetBudgetSignal, budget);
  console.error(`sweep ${sweepId}: budgets set to the config's (${budget ? describeBudgets(budget) : 'none'})`);
}

/** A running sweep joined again releases its cells held on errors (docs/sweeps/cost.md#cells-that-only-fail), saying which. */
async function releaseCells(client: Client, sweepId: string, cellIds: string[], stop: CellErrorStop | null): Promise<void> {
  for (const { id, hold } of await releaseHeldCells(client, sweepId, cellIds, stop))
    if (hold) console.error(`sweep ${sweepId}: cell ${id} released (it held for ${describeCellErrorHold(hold)})`);
}

/**
 * Refuses a namespace that lacks the sweeps' search attributes: the sweep's first workflow task
 * would fail on every attempt. Where the operator API cannot be asked (a Cloud namespace, say), a
 * note says so and the sweep starts.
 */
async function requireSearchAttributes(connection: Connection, namespace: string, address: string): Promise<void> {
  let missing;
  try {
    missing = await missingSearchAttributes(connection, namespace);
  } catch (err) {
    console.error(
      `start-sweep: note: could not list the search attributes of namespace ${namespace} (${(err as Error).message.split('\n')[0]}); starting anyway`,
    );
    return;
  }
  if (!missing.length) return;
  throw new Error(
    `namespace ${namespace} lacks the search attributes the sweeps use: ${missing.map((a) => `${a.name} (${a.type})`).join(', ')}. ` +
      `Register them with \`node bin/run.mjs scripts/register-search-attributes.ts\` (same TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE), or have an operator run:\n` +
      searchAttributeCommands(namespace, missing)
        .map((c) => `  ${c} --address ${address}`)
        .join('\n'),
  );
}

/**
 * Refuses a sweep whose models do not answer at all (nothing at the address, an unknown host): its
 * LLM tasks could only fail. A finished sweep needs no model (a re-run only reads its results).
 */
async function requireModelEndpoints(client: Client, sweepId: string, config: SweepConfig): Promise<void> {
  const status = await client.workflow
    .getHandle(sweepWorkflowId(sweepId))
    .describe()
    .then(
      (d) => d.status.name,
      () => null,
    );
  if (status === 'COMPLETED') return;
  const unanswered = await unansweredModels(config.models);
  if (unanswered.length)
    throw new Error(
      unanswered.map((u) => `models[${u.model}].base_url ${u.baseUrl}: nothing answers (${u.reason})`).join('\n') +
        '\n  start the model server (or fix base_url) and run this again; nothing was started',
    );
  // A name the endpoint does not serve would fail every request (a 404), after the start.
  const unknown = await unknownModelNames(config.models);
  if (unknown.length)
    throw new Error(
      unknown
        .map(
          (u) =>
            `models[${u.index}].model ${u.model} (model ${u.id}): ${u.baseUrl} serves no model of that name; ` +
            `it serves ${u.served.slice(0, 20).join(', ')}${u.served.length > 20 ? `, ... (${u.served.length} in all)` : ''} (GET ${u.baseUrl}/models)`,
        )
        .join('\n') + '\n  fix the model name and run this again; nothing was started',
    );
}

/** The queues a sweep's workflows and activities run on: its roles' and each model's LLM queue. */
function neededQueues(env: ExploraConfig, config: SweepConfig): WatchedQueue[] {
  return [
    { name: env.taskQueues.workflows, kind: 'workflow' },
    { name: env.taskQueues.storage, kind: 'activity' },
    { name: env.taskQueues.sandbox, kind: 'activity' },
    ...config.models.map((m) => ({ name: llmTaskQueue(env.taskQueues.llm, m.id), kind: 'activity' as const })),
  ];
}

/** The worker command that serves the missing queues. */
function workerCommand(env: ExploraConfig, missing: WatchedQueue[], configFile: string): string {
  const roles = new Set<string>();
  for (const q of missing) {
    if (q.name === env.taskQueues.workflows) roles.add('workflows');
    else if (q.name === env.taskQueues.storage) roles.add('storage');
    else if (q.name === env.taskQueues.sandbox) roles.add('sandbox');
    else roles.add('llm');
  }
  return `npm run worker -- --queues ${[...roles].join(',')}${roles.has('llm') ? ` --sweep-config ${configFile}` : ''}`;
}

program.parseAsync().catch((err: Error) => {
  console.error(`start-sweep: ${err.message}`);
  process.exit(1);
});
