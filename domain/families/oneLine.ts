/**
 * What bigcode's one-line generation tasks share (CoNaLa, Concode; explora's Spider BLEU follows
 * them): a two-shot prompt of instructions and solutions after a one-line instruction, generation
 * stopped at a newline, the answer taken after the prompt's third "Solution:\n" and stripped, and
 * bigcode's corpus BLEU against the task's reference over each task's first sample. Nothing runs.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl, parseJsonl, type Sourced } from '../datasets/jsonl.js';
import { datasetRowsProblem, type SweepProblem } from '../datasets/problems.js';
import type { LlmApi } from '../llm/request.js';
import { pySplit, pyStrip } from '../metrics/pythonText.js';
import type { LanguageId } from '../languages/registry.js';
import { DatasetEntryNameSchema, localOrS3File } from './entry.js';
import { BIGCODE_BLEU, TEXT_SCORED_STEPS, bigcodeBleuStats } from './textScored.js';
import type { DatasetFiles, EntrySchema, EvaluateSupport, LoadInput, TaskChecking } from './types.js';

/** bigcode's stop words for these tasks: the answer is one line. */
export const ONE_LINE_STOP_WORDS: readonly string[] = Object.freeze(['\n']);

/** A task's two examples, as bigcode's few_shot_examples/<task>_few_shot_prompts.json holds them. */
export interface TwoShotExamples {
  instruction1: string;
  solution1: string;
  instruction2: string;
  solution2: string;
}

// bigcode writes the prompt as an f-string continued with backslashes inside the literal, so each
// continued line's 19 spaces of indentation are part of the prompt, before every "\n" after an example.
const PAD = ' '.repeat(19);

/** bigcode's two_shot_prompt(entry, text, examples), byte for byte (conala.py, concode.py). */
export function twoShotPrompt(entry: string, text: string, examples: TwoShotExamples): string {
  return (
    `${entry}\nInstruction:\n${examples.instruction1}${PAD}\nSolution:\n${examples.solution1}` +
    `${PAD}\nInstruction:\n${examples.instruction2}${PAD}\nSolution:\n${examples.solution2}` +
    `${PAD}\nInstruction:\n${text}${PAD}\nSolution:\n`
  );
}

/** bigcode's postprocess_generation: the text after the third "Solution:\n" (the prompt's last), stripped. */
export function afterThirdSolution(generation: string): string {
  return pyStrip(pySplit(generation, 'Solution:\n', 3).at(-1)!);
}

/**
 * The prediction a generation stands for. Completions: bigcode's postprocessing of prompt +
 * completion (the completion is already cut at the newline); saved generations (bigcode's
 * generations.json, already post-processed, or raw prompt + completion): the same, on the text
 * as saved. Chat answers (bigcode has no chat mode): the first non-blank line of the answer's
 * code, stripped, since the task asks for one line.
 */
export function oneLineSolution(problem: SweepProblem, api: LlmApi | 'saved', code: string): string {
  if (api === 'chat') return pyStrip(code.split('\n').find((line) => pyStrip(line) !== '') ?? '');
  return afterThirdSolution(api === 'completions' ? problem.prompt + code : code);
}

/** The reference a one-line problem keeps (its dataset's snippet, code or query). */
function referenceOf(problem: SweepProblem): string {
  if (problem.canonical_solution === undefined) throw new Error(`task ${problem.task_id}: no reference (canonical_solution)`);
  return problem.canonical_solution;
}

/** bigcode's BLEU of a sample against the task's reference. */
export function oneLineChecking(problem: SweepProblem): Extract<TaskChecking, { kind: 'text' }> {
  const reference = referenceOf(problem);
  return { kind: 'text', metric: BIGCODE_BLEU, reference, stats: (solution) => bigcodeBleuStats(solution, reference) };
}

/** A rows file as the owners publish them: Hugging Face's Parquet (read as JSON Lines), JSON Lines, or a JSON array. */
export const OneLineRowsFileSchema = localOrS3File('.parquet, .jsonl, .jsonl.gz or .json', /\.(parquet|jsonl(\.gz)?|json)$/);

