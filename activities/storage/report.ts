/**
 * The sweep report: loads what a finished sweep left in S3 (config, results, each cell's results and
 * the records and prompts of the tasks the drill-down shows, and for ExploraCoder- and CAPIR-family
 * cells every task's trace, for the paper's analyses) and renders it with domain/report into
 * one self-contained HTML file, stored at sweeps/<id>/report.html (activity) or returned (CLI).
 *
 * Large sweeps are read sparingly: the drill-down shows a capped sample of tasks per dataset, and
 * only the record shards and dataset lines of those tasks are read.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { SweepProblemSchema } from '../../domain/datasets/problems.js';
import { familyOf } from '../../domain/families/registry.js';
import { StoredCorpusScoreSchema } from '../../domain/scoring/textScoreKind.js';
import { CellKindScoresSchema, kindOfCell, perTaskShape } from '../../domain/scoring/scoreKinds.js';
import { datasetOutcomes, datasetsOf, selectDrillTasks, selectSamples } from '../../domain/report/analysis.js';
import { renderSweepReport, type RenderOptions } from '../../domain/report/html.js';
import { hasPaperAnalyses } from '../../domain/report/paperAnalyses.js';
import { ExplorationTraceSchema, type ExplorationTrace } from '../../domain/report/trace.js';
import { CellProvenanceSchema } from '../../domain/sweep/provenance.js';
import { StoredCellFactorsSchema } from './storedCellFactors.js';
import {
  ReportSampleSchema,
  sweepReportKey,
  type DatasetDrilldown,
  type ReportCell,
  type ReportProblem,
  type ReportSample,
  type StoredSweepConfig,
  type SweepReportData,
} from '../../domain/report/model.js';
import { cellFileKey, cellRecordsPrefix, sweepConfigKey, sweepDatasetKey, sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText, isNotFound, listKeys, putObject, type Bucket } from '../../infra/s3.js';
import { cellPaperAnalyses } from './paperAnalyses.js';
import { issuesLine } from '../../domain/datasets/issues.js';

export interface ReportLoadOptions {
  /** Tasks per dataset the drill-down shows (a stratified sample beyond). Default 40. */
  maxDrillTasks?: number;
  /** Samples per task and cell the drill-down shows. Default 8. */
  maxSamplesPerCell?: number;
  /** Rendering limits (text clipping, outcome table rows). */
  render?: Omit<RenderOptions, 'chartLibrary'>;
  /** Called as work advances (the activity heartbeats). */
  onProgress?: (what: string) => void;
  /** The report's "generated" time. Default: now. */
  now?: () => Date;
}

export interface BuildSweepReportInput {
  sweepId: string;
}

let chartLibrary: string | undefined;

/** Chart.js's UMD build from node_modules, read once: the report inlines it so it works offline. */
export function chartJsSource(): string {
  if (chartLibrary === undefined) {
    const entry = createRequire(import.meta.url).resolve('chart.js'); // <pkg>/dist/chart.cjs
    const file = path.join(path.dirname(entry), 'chart.umd.min.js');
    const src = readFileSync(file, 'utf8');
    if (!/Chart\.js v\d/.test(src.slice(0, 200))) throw new Error(`${file} does not look like Chart.js's UMD build`);
    chartLibrary = src;
  }
  return chartLibrary;
}

// ---------------------------------------------------------------------------------------------
// What is read from S3

/** A metric's 95% interval over tasks; summaries stored before intervals existed have none. */
const IntervalsSchema = z
  .record(z.string(), z.object({ stderr: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() }))
  .optional();

const CellSummarySchema = z.object({
  cell: StoredCellFactorsSchema,
  tasks: z.number().int(),
  samples: z.number().int(),
  passAtK: z.record(z.string(), z.number()),
  successAtK: z.record(z.string(), z.number()),
  passAtKCI: IntervalsSchema,
  successAtKCI: IntervalsSchema,
  droppedK: z.array(z.string()).default([]),
  statusCounts: z.record(z.string(), z.number()),
  /** Absent when no answer was cut, and from summaries stored before it existed. */
  cutAtMaxTokens: z.number().int().positive().optional(),
  cost: z.object({
    calls: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    sandboxRuns: z.number(),
    wallSeconds: z.number(),
  }),
  resultsKey: z.string(),
  /** A cell's score kind's figures (CellExtraScores), validated by the kind's schema (ScoreKind.cellSchema); absent for the others. */
  scores: CellKindScoresSchema.optional(),
  /** A run cell's samples also scored from their text (Spider: BLEU beside execution accuracy); absent for the others. */
  alsoText: StoredCorpusScoreSchema.optional(),
});

