/**
 * CoNaLa (Yin et al. 2018), as bigcode-evaluation-harness's `conala` task runs it: the curated
 * test split (500 rows: question_id, intent, rewritten_intent, snippet; Hugging Face's
 * neulab/conala Parquet, or conala-corpus's conala-test.json), a two-shot prompt after
 * "Answer the following instructions in one line of Python code:", the rewritten intent where a
 * row has one (else the intent), generation stopped at a newline, and bigcode's corpus BLEU
 * (max order 4, smoothed, 13a tokens) of each task's first sample against the row's snippet.
 */
import { z } from 'zod';
import { defineFamily } from '../define.js';
import { oneLineEntrySchema, oneLineFamily, oneLineProblems, oneLineRows, twoShotPrompt } from '../oneLine.js';
import { pyStrip } from '../../metrics/pythonText.js';
import type { DefinedFamily } from '../types.js';

/** bigcode's few_shot_examples/conala_few_shot_prompts.json. */
export const CONALA_EXAMPLES = {
  instruction1: 'convert a list of integers into a single integer',
  instruction2: 'how to convert a datetime string back to datetime object?',
  solution1: "r = int(''.join(map(str, x)))",
  solution2: "datetime.datetime.strptime(str, '%m/%d/%Y')",
} as const;

export const CONALA_INSTRUCTION = 'Answer the following instructions in one line of Python code:\n';

/** The test split: Hugging Face's Parquet, JSON Lines, or conala-test.json; local or s3://. */
export const ConalaEntrySchema = oneLineEntrySchema('conala');

const RowSchema = z.looseObject({
  intent: z.string(),
  rewritten_intent: z.string().nullable().optional(),
  snippet: z.string(),
});

/** bigcode's get_prompt: the rewritten intent when the row has one (a non-empty string), else the intent, stripped. */
export function conalaPrompt(row: z.output<typeof RowSchema>): string {
  const text = pyStrip(row.rewritten_intent ? row.rewritten_intent : row.intent);
  return twoShotPrompt(CONALA_INSTRUCTION, text, CONALA_EXAMPLES);
}

function load(text: string, source: string) {
  const rows = oneLineRows(text, RowSchema, source).map(({ line, row }) => ({
    line,
    row: { prompt: conalaPrompt(row), reference: row.snippet },
  }));
  return oneLineProblems('conala', 'CoNaLa', rows, source);
}

export const conalaFamily: DefinedFamily<'conala', typeof ConalaEntrySchema> = defineFamily(
  oneLineFamily({
    id: 'conala',
    description: "CoNaLa (bigcode's conala): one line of Python per intent, two-shot, scored by corpus BLEU against the snippet",
    entrySchema: ConalaEntrySchema,
    language: 'python',
    chatInstruction: 'Answer the last instruction below in one line of Python code, as the examples do. Reply with that line only.',
    recognize: { rank: 45, test: (row) => 'intent' in row && 'snippet' in row, fields: "CoNaLa's intent, rewritten_intent, snippet" },
    problems: load,
  }),
);
