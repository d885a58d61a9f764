/**
 * A throwaway text-scored family (TaskChecking `text`), written as docs/extending.md says one is:
 * "Phrases": each row has an intent and a one-line snippet; the model writes the line, which is
 * scored by bigcode's BLEU against the snippet, nothing run (a prose row: by a metric of its own,
 * PHRASES_EXACT_MATCH). Its id is not in ids.ts: the tests
 * that use it add it there and to the registry, as a real family's folder would.
 */
import { z } from 'zod';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { datasetRowsProblem } from '../../domain/datasets/problems.js';
import { defineFamily } from '../../domain/families/define.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../../domain/families/entry.js';
import type { FamilyId } from '../../domain/families/ids.js';
import { BIGCODE_BLEU, bigcodeBleuStats, TEXT_SCORED_STEPS } from '../../domain/families/textScored.js';
import type { CorpusMetric, DefinedFamily, ProblemOf } from '../../domain/families/types.js';

export const PHRASES_ID = 'phrases' as const;

/**
 * A metric no other family has (prose answers: the share of samples equal to the snippet), declared
 * in the family's corpusMetrics: plugging the family in is all a comparison needs to recompute it.
 */
export const PHRASES_EXACT_MATCH: CorpusMetric = {
  id: 'phrases-exact',
  samples: 'all',
  headline: 'exact_match',
  figures: (sums, count) => ({ exact_match: (sums.exact ?? 0) / count }),
};

export const PhrasesEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal(PHRASES_ID),
  path: JsonlFileSchema,
});

const RowSchema = z.looseObject({ id: z.string().min(1), intent: z.string().min(1), snippet: z.string(), prose: z.boolean().optional() });

/** `prose`: the answer is prose, read from a chat reply whole (TaskChecking `answer: 'reply'`). */
export const PhrasesPayloadSchema = z.object({ snippet: z.string(), prose: z.boolean() });
type PhrasesProblem = ProblemOf<z.output<typeof PhrasesPayloadSchema>>;

export const phrasesFamily: DefinedFamily<
  typeof PHRASES_ID,
  typeof PhrasesEntrySchema,
  z.output<typeof PhrasesPayloadSchema>
> = defineFamily({
  id: PHRASES_ID,
  description: 'Phrases (a test family): one line of Python per intent, scored by BLEU',
  entrySchema: PhrasesEntrySchema,
  payloadSchema: PhrasesPayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ texts, sources }) => {
    const rows = parseJsonl(texts.rows!, RowSchema, sources.rows!);
    const problem = datasetRowsProblem(
      rows.map(({ line, row }) => ({ line, row: { task_id: row.id } })),
      sources.rows!,
    );
    if (problem) throw new Error(problem);
    return {
      problems: rows.map(({ row }): PhrasesProblem => ({
        family: PHRASES_ID as FamilyId,
        task_id: row.id,
        prompt: `Answer in one line of Python:\n${row.intent}\nSolution:\n`,
        entry_point: 'none',
        test: '',
        form: 'full',
        snippet: row.snippet,
        prose: row.prose ?? false,
      })),
      notes: [],
    };
  },
  stopWords: () => ['\n'],
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () => 'Answer with one line of Python.',
  // The prediction: the generation stripped (a saved or completed line alike).
  solution: (_problem, _api, code) => code.trim(),
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: (problem) =>
    problem.prose
      ? {
          kind: 'text',
          metric: PHRASES_EXACT_MATCH,
          reference: problem.snippet,
          stats: (solution) => ({ exact: solution === problem.snippet ? 1 : 0 }),
          answer: 'reply' as const,
        }
      : {
          kind: 'text',
          metric: BIGCODE_BLEU,
          reference: problem.snippet,
          stats: (solution) => bigcodeBleuStats(solution, problem.snippet),
        },
  // Its metrics, the new one included: what a comparison finds by the id its results store.
  corpusMetrics: [BIGCODE_BLEU, PHRASES_EXACT_MATCH],
  evaluate: {
    kind: 'reads',
    recognize: { rank: 5, test: (row) => 'intent' in row && 'snippet' in row, fields: "Phrases' id, intent, snippet" },
    form: 'full',
    problems: ({ text, source }) => {
      const entry = PhrasesEntrySchema.parse({ name: 'evaluate', family: PHRASES_ID, path: 'rows.jsonl' });
      return phrasesFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  },
});
