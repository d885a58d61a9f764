/**
 * SantaCoder's fill-in-the-middle task (Allal et al. 2023), as bigcode-evaluation-harness runs it
 * (bigcode_eval/tasks/santacoder_fim.py: `santacoder_fim` and `starcoder_fim`), in the rows of the
 * Hugging Face dataset bigcode/santacoder-fim-task: `{name, language, prompt, suffix,
 * canonical_solution, tests}`, built by MultiPL-E's fill_in_the_middle/dataset_builder.ipynb from
 * working solutions of HumanEval in py, js and java: for each non-blank line of a solution, the
 * prompt is the function's prompt and the lines before it, the suffix the lines after it, the
 * canonical solution the line (`name`: `humaneval-<problem>-L<line>`, unique).
 *
 * bigcode's prompt: `<fim prefix> + prompt + <fim suffix> + suffix + <fim middle>`; the generation
 * after the prompt is cut at the first stop word (`_stop_at_stop_token`); a sample is right when
 * it equals the canonical solution after Python's strip() of both; the score is the share of
 * right samples per language ("py Exact Match", ...), nothing is run.
 */
import { z } from 'zod';
import { parseJsonl } from '../../datasets/jsonl.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import { FIM_LANGUAGES } from '../../metrics/exactMatch.js';
import { pyStrip } from '../../metrics/pythonText.js';

export type FimLanguage = (typeof FIM_LANGUAGES)[number];

/**
 * bigcode's stop words: santacoder_fim's (`<|endoftext|>`, `<|filename|>`) and the one starcoder_fim
 * adds (`<file_sep>`); explora asks one task whatever the model, so it cuts at all three (text a
 * model writes as code never holds them).
 */
export const SANTACODER_FIM_STOP_WORDS: readonly string[] = Object.freeze(['<|endoftext|>', '<|filename|>', '<file_sep>']);

const MISSING = 'missing: a row of bigcode/santacoder-fim-task has name, language, prompt, suffix, canonical_solution and tests';
const missing = (issue: { input: unknown }) => (issue.input === undefined ? MISSING : undefined);

export const SantaCoderFimRowSchema = z.looseObject({
  name: z.string({ error: missing }).min(1),
  language: z.enum(FIM_LANGUAGES, { error: (issue) => missing(issue) ?? `must be one of ${FIM_LANGUAGES.join(', ')}` }),
  prompt: z.string({ error: missing }),
  suffix: z.string({ error: missing }),
  canonical_solution: z.string({ error: missing }),
  tests: z.string().optional(),
});
export type SantaCoderFimRow = z.infer<typeof SantaCoderFimRowSchema>;

/** The rows of a file, validated (errors name the file, line and field); task ids (`name`) must be unique. */
export function readSantaCoderFimRows(text: string, source: string): Array<{ line: number; row: SantaCoderFimRow }> {
  const rows = parseJsonl(text, SantaCoderFimRowSchema, source);
  const problem = datasetRowsProblem(
    rows.map(({ line, row }) => ({ line, row: { task_id: row.name } })),
    source,
  );
  if (problem) throw new Error(problem);
  return rows;
}

/** bigcode's postprocess_generation on the middle a completions endpoint returns: cut at the first stop word. */
export function santaCoderFimPostprocess(generation: string): string {
  return truncateAtStopWords(generation, SANTACODER_FIM_STOP_WORDS);
}

/** Whether a sample is right (bigcode's process_results: `g.strip() == reference.strip()`). */
export function exactlyMatches(sample: string, reference: string): boolean {
  return pyStrip(sample) === pyStrip(reference);
}