const SweepResultsSchema = z.object({
  sweep_id: z.string(),
  config_sha256: z.string().optional(),
  cells: z.array(CellSummarySchema),
});

const CellResultsSchema = z.looseObject({
  per_task: z.array(
    z.object({
      task_id: z.string(),
      n: z.number().int(),
      c: z.number().int(),
      s: z.number().int(),
      pipeline_length: z.number().int().optional(),
      // The fields of the cell's score kind (ScoreKind.perTaskShape).
      ...perTaskShape(),
    }),
  ),
  pass_rate_by_pipeline_length: z.record(z.string(), z.object({ tasks: z.number(), pass_rate: z.number() })).optional(),
  provenance: CellProvenanceSchema.optional(),
});

const StoredConfigSchema = z.looseObject({ sweep_id: z.string().optional(), config_sha256: z.string().optional(), config: z.unknown() });

function parseJson<T>(text: string, schema: z.ZodType<T>, key: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`${key}: not valid JSON (${(err as Error).message})`, 'InvalidSweepFile');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(`${key}: ${issuesLine(parsed.error, { root: '(file)' })}`, 'InvalidSweepFile');
  }
  return parsed.data;
}

function parseRecords(text: string, key: string): ReportSample[] {
  const out: ReportSample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line) out.push(parseJson(line, ReportSampleSchema, `${key}:${i + 1}`));
  }
  return out;
}

/**
 * The records of the wanted tasks of one cell. A cell's shard i holds the tasks
 * [i * t, (i + 1) * t) for a fixed t (the last shard may hold fewer), so after reading shard 0 only
 * the shards of the wanted tasks are read; if a shard does not hold what that predicts, every shard
 * is read.
 */
async function recordsOfTasks(
  bucket: Bucket,
  sweepId: string,
  cellId: string,
  wanted: ReadonlySet<number>,
  progress: (what: string) => void,
): Promise<Map<number, ReportSample[]>> {
  const byTask = new Map<number, ReportSample[]>();
  if (!wanted.size) return byTask;
  const shardKeys = new Map<number, string>();
  for await (const key of listKeys(bucket, cellRecordsPrefix(sweepId, cellId))) {
    const m = /shard-(\d+)\.jsonl$/.exec(key);
    if (m) shardKeys.set(Number(m[1]), key);
  }
  const read = new Set<number>();
  const take = async (shard: number) => {
    if (read.has(shard)) return [];
    read.add(shard);
    const key = shardKeys.get(shard);
    if (!key) return [];
    const text = await getText(bucket, key);
    progress(key);
    const rows = text === null ? [] : parseRecords(text, key);
    for (const r of rows) {
      if (!wanted.has(r.task_index)) continue;
      const list = byTask.get(r.task_index) ?? [];
      list.push(r);
      byTask.set(r.task_index, list);
    }
    return rows;
  };
  const first = await take(0);
  const perShard = first.length ? Math.max(...first.map((r) => r.task_index)) + 1 : 0;
  if (perShard > 0) {
    for (const t of [...wanted].sort((a, b) => a - b)) await take(Math.floor(t / perShard));
  }
  if ([...wanted].some((t) => !byTask.has(t))) {
    for (const shard of [...shardKeys.keys()].sort((a, b) => a - b)) await take(shard);
  }
  // Multi-step methods keep one trace per task, referenced by its samples' records.
  const traces = new Map<string, ExplorationTrace | null>();
  for (const list of byTask.values()) {
    for (const r of list) {
      if (!r.trace_key || r.trace) continue;
      if (!traces.has(r.trace_key)) {
        const text = await getText(bucket, r.trace_key);
        traces.set(r.trace_key, text === null ? null : parseJson(text, ExplorationTraceSchema, r.trace_key));
      }
      const trace = traces.get(r.trace_key);
      if (trace) r.trace = trace;
    }
  }
  return byTask;
}

