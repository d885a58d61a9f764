/**
 * What the ExploraCoder paper's analyses read from a finished sweep: each task's stored trace
 * (`sweeps/<id>/cells/<cell>/traces/<i>.json`) beside its final pass counts. The one loader behind
 * `scripts/paper-analyses.ts` and the HTML report's analyses section; the computation is
 * domain/report/paperAnalyses.ts, so the two show the same numbers.
 */
import { ApplicationFailure } from '@temporalio/common';
import { paperAnalyses, type PaperAnalyses, type TaskEvidence } from '../../domain/report/paperAnalyses.js';
import { ExplorationTraceSchema, type ExplorationTrace } from '../../domain/report/trace.js';
import { cellTraceKey } from '../../domain/sweep/keys.js';
import { getText, type Bucket } from '../../infra/s3.js';

/** A task's final samples and how many passed (a cell's results.json `per_task[i]`). */
export interface TaskCounts {
  n: number;
  c: number;
}

/** Trace reads in flight at once: a cell of thousands of tasks is read in seconds, not minutes. */
const READS_AT_ONCE = 16;

async function traceOf(bucket: Bucket, sweepId: string, cellId: string, taskIndex: number): Promise<ExplorationTrace | null> {
  const key = cellTraceKey(sweepId, cellId, taskIndex);
  const text = await getText(bucket, key);
  if (text === null) return null;
  const where = `sweep ${sweepId} cell ${cellId} task ${taskIndex}: s3://${bucket.name}/${key}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`${where} is not JSON (${(err as Error).message})`, 'InvalidSweepFile');
  }
  const parsed = ExplorationTraceSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw ApplicationFailure.nonRetryable(
      `${where} is not a trace: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      'InvalidSweepFile',
    );
  }
  return parsed.data;
}

/** Each task of a cell: its trace (null when none was stored) and its pass counts, in task order. */
export async function cellEvidence(
  bucket: Bucket,
  sweepId: string,
  cellId: string,
  perTask: readonly TaskCounts[],
): Promise<TaskEvidence[]> {
  const out = new Array<TaskEvidence>(perTask.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(READS_AT_ONCE, perTask.length) }, async () => {
    while (next < perTask.length) {
      const index = next++;
      out[index] = { task_index: index, trace: await traceOf(bucket, sweepId, cellId, index), n: perTask[index]!.n, c: perTask[index]!.c };
    }
  });
  await Promise.all(lanes);
  return out;
}

/** The paper's analyses of one cell, from its stored traces and per-task pass counts. */
export async function cellPaperAnalyses(
  bucket: Bucket,
  sweepId: string,
  cellId: string,
  perTask: readonly TaskCounts[],
): Promise<PaperAnalyses> {
  return paperAnalyses(await cellEvidence(bucket, sweepId, cellId, perTask));
}
