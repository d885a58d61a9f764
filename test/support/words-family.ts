/**
 * A throwaway task family, written as docs/extending.md says a new family is: its entry schema,
 * its payload schema and its steps, through defineFamily. "Words": each row names a word and a
 * Python string method; the model writes `transform(s)`, which must turn the word into what the
 * method makes of it. Its id is not in domain/families/ids.ts: the test that uses it adds it there
 * and to the registry (one line each), as a real family's folder would.
 */
import { z } from 'zod';
import { readsProblemsFiles } from '../../domain/families/evaluateOptions.js';
import { familyOptions, option } from '../../domain/families/familyOptions.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { datasetRowsProblem } from '../../domain/datasets/problems.js';
import { defineFamily } from '../../domain/families/define.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../../domain/families/entry.js';
import { solutionFromGeneration, statusScore } from '../../domain/families/humanevalStyle.js';
import type { FamilyId } from '../../domain/families/ids.js';
import type { DefinedFamily, ProblemOf } from '../../domain/families/types.js';

export const WORDS_ID = 'words' as const;

/** Its options, declared once: the entry's `repeat` and evaluate.ts's `--repeat <n>`. */
const WORDS_OPTIONS = familyOptions({
  repeat: option(z.int().min(1).default(1), {
    help: 'how many times each word is repeated before its method applies (default 1)',
    value: 'n',
    text: 'number',
  }),
});

export const WordsEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal(WORDS_ID),
  path: JsonlFileSchema,
  ...WORDS_OPTIONS.entry,
});

const RowSchema = z.looseObject({
  id: z.string().min(1),
  word: z.string().min(1),
  method: z.enum(['upper', 'lower', 'title', 'swapcase']),
});

/** What a Words problem carries beyond the core: the word and the method, flat in the stored JSON. */
export const WordsPayloadSchema = z.object({ word: z.string(), method: z.string(), repeat: z.int() });
type WordsProblem = ProblemOf<z.output<typeof WordsPayloadSchema>>;

export const wordsFamily: DefinedFamily<typeof WORDS_ID, typeof WordsEntrySchema, z.output<typeof WordsPayloadSchema>> = defineFamily({
  id: WORDS_ID,
  description: 'Words (a test family): transform(s) applies a string method',
  entrySchema: WordsEntrySchema,
  payloadSchema: WordsPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const rows = parseJsonl(texts.rows!, RowSchema, sources.rows!);
    const problem = datasetRowsProblem(
      rows.map(({ line, row }) => ({ line, row: { task_id: row.id } })),
      sources.rows!,
    );
    if (problem) throw new Error(problem);
    return {
      problems: rows.map(({ row }): WordsProblem => ({
        // The id a real family lists in ids.ts (the test adds it there).
        family: WORDS_ID as FamilyId,
        task_id: row.id,
        prompt: `def transform(s):\n    """Return s repeated ${entry.repeat} time(s), then .${row.method}()."""\n`,
        entry_point: 'transform',
        test: '',
        form: 'completion',
        word: row.word,
        method: row.method,
        repeat: entry.repeat,
      })),
      notes: [],
    };
  },
  stopWords: () => ['\ndef ', '\nif __name__'],
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: (problem) => `Write the Python function \`${problem.entry_point}\`. Reply with it in one \`\`\`python code block.`,
  solution: solutionFromGeneration,
  referenceSolution: (problem) => `def transform(s):\n    return (s * ${problem.repeat}).${problem.method}()\n`,
  embedSolution: (_problem, solution) => solution,
  checking: () => ({ kind: 'tests' }),
  // The tests come from the payload, never from the core's `test`.
  tests: (problem) => {
    const word = JSON.stringify(problem.word);
    return `assert transform(${word}) == (${word} * ${problem.repeat}).${problem.method}(), transform(${word})\n`;
  },
  limits: (_problem, _reference, timeoutMs) => ({ timeoutMs }),
  score: statusScore,
  requirements: () => [],
  // evaluate.ts's own flag of the family, `--repeat <n>`: the entry's `repeat`, from the one declaration above.
  evaluate: readsProblemsFiles({
    recognize: { rank: 5, test: (row) => 'word' in row && 'method' in row, fields: "Words' id, word, method" },
    options: WORDS_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => {
      const entry = WordsEntrySchema.parse({
        name: 'evaluate',
        family: WORDS_ID,
        path: 'rows.jsonl',
        repeat: options.repeat,
      });
      return wordsFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  }),
});
