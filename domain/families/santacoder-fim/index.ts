/**
 * SantaCoder FIM (bigcode's `santacoder_fim` and `starcoder_fim`; rows and scoring: rows.ts): each
 * task is one line of a HumanEval solution in py, js or java to fill in, asked of a completion
 * model with FIM tokens as a FIM prompt of the row's prompt and suffix (the model's `fim:` tokens
 * stand for the task's: bigcode's two tasks differ only in them and in one stop word). Scored from
 * the text, nothing run: exact match after strip(), per language as bigcode reports it, plus the
 * share over all the cell's samples (explora's, the headline).
 */
import { bigcodeNames } from '../evaluateOptions.js';
import { z } from 'zod';
import { DatasetEntryNameSchema, RowsFileSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import { TEXT_SCORED_STEPS } from '../textScored.js';
import type { CorpusMetric, DefinedFamily, MetricFigures, ProblemOf, TextStats } from '../types.js';
import type { FamilyId } from '../ids.js';
import type { LanguageId } from '../../languages/registry.js';
import { FIM_LANGUAGES } from '../../metrics/exactMatch.js';
import { exactlyMatches, readSantaCoderFimRows, santaCoderFimPostprocess, SANTACODER_FIM_STOP_WORDS, type FimLanguage } from './rows.js';

export const SantaCoderFimEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('santacoder-fim'),
  /** bigcode/santacoder-fim-task's file: its Parquet (data/train-*.parquet) or the rows as JSON Lines; local or s3://. */
  path: RowsFileSchema,
  /** Only the tasks of these languages; absent: all (py, js, java). */
  languages: z.array(z.enum(FIM_LANGUAGES)).min(1).optional(),
});
export type SantaCoderFimEntry = z.output<typeof SantaCoderFimEntrySchema>;

const PayloadSchema = z.object({ language: z.enum(FIM_LANGUAGES), suffix: z.string() });
type FimProblem = ProblemOf<z.output<typeof PayloadSchema>>;

/** Where each row language's programs would be written (asked of every family; nothing runs). */
const LANGUAGE_OF: Record<FimLanguage, LanguageId> = { py: 'python', js: 'js', java: 'java' };

/**
 * bigcode's exact match as a corpus metric: each sample adds 1 to `<lang>.count` and, when right,
 * to `<lang>.right`; the figures are bigcode's `<lang> Exact Match` for py, js and java (0 for a
 * language without samples) and `Exact Match` over all the samples.
 */
export const FIM_EXACT_MATCH: CorpusMetric = {
  id: 'exact-match',
  samples: 'all',
  headline: 'Exact Match',
  figures(sums: Readonly<TextStats>): MetricFigures {
    const figures: MetricFigures = {};
    let right = 0;
    let count = 0;
    for (const lang of FIM_LANGUAGES) {
      const n = sums[`${lang}.count`] ?? 0;
      right += sums[`${lang}.right`] ?? 0;
      count += n;
      figures[`${lang} Exact Match`] = n ? (sums[`${lang}.right`] ?? 0) / n : 0;
    }
    figures['Exact Match'] = count ? right / count : 0;
    return figures;
  },
};

export const santaCoderFimFamily: DefinedFamily<
  'santacoder-fim',
  typeof SantaCoderFimEntrySchema,
  z.output<typeof PayloadSchema>
> = defineFamily({
  id: 'santacoder-fim',
  description: "SantaCoder FIM (bigcode's santacoder_fim / starcoder_fim): one line to fill in, scored by exact match",
  entrySchema: SantaCoderFimEntrySchema,
  payloadSchema: PayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const rows = readSantaCoderFimRows(texts.rows!, sources.rows!).filter(
      ({ row }) => !entry.languages || entry.languages.includes(row.language),
    );
    if (rows.length === 0) throw new Error(`${sources.rows}: no task of ${entry.languages!.join(', ')}`);
    return {
      problems: rows.map(({ row }): FimProblem => ({
        family: 'santacoder-fim' as FamilyId,
        task_id: row.name,
        prompt: row.prompt,
        entry_point: 'none',
        test: '',
        canonical_solution: row.canonical_solution,
        form: 'completion',
        language: row.language,
        suffix: row.suffix,
      })),
      notes: [],
    };
  },
  stopWords: () => SANTACODER_FIM_STOP_WORDS,
  language: (problem) => LANGUAGE_OF[problem.language],
  completionPrompt: (problem) => problem.prompt,
  fillsInTheMiddle: () => true,
  infill: (problem) => ({ prefix: problem.prompt, suffix: problem.suffix }),
  // Never asked: the config refuses chat models for fill-in-the-middle datasets.
  chatInstruction: () => 'Write the one line of code that goes where the gap is.',
  solution: (_problem, _api, code) => santaCoderFimPostprocess(code),
  referenceSolution: () => null,
  ...TEXT_SCORED_STEPS,
  checking: (problem) => ({
    kind: 'text',
    metric: FIM_EXACT_MATCH,
    reference: problem.canonical_solution!,
    stats: (solution) => ({
      [`${problem.language}.right`]: exactlyMatches(solution, problem.canonical_solution!) ? 1 : 0,
      [`${problem.language}.count`]: 1,
    }),
  }),
  corpusMetrics: [FIM_EXACT_MATCH],
  evaluate: {
    kind: 'reads',
    bigcodeTasks: bigcodeNames('santacoder_fim', 'starcoder_fim'),
    recognize: {
      rank: 35,
      test: (row) => 'suffix' in row && 'canonical_solution' in row && 'name' in row,
      fields: "SantaCoder FIM's name, language, prompt, suffix, canonical_solution",
    },
    form: 'completion',
    problems: ({ text, source }) => {
      const entry = SantaCoderFimEntrySchema.parse({ name: 'evaluate', family: 'santacoder-fim', path: 'rows.jsonl' });
      return santaCoderFimFamily.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  },
});
