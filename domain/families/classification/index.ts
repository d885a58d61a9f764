/**
 * Prompted classification on the three downstream sets bigcode-evaluation-harness lists
 * (tasks.ts): CodeComplex (`task: complexity`), BigCloneBench (`task: clone`) and Devign
 * (`task: defect`), rows as their owners publish them (JSON Lines or Hugging Face's Parquet).
 * bigcode fine-tunes a classifier for each; here the model is asked, its answer parsed into a
 * label (an answer naming none is "-1": wrong, and counted apart), and a cell is scored from the
 * answers' text, nothing run: accuracy, F1 of the positive class (clone, defect) or macro F1
 * (complexity) (metrics.ts).
 *
 * One family with a `task:` rather than three: the sets differ only in their rows, prompt, label
 * set and parser (one table, TASK_SPECS), and share everything else; a file's set is also told
 * from its rows (evaluate.ts).
 */
import { z } from 'zod';
import { firstRow } from '../../datasets/jsonl.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { TEXT_SCORED_STEPS } from '../textScored.js';
import type { CorpusMetric, DefinedFamily, ProblemOf, TextStats } from '../types.js';
import { classificationCellScores } from './metrics.js';
import {
  CLASSIFICATION_TASKS,
  readClassificationRows,
  TASK_SPECS,
  taskOfRow,
  ROW_FIELDS,
  type ClassificationRow,
  type ClassificationTask,
} from './tasks.js';

/** bigcode's stop word for both its prompted tasks: the answer is one line. */
export const CLASSIFICATION_STOP_WORDS: readonly string[] = Object.freeze(['\n']);

export const ClassificationEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('classification'),
  /** Which set the file holds: complexity (CodeComplex), clone (BigCloneBench), defect (Devign). */
  task: z.enum(CLASSIFICATION_TASKS),
  /** The set's rows: CodeComplex's data.jsonl, CodeXGLUE's Parquet (or JSON Lines) files; local or s3://. */
  path: RowsFileSchema,
});
export type ClassificationEntry = z.output<typeof ClassificationEntrySchema>;

export const ClassificationPayloadSchema = z.object({
  classification: z.object({
    task: z.enum(CLASSIFICATION_TASKS),
    /** The code shown: one snippet, two for clone detection. */
    code: z.array(z.string()).min(1).max(2),
    /** The true label ("1"/"0" for the binary sets, bigcode's str(int(label)); a CodeComplex class). */
    label: z.string().min(1),
  }),
});
export type ClassificationProblem = ProblemOf<z.output<typeof ClassificationPayloadSchema>>;

/** The code a chat model is shown in its fenced block: the snippet, or both, each under its name. */
function chatCode(task: ClassificationTask, code: readonly string[]): string {
  const text = task === 'clone' ? `// Code1\n${code[0]!.replace(/\n?$/, '\n')}\n// Code2\n${code[1]!}` : code[0]!;
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** An answer that reads as the true label: what the dataset's own "solution" is. */
function referenceAnswer(task: ClassificationTask, label: string): string {
  if (TASK_SPECS[task].positive === null) return label;
  return label === '1' ? 'YES' : 'NO';
}

const STAT_SEPARATOR = '->';

/**
 * The corpus metric of a set: each scored answer adds 1 under its (predicted, true) label pair, so
 * that summing a cell's answers gives its confusion counts, from which the figures are computed.
 */
function classificationMetric(task: ClassificationTask): CorpusMetric {
  return {
    id: `${task}-classification`,
    // bigcode scores each task's first generation (gen[0]).
    samples: 'first',
    // CodeXGLUE's headline per set: F1 for clone detection, accuracy for defect detection and CodeComplex.
    headline: task === 'clone' ? 'f1' : 'accuracy',
    figures: (sums) => {
      const pairs: Array<{ prediction: string; reference: string }> = [];
      for (const [key, count] of Object.entries(sums)) {
        const [prediction, reference] = key.split(STAT_SEPARATOR) as [string, string];
        for (let i = 0; i < count; i++) pairs.push({ prediction, reference });
      }
      const { answers, ...figures } = classificationCellScores(task, pairs);
      return { ...figures, answers };
    },
  };
}
const METRICS = Object.fromEntries(CLASSIFICATION_TASKS.map((t) => [t, classificationMetric(t)])) as Record<
  ClassificationTask,
  CorpusMetric
>;
/** The sets' corpus metrics, for readers of stored results that know a metric by its id (compare.ts). */
export { METRICS as CLASSIFICATION_METRICS };

/** A scored answer's statistics: one count under its (predicted, true) label pair. */
export function answerStats(problem: ClassificationProblem, answer: string): TextStats {
  const { task, label } = problem.classification;
  return { [`${TASK_SPECS[task].parse(answer)}${STAT_SEPARATOR}${label}`]: 1 };
}

function problemOf(entry: ClassificationEntry, row: ClassificationRow): ClassificationProblem {
  return {
    family: 'classification',
    task_id: row.task_id,
    prompt: chatCode(entry.task, row.code),
    entry_point: entry.task,
    test: '',
    canonical_solution: referenceAnswer(entry.task, row.label),
    form: 'full',
    classification: { task: entry.task, code: [...row.code], label: row.label },
  };
}

// Typed here: its evaluate step loads through it.
export const classificationFamily: DefinedFamily<
  'classification',
  typeof ClassificationEntrySchema,
  z.output<typeof ClassificationPayloadSchema>
> = defineFamily({
  id: 'classification',
  description:
    "CodeComplex, BigCloneBench, Devign (bigcode's downstream classification sets), prompted: the answer's label scored by accuracy and F1",
  entrySchema: ClassificationEntrySchema,
  payloadSchema: ClassificationPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({
    problems: readClassificationRows(entry.task, texts.rows!, sources.rows!).map(({ row }) => problemOf(entry, row)),
    notes: [],
  }),
  stopWords: () => CLASSIFICATION_STOP_WORDS,
  // Nothing runs: the language only names the fence of chat prompts (C's snippets under C++'s).
  language: (problem) => (problem.classification.task === 'defect' ? 'cpp' : 'java'),
  completionPrompt: (problem) => TASK_SPECS[problem.classification.task].prompt(problem.classification.code),
  chatInstruction: (problem) => TASK_SPECS[problem.classification.task].chatInstruction,
  // The answer as the model gave it (a completion cut at the stop word): the parser reads it.
  solution: (_problem, _api, code) => code,
  // Nothing to run (check-references runs references): the reference answer is the problem's
  // canonical_solution, which the tests score as its label.
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: (problem) => ({
    kind: 'text',
    metric: METRICS[problem.classification.task],
    reference: problem.classification.label,
    stats: (answer: string) => answerStats(problem, answer),
  }),
  corpusMetrics: Object.values(METRICS),
  evaluate: {
    kind: 'reads',
    recognize: {
      rank: 30,
      test: (row) => taskOfRow(row) !== null,
      fields: `${ROW_FIELDS.complexity}, ${ROW_FIELDS.clone} or ${ROW_FIELDS.defect}`,
    },
    // A sample's completion is the answer.
    form: 'full',
    problems: ({ text, source }) => {
      const first = firstRow(text, source)?.row;
      const task = typeof first === 'object' && first !== null ? taskOfRow(first as Record<string, unknown>) : null;
      const path = /\.(jsonl(\.gz)?|parquet)$/.test(source) ? source : 'rows.jsonl';
      const entry = ClassificationEntrySchema.parse({ name: 'evaluate', family: 'classification', task: task ?? 'complexity', path });
      return classificationFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  },
});
