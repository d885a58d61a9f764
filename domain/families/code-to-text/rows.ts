/**
 * CodeXGLUE code-to-text rows as their owners publish them: Hugging Face's
 * google/code_x_glue_ct_code_to_text (one split of one language, `<language>/test-*.parquet`, read
 * as rows; or JSON Lines of the same rows) and CodeXGLUE's own `<language>/test.jsonl` (the
 * CodeSearchNet rows without `id`). Fields read: id (when present), func_name, language, code,
 * docstring, docstring_tokens; the others (repo, path, original_string, code_tokens, sha, url,
 * partition) are kept out of the task.
 */
import { z } from 'zod';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import {
  CODE_TO_TEXT_LANGUAGES,
  codeToTextPrompt,
  codeToTextReference,
  subsetLanguage,
  type CodeToTextLanguage,
  type CodeToTextSubset,
} from './bigcode.js';

export const CodeToTextRowSchema = z.looseObject({
  /** Hugging Face's row number within its split; CodeXGLUE's own files have none (the row's place stands for it). */
  id: z.int().nonnegative().optional(),
  func_name: z.string(),
  language: z.enum(CODE_TO_TEXT_LANGUAGES),
  code: z.string().min(1),
  docstring: z.string(),
  docstring_tokens: z.array(z.string()).min(1, "must not be empty (bigcode's reference is made of them)"),
});
export type CodeToTextRow = z.output<typeof CodeToTextRowSchema>;

/** A task: its id, bigcode's prompt and reference, the function's name. */
export interface CodeToTextTask {
  line: number;
  taskId: string;
  funcName: string;
  language: CodeToTextLanguage;
  prompt: string;
  reference: string;
}

/**
 * The tasks of a file's text for a subset, in file order; the task id is the row's `id`, else its
 * 0-based place (what bigcode's index into the split is). Refused, naming the source, the line
 * and the field: a row that does not parse, a row of another language than the subset's, a
 * Python row whose code does not hold its docstring, tokens that join to nothing, a repeated id.
 */
export function codeToTextTasks(text: string, subset: CodeToTextSubset, source: string): CodeToTextTask[] {
  const language = subsetLanguage(subset);
  const tasks = parseJsonl(text, CodeToTextRowSchema, source).map(({ line, row }, index): CodeToTextTask => {
    const where = `${source}:${line}`;
    if (row.language !== language)
      throw new Error(`${where}: language: ${row.language}, but the entry's subset ${subset} reads ${language} rows`);
    let prompt: string;
    try {
      prompt = codeToTextPrompt(subset, row);
    } catch {
      throw new Error(`${where}: docstring: not found in code (bigcode's Python prompts cut the code at its docstring)`);
    }
    let reference: string;
    try {
      reference = codeToTextReference(row.docstring_tokens);
    } catch {
      throw new Error(`${where}: docstring_tokens: join to an empty docstring (bigcode's reference needs one)`);
    }
    return { line, taskId: String(row.id ?? index), funcName: row.func_name, language, prompt, reference };
  });
  const problem = datasetRowsProblem(
    tasks.map(({ line, taskId }) => ({ line, row: { task_id: taskId } })),
    source,
  );
  if (problem) throw new Error(problem);
  return tasks;
}
