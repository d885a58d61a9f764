/**
 * The two tables a sweep's results export to (scripts/export-tables.ts, docs/sweeps/results.md#results-as-tables):
 * one row per sample, one row per cell, over one sweep or many. Their columns are a stable,
 * documented schema: a column is added at the end, never renamed, retyped or dropped, and
 * TABLES_SCHEMA_VERSION goes up when one is added (each file carries it in its key-value metadata).
 * Families with scores beyond pass/fail keep them in `score` (JSON, the record's own shape), so a
 * new score kind needs no new column.
 */
import type { SampleRecord } from '../sweep/records.js';
import type { MethodCost } from '../methods/artifacts.js';
import { recordCost } from '../sweep/records.js';
import { answersCost, type ModelPrice } from '../sweep/price.js';

export const TABLES_SCHEMA_VERSION = 1;

/** A column's type as Parquet stores it: UTF-8 text, 64-bit integers, doubles, booleans, or JSON text. */
export type ColumnType = 'STRING' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'JSON';

export interface Column<Row> {
  name: string;
  type: ColumnType;
  /** Whether the column may hold nulls. */
  nullable: boolean;
  /** One line for the docs and `--help`. */
  doc: string;
  value(row: Row): string | number | boolean | null;
}

/** What every row of a cell shares: the sweep and the cell's factors, as the sweep's results.json names them. */
export interface CellContext {
  sweepId: string;
  cell: string;
  dataset: string;
  model: string;
  method: string;
  temperature: number;
  nSamples: number;
  /** The prompt template's name, when the sweep has several. */
  prompt: string | null;
  /** The model's price in the sweep's config, when it names one. */
  price: ModelPrice | null;
}

export interface SampleRow {
  context: CellContext;
  record: SampleRecord;
  /** The record's cost, its method's steps included (recordCost), computed once for the row's four cost columns. */
  cost: MethodCost;
}

/** A sample's row of the samples table. */
export function sampleRow(context: CellContext, record: SampleRecord): SampleRow {
  return { context, record, cost: recordCost(record) };
}

const cost = (row: SampleRow): number | null =>
  row.context.price
    ? answersCost(row.context.price, {
        promptTokens: row.cost.prompt_tokens,
        completionTokens: row.cost.completion_tokens,
        batchPromptTokens: row.cost.batch_prompt_tokens ?? 0,
        batchCompletionTokens: row.cost.batch_completion_tokens ?? 0,
      }).amount
    : null;

/** The factors of a cell, first in both tables. */
function cellColumns<Row>(context: (row: Row) => CellContext): Array<Column<Row>> {
  return [
    { name: 'sweep', type: 'STRING', nullable: false, doc: 'the sweep id', value: (r) => context(r).sweepId },
    { name: 'cell', type: 'STRING', nullable: false, doc: "the cell's id within its sweep", value: (r) => context(r).cell },
    { name: 'dataset', type: 'STRING', nullable: false, doc: "the dataset's name in the sweep config", value: (r) => context(r).dataset },
    { name: 'model', type: 'STRING', nullable: false, doc: "the model's id in the sweep config", value: (r) => context(r).model },
    {
      name: 'method',
      type: 'STRING',
      nullable: false,
      doc: 'the method (direct, rag, exploracoder, ...)',
      value: (r) => context(r).method,
    },
    { name: 'temperature', type: 'DOUBLE', nullable: false, doc: 'the sampling temperature', value: (r) => context(r).temperature },
    {
      name: 'prompt',
      type: 'STRING',
      nullable: true,
      doc: "the prompt template's name, when the sweep has several",
      value: (r) => context(r).prompt,
    },
  ];
}