/** The lines of the wanted tasks of a sweep's dataset copy (one problem per line, in task order), streamed. */
async function problemsOfTasks(bucket: Bucket, key: string, wanted: ReadonlySet<number>): Promise<Map<number, ReportProblem>> {
  const out = new Map<number, ReportProblem>();
  if (!wanted.size) return out;
  let body: Readable;
  try {
    const res = await bucket.s3.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }));
    body = res.Body as Readable;
  } catch (err) {
    if (isNotFound(err)) return out;
    throw err;
  }
  const last = Math.max(...wanted);
  const lines = createInterface({ input: body, crlfDelay: Infinity });
  let index = 0;
  try {
    for await (const line of lines) {
      if (wanted.has(index)) {
        const p = parseJson(line, SweepProblemSchema, `${key}:${index + 1}`);
        const pipelineLength = familyOf(p).pipelineLength(p);
        out.set(index, {
          task_index: index,
          task_id: p.task_id,
          prompt: p.prompt,
          entry_point: p.entry_point,
          ...(pipelineLength !== undefined ? { pipeline_length: pipelineLength } : {}),
        });
      }
      if (index >= last) break;
      index++;
    }
  } finally {
    lines.close();
    body.destroy();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Loading and building

/** Everything the report shows, read from S3. Throws (non-retryable) when the sweep has no results. */
export async function loadSweepReportData(bucket: Bucket, sweepId: string, opts: ReportLoadOptions = {}): Promise<SweepReportData> {
  const progress = opts.onProgress ?? (() => {});
  const maxTasks = opts.maxDrillTasks ?? 40;
  const maxSamples = opts.maxSamplesPerCell ?? 8;
  const notes: string[] = [];

  const resultsKey = sweepResultsKey(sweepId);
  const resultsText = await getText(bucket, resultsKey);
  if (resultsText === null) {
    throw ApplicationFailure.nonRetryable(
      `sweep ${sweepId} has no results: s3://${bucket.name}/${resultsKey} does not exist (has the sweep finished?)`,
      'SweepResultsMissing',
    );
  }
  const results = parseJson(resultsText, SweepResultsSchema, resultsKey);
  const configText = await getText(bucket, sweepConfigKey(sweepId));
  const config: StoredSweepConfig | null =
    configText === null ? null : (parseJson(configText, StoredConfigSchema, sweepConfigKey(sweepId)) as StoredSweepConfig);
  progress('results');

  const cells: ReportCell[] = [];
  for (const summary of results.cells) {
    const id = summary.cell.cell;
    const key = summary.resultsKey || cellFileKey(sweepId, id, 'results.json');
    const text = await getText(bucket, key);
    if (text === null) notes.push(`Cell ${id}: ${key} is missing; its per-task outcomes and curves are left out.`);
    const detail = text === null ? null : parseJson(text, CellResultsSchema, key);
    // A cell whose samples do not run (scored from their text) passes nothing by design: no pass@k curves, outcomes or comparisons of its counts.
    const runs = summary.scores === undefined || kindOfCell(summary.scores).runs;
    cells.push({
      id,
      dataset: summary.cell.dataset,
      model: summary.cell.model,
      method: summary.cell.method,
      temperature: summary.cell.temperature,
      nSamples: summary.cell.n_samples,
      ...(summary.cell.prompt_template ? { promptTemplate: summary.cell.prompt_template } : {}),
      ...(summary.cell.prompt === undefined ? {} : { promptName: summary.cell.prompt }),
      tasks: summary.tasks,
      samples: summary.samples,
      passAtK: summary.passAtK,
      successAtK: summary.successAtK,
      ...(summary.passAtKCI ? { passAtKCI: summary.passAtKCI } : {}),
      ...(summary.successAtKCI ? { successAtKCI: summary.successAtKCI } : {}),
      droppedK: summary.droppedK,
      statusCounts: summary.statusCounts,
      ...(summary.cutAtMaxTokens ? { cutAtMaxTokens: summary.cutAtMaxTokens } : {}),
      ...(summary.scores ? { scores: summary.scores } : {}),
      ...(summary.alsoText ? { alsoText: summary.alsoText } : {}),
      cost: summary.cost,
      perTask: runs ? (detail?.per_task ?? []) : [],
      ...(!runs && detail ? { textPerTask: detail.per_task } : {}),
      ...(detail?.pass_rate_by_pipeline_length ? { passRateByPipelineLength: detail.pass_rate_by_pipeline_length } : {}),
      ...(detail?.provenance ? { provenance: detail.provenance } : {}),
      // The same loader and computation as scripts/paper-analyses.ts.
      ...(detail && hasPaperAnalyses(summary.cell.method)
        ? { paperAnalyses: await cellPaperAnalyses(bucket, sweepId, id, detail.per_task) }
        : {}),
    });
    progress(key);
  }

  const drilldown: DatasetDrilldown[] = [];
  for (const dataset of datasetsOf(cells)) {
    const outcomes = datasetOutcomes(dataset, cells);
    const selection = selectDrillTasks(outcomes, maxTasks);
    const wanted = new Set(selection.taskIndices);
    const problems = await problemsOfTasks(bucket, sweepDatasetKey(sweepId, dataset), wanted);
    if (wanted.size && !problems.size)
      notes.push(`Dataset ${dataset}: the sweep's copy ${sweepDatasetKey(sweepId, dataset)} is missing; prompts are not shown.`);
    progress(`dataset ${dataset}`);
    const mine = cells.filter((c) => c.dataset === dataset);
    const records = new Map<string, Map<number, ReportSample[]>>();
    for (const c of mine) records.set(c.id, await recordsOfTasks(bucket, sweepId, c.id, wanted, progress));
    let samplesCut = false;
    const tasks = selection.taskIndices.map((taskIndex) => {
      const problem: ReportProblem = problems.get(taskIndex) ?? {
        task_index: taskIndex,
        task_id: outcomes.tasks[taskIndex]?.taskId ?? `#${taskIndex}`,
        prompt: '(prompt not available)',
      };
      return {
        problem,
        cells: mine.map((c) => {
          const all = records.get(c.id)?.get(taskIndex) ?? [];
          const shown = selectSamples(all, maxSamples);
          if (shown.length < all.length) samplesCut = true;
          return { cellId: c.id, samples: shown, total: all.length };
        }),
      };
    });
    const notesOf = [
      selection.note,
      samplesCut ? `At most ${maxSamples} samples are shown per task and cell: the first of each status seen, then the rest in order.` : '',
    ].filter(Boolean);
    drilldown.push({ dataset, totalTasks: outcomes.tasks.length, tasks, note: notesOf.join(' ') });
  }

  return {
    sweepId,
    generatedAt: (opts.now ?? (() => new Date()))().toISOString(),
    config,
    ...(results.config_sha256 ? { configSha256: results.config_sha256 } : {}),
    cells,
    drilldown,
    ...(notes.length ? { notes } : {}),
  };
}

/** The report page of a finished sweep, from S3. */
export async function buildSweepReportHtml(bucket: Bucket, sweepId: string, opts: ReportLoadOptions = {}): Promise<string> {
  const data = await loadSweepReportData(bucket, sweepId, opts);
  return renderSweepReport(data, { ...opts.render, chartLibrary: chartJsSource() });
}

function heartbeat(what: string): void {
  try {
    Context.current().heartbeat(what);
  } catch {
    // Not inside an activity (e.g. called from a script): nothing to report to.
  }
}

export function createReportActivities(bucket: Bucket, opts: Omit<ReportLoadOptions, 'onProgress'> = {}) {
  return {
    /** Builds the sweep's report and stores it at sweeps/<id>/report.html; returns that key. Idempotent (rewrites the page). */
    async buildSweepReport(input: BuildSweepReportInput): Promise<string> {
      const html = await buildSweepReportHtml(bucket, input.sweepId, { ...opts, onProgress: heartbeat });
      const key = sweepReportKey(input.sweepId);
      await putObject(bucket, key, html, { contentType: 'text/html; charset=utf-8' });
      return key;
    },
  };
}
