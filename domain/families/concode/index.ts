/**
 * Concode (Iyer et al. 2018) as CodeXGLUE's text-to-code set and bigcode-evaluation-harness's
 * `concode` task run it: the validation split (2,000 rows: id, nl, code; Hugging Face's
 * code_x_glue_tc_text_to_code Parquet, or CodeXGLUE's dev.json lines), a two-shot prompt after
 * "Answer the following instructions in a one line of Java code:", the description being `nl` up
 * to its first "concode_field_sep" (the class context after it is dropped), stripped, without a
 * final period; generation stopped at a newline; bigcode's corpus BLEU (max order 4, smoothed,
 * 13a tokens) of each task's first sample against the row's (tokenized) `code`.
 */
import { z } from 'zod';
import { defineFamily } from '../define.js';
import { oneLineEntrySchema, oneLineFamily, oneLineProblems, oneLineRows, twoShotPrompt } from '../oneLine.js';
import { pySplit, pyStrip } from '../../metrics/pythonText.js';
import type { DefinedFamily } from '../types.js';

/** bigcode's few_shot_examples/concode_few_shot_prompts.json. */
export const CONCODE_EXAMPLES = {
  instruction1: 'get the distance of map coordinates to the center ',
  instruction2: 'check if details are parsed',
  solution1:
    'float function ( int arg0 , int arg1 ) { int loc0 = arg0 - cx ; int loc1 = arg1 - cy ; return getSquaredDistance ( loc0 , loc1 ) ; }',
  solution2: 'boolean function ( ) { return isParsed ; }',
} as const;

export const CONCODE_INSTRUCTION = 'Answer the following instructions in a one line of Java code:\n';

/** The validation split (the test split has no code): Hugging Face's Parquet, or CodeXGLUE's dev.json lines; local or s3://. */
export const ConcodeEntrySchema = oneLineEntrySchema('concode');

const RowSchema = z.looseObject({ nl: z.string(), code: z.string() });

/** bigcode's get_prompt: `nl` before "concode_field_sep", stripped, a final "." dropped and stripped again. */
export function concodePrompt(nl: string): string {
  let text = pyStrip(pySplit(nl, 'concode_field_sep')[0]!);
  if (text.endsWith('.')) text = pyStrip(text.slice(0, -1));
  return twoShotPrompt(CONCODE_INSTRUCTION, text, CONCODE_EXAMPLES);
}

function load(text: string, source: string) {
  const rows = oneLineRows(text, RowSchema, source).map(({ line, row }) => ({
    line,
    row: { prompt: concodePrompt(row.nl), reference: row.code },
  }));
  return oneLineProblems('concode', 'Concode', rows, source);
}

export const concodeFamily: DefinedFamily<'concode', typeof ConcodeEntrySchema> = defineFamily(
  oneLineFamily({
    id: 'concode',
    description: "Concode (bigcode's concode): one line of Java per description, two-shot, scored by corpus BLEU against the code",
    entrySchema: ConcodeEntrySchema,
    language: 'java',
    chatInstruction: 'Answer the last instruction below in one line of Java code, as the examples do. Reply with that line only.',
    recognize: { rank: 46, test: (row) => 'nl' in row && 'code' in row, fields: "Concode's nl, code" },
    problems: load,
  }),
);