/** One row per sample. */
export const SAMPLE_COLUMNS: ReadonlyArray<Column<SampleRow>> = [
  ...cellColumns<SampleRow>((r) => r.context),
  { name: 'task_id', type: 'STRING', nullable: false, doc: "the task's id in its dataset", value: (r) => r.record.task_id },
  { name: 'task_index', type: 'INT64', nullable: false, doc: "the task's place in the dataset, from 0", value: (r) => r.record.task_index },
  {
    name: 'sample_index',
    type: 'INT64',
    nullable: false,
    doc: "the sample's index within its task, from 0",
    value: (r) => r.record.sample_index,
  },
  {
    name: 'status',
    type: 'STRING',
    nullable: false,
    doc: 'passed, failed, error, timeout, ..., llm_error, not_executed or scored (text-scored)',
    value: (r) => r.record.status,
  },
  { name: 'passed', type: 'BOOLEAN', nullable: false, doc: 'what pass@k counts', value: (r) => r.record.passed },
  { name: 'success', type: 'BOOLEAN', nullable: false, doc: 'what success@k counts (ran to its tests)', value: (r) => r.record.success },
  {
    name: 'score',
    type: 'JSON',
    nullable: true,
    doc: "the family's score beyond pass/fail (named scores, test cases, PAL's answer, text statistics), as the record holds it",
    value: (r) => (r.record.score ? JSON.stringify(r.record.score) : null),
  },
  {
    name: 'exception_type',
    type: 'STRING',
    nullable: true,
    doc: "the run's exception, when it raised or failed",
    value: (r) => r.record.exception?.type ?? null,
  },
  { name: 'exception', type: 'STRING', nullable: true, doc: "the exception's message", value: (r) => r.record.exception?.message ?? null },
  { name: 'llm_error', type: 'STRING', nullable: true, doc: 'why the answer could not be had', value: (r) => r.record.llm_error ?? null },
  {
    name: 'finish_reason',
    type: 'STRING',
    nullable: true,
    doc: "the answer's finish reason (stop, length, ...), when the record has one",
    value: (r) => {
      const reason = (r.record as { finish_reason?: unknown }).finish_reason;
      return typeof reason === 'string' ? reason : null;
    },
  },
  {
    name: 'duration_ms',
    type: 'DOUBLE',
    nullable: false,
    doc: "the program's run time in the sandbox",
    value: (r) => r.record.duration_ms,
  },
  {
    name: 'calls',
    type: 'INT64',
    nullable: false,
    doc: "LLM calls, the task's method steps included on sample 0",
    value: (r) => r.cost.calls,
  },
  {
    name: 'prompt_tokens',
    type: 'INT64',
    nullable: false,
    doc: 'prompt tokens, method steps included on sample 0',
    value: (r) => r.cost.prompt_tokens,
  },
  {
    name: 'completion_tokens',
    type: 'INT64',
    nullable: false,
    doc: 'completion tokens, method steps included on sample 0',
    value: (r) => r.cost.completion_tokens,
  },
  {
    name: 'cost',
    type: 'DOUBLE',
    nullable: true,
    doc: "the tokens at the model's price (those a provider batch answered at its batch price), when the config names one",
    value: cost,
  },
  {
    name: 'currency',
    type: 'STRING',
    nullable: true,
    doc: "the price's currency",
    value: (r) => r.context.price?.currency ?? null,
  },
  {
    name: 'solution',
    type: 'STRING',
    nullable: false,
    doc: "the program the sample stands for (bigcode's generation)",
    value: (r) => r.record.solution,
  },
];

/** A cell's summary, as its sweep's results.json holds it. */
export interface CellRow {
  context: CellContext;
  tasks: number;
  samples: number;
  passAtK: Record<string, number>;
  /** The cell's scores beyond pass@k (voting, BLEU, test-case accuracy, ...), as its results.json writes them. */
  scores: unknown;
  /** A run cell's figures also scored from the text (Spider's BLEU beside execution accuracy). */
  alsoText: unknown;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the tokens, those answered in provider batches (at the batch price); absent: none. */
  batchPromptTokens?: number;
  batchCompletionTokens?: number;
  wallSeconds: number | null;
}

/** One row per cell. */
export const CELL_COLUMNS: ReadonlyArray<Column<CellRow>> = [
  ...cellColumns<CellRow>((r) => r.context),
  { name: 'n_samples', type: 'INT64', nullable: false, doc: 'samples asked per task', value: (r) => r.context.nSamples },
  { name: 'tasks', type: 'INT64', nullable: false, doc: 'tasks with at least one record', value: (r) => r.tasks },
  { name: 'samples', type: 'INT64', nullable: false, doc: 'sample records exported', value: (r) => r.samples },
  {
    name: 'pass_at_k',
    type: 'JSON',
    nullable: false,
    doc: 'pass@k by k, as results.json gives it ({"pass@1": ...})',
    value: (r) => JSON.stringify(r.passAtK),
  },
  {
    name: 'pass_at_1',
    type: 'DOUBLE',
    nullable: true,
    doc: 'pass@1, when the cell reports it',
    value: (r) => r.passAtK['pass@1'] ?? null,
  },
  {
    name: 'scores',
    type: 'JSON',
    nullable: true,
    doc: "the cell's scores beyond pass@k, as its results.json writes them",
    value: (r) => (r.scores === undefined || r.scores === null ? null : JSON.stringify(r.scores)),
  },
  {
    name: 'also_text',
    type: 'JSON',
    nullable: true,
    doc: "a run cell's figures also scored from the samples' text (Spider's BLEU beside execution accuracy)",
    value: (r) => (r.alsoText === undefined || r.alsoText === null ? null : JSON.stringify(r.alsoText)),
  },
  { name: 'calls', type: 'INT64', nullable: false, doc: 'LLM calls, method steps included', value: (r) => r.calls },
  { name: 'prompt_tokens', type: 'INT64', nullable: false, doc: 'prompt tokens', value: (r) => r.promptTokens },
  { name: 'completion_tokens', type: 'INT64', nullable: false, doc: 'completion tokens', value: (r) => r.completionTokens },
  {
    name: 'cost',
    type: 'DOUBLE',
    nullable: true,
    doc: "the tokens at the model's price (those a provider batch answered at its batch price), when the config names one",
    value: (r) => (r.context.price ? answersCost(r.context.price, r).amount : null),
  },
  { name: 'currency', type: 'STRING', nullable: true, doc: "the price's currency", value: (r) => r.context.price?.currency ?? null },
  { name: 'wall_seconds', type: 'DOUBLE', nullable: true, doc: "the cell's wall time", value: (r) => r.wallSeconds },
];
