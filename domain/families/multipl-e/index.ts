/**
 * MultiPL-E (Cassano et al. 2023): HumanEval and MBPP translated into other languages, in the rows
 * its dataset builder publishes (the Hugging Face dataset nuprl/MultiPL-E, one file per benchmark
 * and language, e.g. humaneval-js): `{name, language, prompt, doctests, original,
 * prompt_terminology, tests, stop_tokens}`, as JSONL, .jsonl.gz or a JSON array.
 *
 * As MultiPL-E evaluates them: a completion continues the prompt and is cut at the row's
 * `stop_tokens`; the program is `prompt + completion + "\n" + tests`; it runs in the row's
 * language (every process-run language of domain/languages/registry.ts by the sandbox's process
 * runner, `py` by the Python sandbox). A task's id is the row's `name` (HumanEval_53_add). There is no
 * reference solution in the target languages (MultiPL-E translates prompts and tests only).
 *
 * Chat answers: the code block's text after the prompt's last line (the function's signature)
 * stands for the completion, cut at the stop tokens, so that the program is assembled as above;
 * a block without that line is taken as it stands (and will most likely not compile).
 */
import { z } from 'zod';
import { firstRow, parseJsonArray, parseJsonl } from '../../datasets/jsonl.js';
import { datasetRowsProblem } from '../../datasets/problems.js';
import { truncateAtStopWords } from '../../llm/extract.js';
import type { LanguageId } from '../../languages/registry.js';
import { DatasetEntryNameSchema, localOrS3File } from '../entry.js';
import { selfChecking } from '../humanevalStyle.js';
import { defineFamily } from '../define.js';
import type { DefinedFamily, ProblemOf } from '../types.js';
import { MULTIPLE_LANGUAGE_IDS, MULTIPLE_LANGUAGES, type MultiplELanguageId } from './languages.js';

export { MULTIPLE_LANGUAGE_IDS, type MultiplELanguageId };

export const MultiplEEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('multipl-e'),
  /** One of MultiPL-E's files (e.g. humaneval-js.jsonl), local or s3://. */
  path: localOrS3File('.jsonl, .jsonl.gz or .json', /\.(jsonl(\.gz)?|json)$/),
  /** The language of the file's rows, MultiPL-E's id: every row's `language` must be this one. */
  language: z.enum(MULTIPLE_LANGUAGE_IDS, { error: `must be one of MultiPL-E's language ids: ${MULTIPLE_LANGUAGE_IDS.join(', ')}` }),
});
export type MultiplEEntry = z.output<typeof MultiplEEntrySchema>;

const MISSING =
  'missing: a MultiPL-E row has name, language, prompt, doctests, original, prompt_terminology, tests and stop_tokens, ' +
  'as its dataset publishes them (the Hugging Face dataset nuprl/MultiPL-E); the evaluation needs name, language, prompt, tests and stop_tokens';
const missing = (issue: { input: unknown }) => (issue.input === undefined ? MISSING : undefined);

/** A published row. The fields the evaluation needs are required; the descriptive ones may be absent. */
export const MultiplERowSchema = z.looseObject({
  name: z.string({ error: missing }).min(1),
  language: z.string({ error: missing }).min(1),
  prompt: z.string({ error: missing }).min(1),
  tests: z.string({ error: missing }).min(1),
  stop_tokens: z.array(z.string(), { error: missing }),
  doctests: z.string().optional(),
  original: z.string().optional(),
  prompt_terminology: z.string().optional(),
});
export type MultiplERow = z.infer<typeof MultiplERowSchema>;

/** The rows of a file (JSONL, or a JSON array whose item i is "line" i + 1), validated; errors name the file, line and field. */
export function readMultiplERows(text: string, source: string): Array<{ line: number; row: MultiplERow }> {
  if (!text.trimStart().startsWith('[')) return parseJsonl(text, MultiplERowSchema, source);
  return parseJsonArray(text, MultiplERowSchema, source, 'JSON lines or a JSON array of MultiPL-E rows');
}

/** MultiPL-E's names are `<benchmark>_<n>_<function>`: the function the tests call. */
function entryPointOf(name: string): string {
  return /^(?:HumanEval|mbpp)_\d+_(.+)$/.exec(name)?.[1] ?? name;
}

/** What a MultiPL-E problem carries beyond the core: its row's language and stop tokens. */
export const MultiplEPayloadSchema = z.object({
  /** The row's language id: one of MULTIPLE_LANGUAGE_IDS (the process-run languages and py). */
  language: z.enum(MULTIPLE_LANGUAGE_IDS),
  /** The row's stop tokens, where its completions are cut. */
  stop_tokens: z.array(z.string()).optional(),
});
export type MultiplEProblem = ProblemOf<z.output<typeof MultiplEPayloadSchema>>;

/** The stop tokens a problem's completions are cut at: its row's. */
function stopOf(problem: MultiplEProblem): readonly string[] {
  return problem.stop_tokens ?? MULTIPLE_LANGUAGES[problem.language].stopWords;
}

