/**
 * CodeXGLUE code-to-text (documentation generation), as bigcode-evaluation-harness's
 * `codexglue_code_to_text-<language>` tasks (python, go, ruby, java, javascript, php) and
 * `codexglue_code_to_text-python-left` run it: the model sees a function (python-left: its
 * signature only) and writes what it does; the first line of its answer is scored from its text,
 * nothing run, by CodeXGLUE's smoothed sentence BLEU against the docstring (its tokens,
 * Moses-detokenized), averaged over the tasks' first samples x 100 (bigcode's `blue`).
 * Rows: google/code_x_glue_ct_code_to_text (rows.ts); prompts and post-processing: bigcode.ts.
 */
import { z } from 'zod';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import type { LanguageId } from '../../languages/registry.js';
import type { LlmApi } from '../../llm/request.js';
import { pyStrip } from '../../metrics/pythonText.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import { codexglueSentenceBleu } from '../../metrics/smoothedBleu.js';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import { TEXT_SCORED_STEPS } from '../textScored.js';
import type { CorpusMetric, DefinedFamily, ProblemOf } from '../types.js';
import {
  CODE_TO_TEXT_LANGUAGES,
  CODE_TO_TEXT_SUBSETS,
  codeToTextPostprocess,
  codeToTextRequestStopWords,
  codeToTextStopWords,
  promptSuffix,
  subsetLanguage,
  type CodeToTextLanguage,
  type CodeToTextSubset,
} from './bigcode.js';
import { codeToTextTasks } from './rows.js';

/** bigcode's task `codexglue_code_to_text-<subset>`: the entry's `subset` and evaluate.ts's `--subset`. */
const CODE_TO_TEXT_OPTIONS = familyOptions({
  /** The rows' language, or python-left (Python rows, the signature only). */
  subset: option(z.enum(CODE_TO_TEXT_SUBSETS), {
    help: `bigcode's task subset, the suffix of its task name: ${CODE_TO_TEXT_SUBSETS.join(', ')} (evaluate.ts: default the rows' language)`,
    value: 'subset',
  }),
});

export const CodeToTextEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('code-to-text'),
  /** One language's split (`<language>/test-00000-of-00001.parquet`), or its rows as JSON Lines; local or s3://. */
  path: RowsFileSchema,
  ...CODE_TO_TEXT_OPTIONS.entry,
});
export type CodeToTextEntry = z.output<typeof CodeToTextEntrySchema>;

export const CodeToTextPayloadSchema = z.object({
  code_to_text: z.object({
    subset: z.enum(CODE_TO_TEXT_SUBSETS),
    /** bigcode's get_reference: the docstring's tokens, Moses-detokenized. */
    reference: z.string(),
  }),
});
type CodeToTextProblem = ProblemOf<z.output<typeof CodeToTextPayloadSchema>>;

/** The explora language of each CodeXGLUE language (for chat prompts' code blocks). */
const LANGUAGE_IDS: Record<CodeToTextLanguage, LanguageId> = {
  python: 'python',
  go: 'go_test.go',
  ruby: 'rb',
  java: 'java',
  javascript: 'js',
  php: 'php',
};
const LANGUAGE_NAMES: Record<CodeToTextLanguage, string> = {
  python: 'Python',
  go: 'Go',
  ruby: 'Ruby',
  java: 'Java',
  javascript: 'JavaScript',
  php: 'PHP',
};

/**
 * bigcode's metric for the task (compute_codexglue_code_to_text_bleu, reported as `blue`): the mean
 * of each task's first sample's smoothed sentence BLEU, x 100.
 */
export const CODEXGLUE_BLEU_METRIC: CorpusMetric = {
  id: 'codexglue-bleu',
  samples: 'first',
  headline: 'blue',
  figures: (sums, count) => ({ blue: ((sums.bleu ?? 0) * 100) / count }),
};

/**
 * The answer a generation stands for. A completion continues the prompt: bigcode's post-processing
 * of prompt + completion, the completion ended as bigcode's stopping criterion ends it (its stop
 * word kept: the Python tasks' requests carry none, codeToTextRequestStopWords). A chat answer is read the same way, as the prompt's continuation (from
 * after the prompt's closing line when the answer repeats it). A saved generation (bigcode's
 * generations.json) is already post-processed.
 */
