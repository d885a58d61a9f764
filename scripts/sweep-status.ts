/** `tsx scripts/sweep-status.ts ID [--watch]`: progress and results of a running or finished sweep. */
import type { Client } from '@temporalio/client';
import { Command } from 'commander';
import { environmentHelp } from '../domain/config/env.js';
import { loadConfig } from '../infra/config.js';
import { connectTemporal } from '../infra/temporal/connection.js';
import { sweepIdProblem } from '../domain/sweep/config.js';
import { rootCauseMessage } from './lib/errors.js';
import { sweepResultsKey, sweepWorkflowId } from '../domain/sweep/keys.js';
import type { CellSummary } from '../domain/sweep/results.js';
import { getText, s3ClientFor } from '../infra/s3.js';
import { workflowUiLink } from './lib/dataset-remote.js';
import { batchesText, formatResultsTable, gatheredLine, showSweepProgress, spendLines, sweepSnapshot } from './lib/sweep-view.js';
import { sweepPauseSignal, sweepProgressQuery, sweepResumeSignal, type sweepWorkflow } from '../workflows/sweep.js';
import { cellHoldLine, heldOnErrorsLines, releaseHeldCells } from './lib/cell-holds.js';
import { offlineSweepLines } from './lib/sweep-offline.js';
import { queuesWithoutRecentPollers } from './lib/queue-pollers.js';

/** How long a progress query may take before the status is read from search attributes and S3. */
const QUERY_DEADLINE_MS = 5_000;