/** The rows of a file (JSON Lines, or a JSON array whose item i is line i + 1), validated; errors name the file, line and field. */
export function oneLineRows<T>(text: string, schema: z.ZodType<T>, source: string): Array<Sourced<T>> {
  return parseJsonl(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, schema, source);
}

/** The problems of a one-line task: task ids `<prefix>/<index>` (bigcode indexes them by position), a prompt and a reference each. */
export function oneLineProblems<F extends SweepProblem['family']>(
  family: F,
  prefix: string,
  rows: ReadonlyArray<Sourced<{ prompt: string; reference: string }>>,
  source: string,
): SweepProblem[] {
  const problems = rows.map(({ line, row }, i) => ({
    line,
    problem: {
      family,
      task_id: `${prefix}/${i}`,
      prompt: row.prompt,
      // Nothing is called: the answer is a line of text.
      entry_point: 'none',
      test: '',
      canonical_solution: row.reference,
      form: 'full' as const,
    },
  }));
  const problem = datasetRowsProblem(
    problems.map(({ line, problem: p }) => ({ line, row: { task_id: p.task_id } })),
    source,
  );
  if (problem) throw new Error(problem);
  return problems.map(({ problem: p }) => p);
}

/** A one-line family's dataset entry: its name, its `family:` tag and its rows file. */
export function oneLineEntrySchema<const Id extends string>(id: Id) {
  return z.strictObject({
    name: DatasetEntryNameSchema,
    family: z.literal(id),
    /** The split's rows: Hugging Face's Parquet, JSON Lines, or the owners' JSON; local or s3://. */
    path: OneLineRowsFileSchema,
  });
}

/** What differs between bigcode's one-line families: the rest of their definition is oneLineFamily's. */
export interface OneLineSpec<Id extends string, Schema extends EntrySchema> {
  id: Id;
  description: string;
  entrySchema: Schema;
  /** The language of the prompts and of a chat answer's fenced block (nothing is run). */
  language: LanguageId;
  chatInstruction: string;
  /** How evaluate.ts tells the family's rows from the first row (EvaluateSupport.recognize). */
  recognize: { rank: number; test(row: Readonly<Record<string, unknown>>): boolean; fields: string };
  /** The problems of a rows file's text (errors name `source`, the line and the field). */
  problems(text: string, source: string): SweepProblem[];
}

/**
 * A one-line family's definition (for defineFamily): two-shot prompts, stopped at a newline,
 * bigcode's post-processing, scored by BLEU against the reference, the rows read by evaluate.ts as
 * saved generations. A family with more (Spider's databases) spreads it and overrides its steps.
 */
export function oneLineFamily<const Id extends string, Schema extends EntrySchema & z.ZodType<{ path: string }>>(
  spec: OneLineSpec<Id, Schema>,
) {
  const evaluate: Extract<EvaluateSupport, { kind: 'reads' }> = {
    kind: 'reads',
    recognize: spec.recognize,
    // bigcode's task of the family is named as it is.
    bigcodeTasks: { names: spec.id, read: (task) => (task === spec.id ? {} : null) },
    // bigcode's saved generations are the post-processed answers.
    form: 'full',
    problems: ({ text, source }) => spec.problems(text, source),
  };
  return {
    id: spec.id,
    description: spec.description,
    entrySchema: spec.entrySchema,
    bringsLibrary: () => false,
    files: (entry: { path: string }): DatasetFiles => ({ rows: { path: entry.path, field: 'path' } }),
    load: ({ texts, sources }: LoadInput<unknown>) => ({ problems: spec.problems(texts.rows!, sources.rows!), notes: [] }),
    stopWords: () => ONE_LINE_STOP_WORDS,
    language: (): LanguageId => spec.language,
    completionPrompt: (problem: SweepProblem) => problem.prompt,
    chatInstruction: () => spec.chatInstruction,
    solution: oneLineSolution,
    referenceSolution: () => null,
    ...TEXT_SCORED_STEPS,
    checking: oneLineChecking,
    corpusMetrics: [BIGCODE_BLEU],
    evaluate,
  };
}