/** A chat answer's code as a completion of the prompt (see the module's comment). */
export function chatCompletion(problem: MultiplEProblem, code: string): string | null {
  const lastLine = problem.prompt.replace(/\s+$/, '').split('\n').pop()!.trim();
  if (!lastLine) return null;
  const lines = code.split('\n');
  const at = lines.findIndex((line) => line.trim() === lastLine);
  if (at < 0) return null;
  return truncateAtStopWords(lines.slice(at + 1).join('\n'), stopOf(problem));
}

// Typed here: its evaluate step loads through it.
export const multiplEFamily: DefinedFamily<'multipl-e', typeof MultiplEEntrySchema, z.output<typeof MultiplEPayloadSchema>> = defineFamily({
  id: 'multipl-e',
  description: `MultiPL-E's rows (HumanEval/MBPP in ${MULTIPLE_LANGUAGE_IDS.join(', ')}): prompt + completion + tests, run in the row's language`,
  entrySchema: MultiplEEntrySchema,
  payloadSchema: MultiplEPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const source = sources.rows!;
    const rows = readMultiplERows(texts.rows!, source);
    for (const { line, row } of rows) {
      if (row.language !== entry.language) {
        const known = (MULTIPLE_LANGUAGE_IDS as readonly string[]).includes(row.language);
        throw new Error(
          `${source}:${line}: language: ${JSON.stringify(row.language)} ` +
            (known
              ? `differs from the dataset entry's language ${entry.language}: one file per language, as MultiPL-E publishes them`
              : `is not one of MultiPL-E's languages explora runs (${MULTIPLE_LANGUAGE_IDS.join(', ')})`),
        );
      }
    }
    const problem = datasetRowsProblem(
      rows.map(({ line, row }) => ({ line, row: { task_id: row.name } })),
      source,
    );
    if (problem) throw new Error(problem.replace('duplicate task_id', 'duplicate name'));
    const standard = MULTIPLE_LANGUAGES[entry.language].stopWords;
    const differing = rows.filter(({ row }) => row.stop_tokens.join('\u0000') !== standard.join('\u0000')).length;
    return {
      problems: rows.map(({ row }): MultiplEProblem => ({
        family: 'multipl-e',
        task_id: row.name,
        prompt: row.prompt,
        entry_point: entryPointOf(row.name),
        test: row.tests,
        form: 'completion',
        language: entry.language,
        stop_tokens: row.stop_tokens,
      })),
      notes: differing
        ? [
            `${source}: ${differing} row(s) have stop tokens other than MultiPL-E's for ${entry.language}; their completions are cut at their own (the requests carry the language's)`,
          ]
        : [],
    };
  },
  stopWords: (entry) => MULTIPLE_LANGUAGES[entry.language].stopWords,
  language: (problem): LanguageId => MULTIPLE_LANGUAGES[problem.language].runsAs,
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) =>
    `Complete the ${MULTIPLE_LANGUAGES[problem.language].name} function below so that it does what its comment says. ` +
    `Reply with the whole function, starting with its signature line as given, in one \`\`\`${MULTIPLE_LANGUAGES[problem.language].fence} code block.`,
  solution: (problem, api, code) => {
    if (api === 'chat') {
      const completion = chatCompletion(problem, code);
      return completion === null ? code : problem.prompt + completion;
    }
    // A completion (or a saved one, as MultiPL-E saves them): it continues the prompt, cut at the row's stop tokens.
    return problem.prompt + truncateAtStopWords(code, stopOf(problem));
  },
  referenceSolution: () => null,
  // MultiPL-E's tests are in the program: they decide, under the sweep's timeout.
  ...selfChecking,
  tests: (problem) => problem.test,
  evaluate: {
    kind: 'reads',
    // bigcode's multiple-<language>: the rows name their language.
    bigcodeTasks: {
      names: `multiple-<language> (${MULTIPLE_LANGUAGE_IDS.join(', ')})`,
      read: (task) => {
        const language = /^multiple-(.+)$/.exec(task)?.[1];
        return language !== undefined && (MULTIPLE_LANGUAGE_IDS as readonly string[]).includes(language) ? {} : null;
      },
    },
    recognize: {
      rank: 40,
      test: (row) => 'stop_tokens' in row || ('tests' in row && 'name' in row && 'language' in row),
      fields: "MultiPL-E's name, language, prompt, tests, stop_tokens",
    },
    form: 'completion',
    problems: ({ text, source }) => {
      const entry = { name: 'evaluate', family: 'multipl-e' as const, path: source, language: fileLanguage(text, source) };
      return multiplEFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  },
});

/** The language of a MultiPL-E file: its first row's (the family then checks every row has it). */
function fileLanguage(text: string, source: string): MultiplELanguageId {
  const first = firstRow(text, source);
  const language = (first?.row as { language?: unknown } | undefined)?.language;
  if (typeof language !== 'string' || !(MULTIPLE_LANGUAGE_IDS as readonly string[]).includes(language)) {
    throw new Error(
      `${source}:${first?.line ?? 1}: language: ${language === undefined ? 'missing' : JSON.stringify(language)}; ` +
        `a MultiPL-E row's language must be one of ${MULTIPLE_LANGUAGE_IDS.join(', ')}`,
    );
  }
  return language as MultiplELanguageId;
}
