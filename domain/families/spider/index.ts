/**
 * Spider (Yu et al. 2018), text-to-SQL, scored by BLEU as bigcode-evaluation-harness documents it:
 * bigcode's docs list Spider beside CoNaLa and Concode (two-shot, "Answer the following
 * instructions in a one line SQL query:", stop at a newline, BLEU) but its harness has no Spider
 * task file, only the two examples (few_shot_examples/spider_few_shot_prompts.json, in its
 * history); explora runs it exactly as bigcode runs CoNaLa with those: the validation split (1,034
 * rows: db_id, query, question, ...; Hugging Face's xlangai/spider Parquet, or Spider's dev.json),
 * the question stripped, bigcode's corpus BLEU (max order 4, smoothed, 13a tokens) of each task's
 * first sample against the row's `query`. Each problem keeps its `db_id` (the database its query
 * runs on).
 */
import { z } from 'zod';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema } from '../entry.js';
import {
  ONE_LINE_STOP_WORDS,
  OneLineRowsFileSchema,
  oneLineChecking,
  oneLineProblems,
  oneLineRows,
  oneLineSolution,
  twoShotPrompt,
} from '../oneLine.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { TEXT_SCORED_STEPS } from '../textScored.js';
import type { DefinedFamily, ProblemOf } from '../types.js';

/** bigcode's few_shot_examples/spider_few_shot_prompts.json (removed from its tree in Dec 2022 with the other unused prompts). */
export const SPIDER_EXAMPLES = {
  instruction1: 'How many heads of the departments are older than 56 ?',
  instruction2: 'List the name, born state and age of the heads of departments ordered by age.',
  solution1: 'SELECT count(*) FROM head WHERE age  >  56',
  solution2: 'SELECT name ,  born_state ,  age FROM head ORDER BY age',
} as const;

/** The instruction bigcode's docs give for its one-line SQL task. */
export const SPIDER_INSTRUCTION = 'Answer the following instructions in a one line SQL query:\n';

export const SpiderEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('spider'),
  /** The validation split: Hugging Face's Parquet, JSON Lines, or Spider's dev.json; local or s3://. */
  path: OneLineRowsFileSchema,
});

const RowSchema = z.looseObject({ db_id: z.string().min(1), query: z.string(), question: z.string() });

/** What a Spider problem carries beyond the core: the database its query runs on. */
export const SpiderPayloadSchema = z.object({ db_id: z.string() });
type SpiderProblem = ProblemOf<z.output<typeof SpiderPayloadSchema>>;

export function spiderPrompt(question: string): string {
  return twoShotPrompt(SPIDER_INSTRUCTION, pyStrip(question), SPIDER_EXAMPLES);
}

function load(text: string, source: string): SpiderProblem[] {
  const rows = oneLineRows(text, RowSchema, source);
  const problems = oneLineProblems(
    'spider',
    'Spider',
    rows.map(({ line, row }) => ({ line, row: { prompt: spiderPrompt(row.question), reference: row.query } })),
    source,
  );
  return problems.map((p, i) => ({ ...p, db_id: rows[i]!.row.db_id }));
}

export const spiderFamily: DefinedFamily<'spider', typeof SpiderEntrySchema, z.output<typeof SpiderPayloadSchema>> = defineFamily({
  id: 'spider',
  description: 'Spider: one SQL query per question, two-shot as bigcode documents it, scored by corpus BLEU against the gold query',
  entrySchema: SpiderEntrySchema,
  payloadSchema: SpiderPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ texts, sources }) => ({ problems: load(texts.rows!, sources.rows!), notes: [] }),
  stopWords: () => ONE_LINE_STOP_WORDS,
  // Prompts and answer extraction are Python's (chat answers' fenced block, whatever its tag); nothing is run.
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () => 'Answer the last instruction below with one line of SQL, as the examples do. Reply with that query only.',
  solution: oneLineSolution,
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: oneLineChecking,
  evaluate: {
    kind: 'reads',
    recognize: { rank: 47, test: (row) => 'db_id' in row && 'query' in row && 'question' in row, fields: "Spider's db_id, query, question" },
    options: [],
    form: 'full',
    problems: ({ text, source }) => load(text, source),
  },
});