new Command('sweep-status')
  .argument('<id>', 'sweep id')
  .option('--watch', 'follow live progress until the sweep ends', false)
  .option('--pause', 'pause: no new shard or task starts; those started finish', false)
  .option('--resume', 'resume a paused sweep', false)
  .addHelpText('after', environmentHelp(['temporal', 's3']))
  .action(async (sweepId: string, flags: { watch: boolean; pause: boolean; resume: boolean }) => {
    if (flags.pause && flags.resume) throw new Error('--pause and --resume exclude each other');
    const problem = sweepIdProblem(sweepId);
    if (problem) throw new Error(problem);
    const env = loadConfig(process.env);
    const s3 = s3ClientFor(env);
    const storedResults = () => getText({ s3, name: env.s3.bucket }, sweepResultsKey(sweepId));
    const printStored = (stored: string) => console.log(formatResultsTable((JSON.parse(stored) as { cells: CellSummary[] }).cells));
    let closeTemporal: () => Promise<void>;
    let client: Client;
    try {
      ({ client, close: closeTemporal } = await connectTemporal(env, { connectTimeout: '5s' }));
    } catch (err) {
      try {
        // A finished sweep's results are in S3 alone: show them even with Temporal down.
        const stored = flags.pause || flags.resume || flags.watch ? null : await storedResults().catch(() => null);
        if (stored === null) {
          throw new Error(`${(err as Error).message}\nand sweep ${sweepId} has no results in S3 to show`);
        }
        console.log(`sweep ${sweepId}: finished (results from S3; Temporal at ${env.temporal.address} is unreachable)`);
        // Why: a refused key or certificate is not an outage, and should not pass for one.
        console.error(`sweep-status: ${(err as Error).message}`);
        printStored(stored);
        return;
      } finally {
        s3.destroy();
      }
    }
    try {
      const handle = client.workflow.getHandle<typeof sweepWorkflow>(sweepWorkflowId(sweepId));
      const description = await handle.describe().catch(() => undefined);
      if (!description) {
        const stored = await storedResults();
        if (stored === null) throw new Error(`no sweep ${sweepId}: no workflow ${sweepWorkflowId(sweepId)} and no results in S3`);
        printStored(stored);
        return;
      }
      if (flags.pause || flags.resume) {
        if (description.status.name !== 'RUNNING') throw new Error(`sweep ${sweepId} is ${description.status.name}, not running`);
        await handle.signal(flags.pause ? sweepPauseSignal : sweepResumeSignal);
        console.log(`sweep ${sweepId}: ${flags.pause ? 'pause' : 'resume'} requested`);
        // A resume also lets the cells held on errors go on (with the limits they had).
        if (flags.resume) {
          const cells = await client.connection
            .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(sweepProgressQuery))
            .then((p) => p.cells.filter((c) => c.state === 'running').map((c) => c.id))
            .catch(() => []);
          for (const { id, hold } of await releaseHeldCells(client, sweepId, cells, undefined))
            if (hold) console.log(`sweep ${sweepId}: cell ${id} released from its hold on errors`);
        }
      }
      console.log(`sweep ${sweepId}: ${description.status.name} — ${workflowUiLink(env, sweepWorkflowId(sweepId))}`);
      if (description.status.name === 'RUNNING') {
        if (flags.watch) {
          const view = showSweepProgress(client, sweepId, true);
          try {
            await handle.result();
          } finally {
            await view.stop();
          }
        } else {
          // A sweep no worker serves (the state a Ctrl-C leaves) answers no query: read what
          // Temporal and S3 hold instead of waiting for the query to time out.
          const unserved = await queuesWithoutRecentPollers(client, env.temporal.namespace, [
            { name: description.taskQueue, kind: 'workflow' },
          ]).catch(() => []);
          const snapshot = unserved.length
            ? (`no worker polls its task queue ${description.taskQueue}` as const)
            : await client.connection
                .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => sweepSnapshot(client, sweepId))
                .catch(
                  (err: unknown) =>
                    `its progress query got no answer in ${QUERY_DEADLINE_MS / 1000} s: ${(err as Error).message.split('\n')[0]}`,
                );
          if (typeof snapshot === 'string') {
            for (const line of await offlineSweepLines(client, { s3, name: env.s3.bucket }, sweepId, description, snapshot))
              console.log(line);
            return;
          }
          const { sweep, cells, gathered } = snapshot;
          console.log(`phase: ${sweep.phase}${sweep.paused ? ' (paused)' : ''}`);
          if (gatheredLine(gathered)) console.log(`  ${gatheredLine(gathered)}`);
          for (const line of spendLines(sweep, cells)) console.log(line);
          for (const c of sweep.cells) {
            const p = cells.get(c.id);
            console.log(
              `  ${c.id}: ${c.state}${p ? ` answered ${p.answered}/${p.samplesTotal}, executed ${p.samplesDone}/${p.samplesTotal} samples, tasks ${p.tasksAnswered}/${p.tasksTotal}, cut ${p.cut}, pass@1 so far ${p.passAt1SoFar?.toFixed(3) ?? '-'}, ${p.calls} calls` : ''}`,
            );
            if (p && batchesText(p)) console.log(`    ${batchesText(p)}`);
            if (p?.errorHold) console.log(`    ${cellHoldLine(p.errorHold)}`);
          }
          const finished = sweep.cells.flatMap((c) => (c.summary ? [c.summary] : []));
          if (finished.length) console.log(`\nfinished cells:\n${formatResultsTable(finished)}`);
          return;
        }
      }
      if (
        description.status.name === 'FAILED' ||
        description.status.name === 'TERMINATED' ||
        description.status.name === 'TIMED_OUT' ||
        description.status.name === 'CANCELLED'
      ) {
        const why = await handle.result().then(
          () => '',
          (err: unknown) => rootCauseMessage(err),
        );
        console.log(
          `${why ? `why: ${why}\n` : ''}what is done is kept: start it again with the same --id to resume (npm run sweep -- --config FILE --id ${sweepId})`,
        );
        return;
      }
      if (description.status.name === 'COMPLETED' || flags.watch) {
        const result = await handle.result();
        console.log(formatResultsTable(result.cells));
        for (const line of heldOnErrorsLines(result.cells)) console.log(line);
        console.log(`results: s3://${env.s3.bucket}/${result.resultsKey}`);
      }
    } finally {
      s3.destroy();
      await closeTemporal();
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`sweep-status: ${err.message}`);
    process.exit(1);
  });
