/**
 * HumanEval as bigcode-evaluation-harness's `instruct_wizard_humaneval` task runs it for WizardCoder
 * models: the rows of openai_humaneval (HumanEval.jsonl.gz, or Hugging Face's test split), each
 * prompt with its 4-space indents as tabs inside WizardCoder's Alpaca-style template ("Create a
 * Python script for this problem:" ... "### Response:"), no stop words, the answer taken after the
 * last "### Response:" and cleaned as WizardCoder's process_humaneval.py does (clean_comp), then
 * "\n" + the test + "\n" + check(entry_point) run after it: pass@k.
 */
import { z } from 'zod';
import { isJsonArray, jsonArrayAsJsonl } from '../../datasets/jsonl.js';
import type { LlmApi } from '../../llm/request.js';
import { pySplit, pyStrip } from '../../metrics/pythonText.js';
import { defineFamily } from '../define.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { readHumanEvalRows, selfChecking } from '../humanevalStyle.js';
import type { DefinedFamily } from '../types.js';

/** bigcode's generate_prompt: WizardCoder's template around the task's prompt. */
export function wizardPrompt(prompt: string): string {
  return (
    'Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n\n' +
    `### Instruction:\nCreate a Python script for this problem:\n${prompt.replaceAll('    ', '\t')}\n\n### Response:`
  );
}

/**
 * bigcode's clean_comp (adapted from WizardCoder's process_humaneval.py): the first ```python
 * block (to its closing fence), before `if __name__ == "__main__":` and before "# Example usage",
 * the first line dropped when the text starts with "Here's". A ```python block without a closing
 * fence makes bigcode's code raise (its `a += 1` on an unbound name, ending the whole evaluation):
 * here the text after the opening fence is kept.
 */
export function cleanComp(text: string): string {
  let completion = text;
  if (completion.includes('```python')) {
    completion = pyStrip(completion.slice(completion.indexOf('```python'))).replaceAll('```python', '');
    const close = completion.indexOf('```');
    if (close >= 0) completion = pyStrip(completion.slice(0, close));
  }
  if (completion.includes('__name__ == "__main__"')) {
    // bigcode's .index('if __name__ == "__main__":') raises when only the bare condition is there: as for the fence, kept.
    const at = completion.indexOf('if __name__ == "__main__":');
    if (at >= 0) completion = pyStrip(completion.slice(0, at));
  }
  if (completion.includes('# Example usage')) completion = pyStrip(completion.slice(0, completion.indexOf('# Example usage')));
  if (completion.startsWith("Here's")) completion = completion.split('\n').slice(1).join('\n');
  return completion;
}

/** bigcode's postprocess_generation on the whole generation (its prompt included). */
export function wizardPostprocess(generation: string): string {
  const response = pySplit(generation, '### Response:').at(-1)!.replaceAll('\t', '    ');
  return cleanComp(pySplit(response, '</s>')[0]!);
}

export const InstructWizardHumanEvalEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('instruct-wizard-humaneval'),
  /** HumanEval.jsonl.gz, or openai_humaneval's test split (Parquet); local or s3://. */
  path: RowsFileSchema,
});

/** The rows as problems: HumanEval's task ids, the WizardCoder prompt, the whole function as the reference solution. */
export function wizardProblems(text: string, source: string) {
  return readHumanEvalRows(isJsonArray(text) ? jsonArrayAsJsonl(text, source) : text, source).map((row) => {
    const canonical = Array.isArray(row.canonical_solution) ? row.canonical_solution[0] : row.canonical_solution;
    return {
      family: 'instruct-wizard-humaneval' as const,
      task_id: row.task_id,
      prompt: wizardPrompt(row.prompt),
      entry_point: row.entry_point,
      test: row.test,
      // The whole function (the row's prompt and body), what --check-references runs: answers are whole programs.
      ...(canonical !== undefined ? { canonical_solution: row.prompt + canonical } : {}),
      form: 'full' as const,
    };
  });
}

/**
 * The program a generation stands for. A completion continues the prompt: bigcode's post-processing
 * of prompt + completion (its requests carry no stop words). A chat answer's code is the program; a
 * saved generation (bigcode's generations.json) is already post-processed.
 */
export function wizardSolution(problem: { prompt: string }, api: LlmApi | 'saved', code: string): string {
  return api === 'completions' ? wizardPostprocess(problem.prompt + code) : code;
}

export const instructWizardHumanEvalFamily: DefinedFamily<'instruct-wizard-humaneval', typeof InstructWizardHumanEvalEntrySchema> =
  defineFamily({
    id: 'instruct-wizard-humaneval',
    description: "HumanEval in WizardCoder's instruction template (bigcode's instruct_wizard_humaneval): pass@k",
    entrySchema: InstructWizardHumanEvalEntrySchema,
    bringsLibrary: () => false,
    files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
    load: ({ texts, sources }) => ({ problems: wizardProblems(texts.rows!, sources.rows!), notes: [] }),
    // bigcode's task has none: the model writes until it ends.
    stopWords: () => [],
    language: () => 'python',
    completionPrompt: (problem) => problem.prompt,
    chatInstruction: (problem) =>
      `Solve the task below: write the Python function \`${problem.entry_point}\`. ` +
      'Reply with the complete function (its signature and the imports it needs) in one ```python code block.',
    solution: wizardSolution,
    referenceSolution: (problem) => problem.canonical_solution ?? null,
    ...selfChecking,
    // bigcode's get_reference, after the candidate and a newline: "\n" + test + "\n" + check(entry_point).
    tests: (problem) => `\n${problem.test}\ncheck(${problem.entry_point})`,
    evaluate: readsProblemsFiles({
      bigcodeTasks: {
        names: 'instruct_wizard_humaneval',
        read: (task) => (task === 'instruct_wizard_humaneval' ? {} : null),
      },
      // HumanEval's rows: read with --tasks instruct_wizard_humaneval or --family (recognised as humaneval's otherwise).
      form: 'full',
      problems: ({ text, source }) => wizardProblems(text, source),
    }),
  });
