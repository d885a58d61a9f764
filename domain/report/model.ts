/**
 * What a sweep report is made of: plain data, loaded from S3 by activities/storage/report.ts (or built by a
 * test) and turned into one HTML file by html.ts.
 */
import { z } from 'zod';
import { SampleRecordSchema } from '../sweep/records.js';
import type { CellScores } from '../sweep/results.js';
import type { PaperAnalyses } from './paperAnalyses.js';
import type { CellProvenance } from '../sweep/provenance.js';
import { ExplorationTraceSchema } from './trace.js';
import type { PromptTemplate } from '../methods/promptTemplate.js';

/** Where a sweep's report is stored, beside its results.json. */
export const sweepReportKey = (sweepId: string) => `sweeps/${sweepId}/report.html`;

/** A sample record as stored, with the optional exploration trace of methods that explore. */
export const ReportSampleSchema = SampleRecordSchema.extend({ trace: ExplorationTraceSchema.optional() });
export type ReportSample = z.infer<typeof ReportSampleSchema>;

export interface PerTaskCounts {
  task_id: string;
  /** samples */
  n: number;
  /** passed */
  c: number;
  /** succeeded (ran to the end of the test or stopped on an assertion) */
  s: number;
  pipeline_length?: number;
  /** The fields of the cell's score kind (ScoreKind.perTaskShape: evalplus's `scores`, PAL's `answers`, a text-scored task's `text`...). */
  [kindField: string]: unknown;
}

export interface ReportCell extends CellScores {
  id: string;
  dataset: string;
  model: string;
  method: string;
  temperature: number;
  nSamples: number;
  /** Indexed by task index (the order of the sweep's copy of the dataset). */
  perTask: PerTaskCounts[];
  /**
   * A text-scored cell's per-task statistics, for the pairwise comparisons only: its perTask is empty
   * (it passes nothing by design, so no curves or outcomes). Absent for other cells.
   */
  textPerTask?: PerTaskCounts[];
  /**
   * The prompts the cell was asked with: its model's template, or 'default' for the named default
   * prompts. Absent for loaded generations and for results stored before templates were recorded.
   */
  promptTemplate?: PromptTemplate | 'default';
  /** The cell's point on the sweep's `prompts:` axis; absent without one. */
  promptName?: string;
  /** PBE World datasets: mean c/n of the tasks of each hidden pipeline length. */
  passRateByPipelineLength?: Record<string, { tasks: number; pass_rate: number }>;
  /**
   * The ExploraCoder paper's analyses of the cell (Table 6's cost, p1/p2, CoAE success vs pass),
   * from its stored traces: ExploraCoder- and CAPIR-family cells only (hasPaperAnalyses).
   */
  paperAnalyses?: PaperAnalyses;
  /** Where the cell's numbers come from (its results.json); absent from results stored before it was recorded. */
  provenance?: CellProvenance;
}

export interface ReportProblem {
  task_index: number;
  task_id: string;
  prompt: string;
  entry_point?: string;
  pipeline_length?: number;
}

export interface DrillCellSamples {
  cellId: string;
  /** The samples shown (at most the cap), in sample order. */
  samples: ReportSample[];
  /** Samples the cell has for this task. */
  total: number;
}

export interface DrillTask {
  problem: ReportProblem;
  cells: DrillCellSamples[];
}

export interface DatasetDrilldown {
  dataset: string;
  /** Tasks of the dataset (as scored by its cells). */
  totalTasks: number;
  /** The tasks shown, in task order. */
  tasks: DrillTask[];
  /** How the tasks and samples shown were chosen, for the page (empty when everything is shown). */
  note: string;
}

export interface StoredSweepConfig {
  sweep_id?: string;
  config_sha256?: string;
  config: unknown;
}

export interface SweepReportData {
  sweepId: string;
  /** ISO time the report was built (passed in: rendering is pure). */
  generatedAt: string;
  /** sweeps/<id>/config.json as stored by the CLI, or null when the sweep has none. */
  config: StoredSweepConfig | null;
  configSha256?: string;
  cells: ReportCell[];
  drilldown: DatasetDrilldown[];
  /** Anything the loader wants said at the top of the page (e.g. missing files). */
  notes?: string[];
}