function answerOf(problem: CodeToTextProblem, api: LlmApi | 'saved', text: string): string {
  if (api === 'saved') return text;
  const { subset } = problem.code_to_text;
  let continuation = api === 'completions' ? truncateAtStopWords(text, codeToTextStopWords(subset), { keepStopWord: true }) : text;
  if (api === 'chat' && subset !== 'python-left') {
    const closing = pyStrip(promptSuffix(subsetLanguage(subset)));
    const at = text.indexOf(closing);
    if (at >= 0) continuation = text.slice(at + closing.length);
  }
  return codeToTextPostprocess(subset, problem.prompt + continuation);
}

// Typed here: its evaluate step loads through it.
export const codeToTextFamily: DefinedFamily<
  'code-to-text',
  typeof CodeToTextEntrySchema,
  z.output<typeof CodeToTextPayloadSchema>
> = defineFamily({
  id: 'code-to-text',
  description: "CodeXGLUE code-to-text (bigcode's codexglue_code_to_text-*): a function's first line of documentation, BLEU-scored",
  entrySchema: CodeToTextEntrySchema,
  payloadSchema: CodeToTextPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => ({
    problems: codeToTextTasks(texts.rows!, entry.subset, sources.rows!).map((task) => ({
      family: 'code-to-text' as const,
      task_id: task.taskId,
      prompt: task.prompt,
      // No function is called: the entry point names the documented function.
      entry_point: task.funcName || '(unnamed)',
      test: '',
      form: 'completion' as const,
      code_to_text: { subset: entry.subset, reference: task.reference },
    })),
    notes: [],
  }),
  stopWords: (entry) => codeToTextRequestStopWords(entry.subset),
  language: (problem) => LANGUAGE_IDS[subsetLanguage(problem.code_to_text.subset)],
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `Write the first line of the documentation of the ${LANGUAGE_NAMES[subsetLanguage(problem.code_to_text.subset)]} function ` +
    'below: one sentence saying what it does. Reply with that sentence only, on one line, without code.',
  solution: answerOf,
  // The docstring is the reference the samples are scored against (references.json), not a program to run.
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: (problem) => ({
    kind: 'text',
    metric: CODEXGLUE_BLEU_METRIC,
    reference: problem.code_to_text.reference,
    stats: (solution) => ({ bleu: codexglueSentenceBleu(problem.code_to_text.reference, solution) }),
  }),
  corpusMetrics: [CODEXGLUE_BLEU_METRIC],
  evaluate: readsProblemsFiles({
    // bigcode's codexglue_code_to_text-<subset>.
    bigcodeTasks: {
      names: 'codexglue_code_to_text-<python|go|ruby|java|javascript|php|python-left>',
      read: (task) => {
        const subset = /^codexglue_code_to_text-(.+)$/.exec(task)?.[1];
        return subset === undefined ? null : { options: { subset } };
      },
    },
    recognize: {
      rank: 40,
      test: (row) => 'docstring_tokens' in row && 'code' in row && 'language' in row,
      fields: "CodeXGLUE's code, docstring, docstring_tokens, language",
    },
    options: CODE_TO_TEXT_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => {
      const subset = options.subset ?? subsetOfRows(text);
      const entry = CodeToTextEntrySchema.parse({ name: 'evaluate', family: 'code-to-text', path: 'rows.jsonl', subset });
      return codeToTextFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  }),
});

/** The subset a rows file reads as, without --subset: its first row's language (loading checks that every row agrees). */
function subsetOfRows(text: string): CodeToTextSubset {
  let language: unknown;
  try {
    const first = text.split('\n').find((line) => line.trim() !== '');
    language = first === undefined ? undefined : (JSON.parse(first) as { language?: unknown }).language;
  } catch {
    // Not JSON: loading names the line.
  }
  return (CODE_TO_TEXT_LANGUAGES as readonly unknown[]).includes(language) ? (language as CodeToTextLanguage) : 'python';
}
