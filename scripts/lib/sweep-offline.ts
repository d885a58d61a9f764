/**
 * A running sweep's progress when no worker serves it (the state a Ctrl-C leaves): its workflows
 * answer no query then, but Temporal holds their search attributes (cells done, samples executed,
 * pass@1 so far, why it is paused) and S3 the finished cells' summaries. Read from those alone,
 * with the commands that resume it.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { SA_CELL, SA_DONE, SA_KIND, SA_NAME, SA_PASS_AT_1, SA_PAUSED_FOR, SA_TOTAL } from '../../domain/config/searchAttributes.js';
import { parseStoredCellSummary } from '../../domain/sweep/finished.js';
import { cellSummaryKey } from '../../domain/sweep/keys.js';
import type { CellSummary } from '../../domain/sweep/results.js';
import { getText, type Bucket } from '../../infra/s3.js';
import { formatResultsTable } from './sweep-view.js';
import { CELL_HOLD_HINT } from '../../domain/sweep/cellErrors.js';

interface CellAttributes {
  cellId: string;
  status: string;
  startMs: number;
  done: number | undefined;
  total: number | undefined;
  passAt1: number | undefined;
  /** Why it holds on errors (docs/sweeps/cost.md#cells-that-only-fail); '' or undefined: it does not. */
  heldFor: string | undefined;
}

/** The cells' latest runs (a cell continues as new: one visibility row per run), by cell id. */
async function cellsOf(client: Client, sweepId: string): Promise<CellAttributes[]> {
  const latest = new Map<string, CellAttributes>();
  const query = `${SA_NAME.name} = "${sweepId}" AND ${SA_KIND.name} = "cell"`;
  for await (const wf of client.workflow.list({ query })) {
    const cellId = wf.typedSearchAttributes.get(SA_CELL);
    if (!cellId) continue;
    const row: CellAttributes = {
      cellId,
      status: wf.status.name,
      startMs: wf.startTime.getTime(),
      done: wf.typedSearchAttributes.get(SA_DONE),
      total: wf.typedSearchAttributes.get(SA_TOTAL),
      passAt1: wf.typedSearchAttributes.get(SA_PASS_AT_1),
      heldFor: wf.typedSearchAttributes.get(SA_PAUSED_FOR),
    };
    const seen = latest.get(cellId);
    if (!seen || row.startMs > seen.startMs) latest.set(cellId, row);
  }
  return [...latest.values()].sort((a, b) => a.cellId.localeCompare(b.cellId));
}

/** The lines sweep-status prints for a running sweep no worker answers for. `why`: how that was found. */
export async function offlineSweepLines(
  client: Client,
  bucket: Bucket,
  sweepId: string,
  description: WorkflowExecutionDescription,
  why: string,
): Promise<string[]> {
  const attrs = description.typedSearchAttributes;
  const pausedFor = attrs.get(SA_PAUSED_FOR) ?? '';
  const out = [
    `no worker answers for it (${why}): its progress as Temporal's search attributes and S3 hold it`,
    `cells: ${attrs.get(SA_DONE) ?? '?'}/${attrs.get(SA_TOTAL) ?? '?'} done${pausedFor ? ` (paused)` : ''}`,
  ];
  if (pausedFor) out.push(`paused for ${pausedFor}`);
  const cells = await cellsOf(client, sweepId);
  const finished: CellSummary[] = [];
  for (const c of cells) {
    const stored = await getText(bucket, cellSummaryKey(sweepId, c.cellId)).catch(() => null);
    const summary = stored === null ? null : parseStoredCellSummary(JSON.parse(stored));
    if (summary) finished.push(summary);
    const state = summary ? 'done' : c.status === 'RUNNING' ? 'running' : c.status.toLowerCase();
    const executed = c.total ? `, executed ${c.done ?? 0}/${c.total} samples, pass@1 so far ${(c.passAt1 ?? 0).toFixed(3)}` : '';
    out.push(`  ${c.cellId}: ${state}${executed}`);
    if (c.heldFor && state === 'running') out.push(`    ${c.heldFor}\n    ${CELL_HOLD_HINT}`);
  }
  if (finished.length) out.push('', 'finished cells:', formatResultsTable(finished));
  out.push('', 'to resume it, serve it: npm run sweep -- --config <its config file> --id ' + sweepId);
  out.push('  (or run workers: npm run worker -- --sweep-config <its config file>)');
  if (pausedFor.startsWith('budget')) out.push('  held by its budget: raise budget: in the config first; the same command then sends it');
  else if (pausedFor) out.push(`  paused by a user: node bin/run.mjs scripts/sweep-status.ts ${sweepId} --resume`);
  return out;
}
