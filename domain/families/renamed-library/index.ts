/**
 * MonkeyEval / BeatNumEval: pandas and numpy tasks rewritten onto renamed "private" libraries
 * (monkey, beatnum), with the rename map and per-keyword docs. A solution written against the
 * renamed API is mapped back and run on the real library; one that uses an original name fails.
 * Some tasks are statements (an unfinished script, entry point `None`).
 */
import { z } from 'zod';
import { DatasetEntryNameSchema, formOf, JsonlFileSchema, localOrS3File, programFormSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import { DatasetRowSchema, humanEvalStylePython, normalizeRow } from '../humanevalStyle.js';
import { loadPrivateLibraryDataset } from './loader.js';

export const RenamedLibraryEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('renamed-library'),
  /** real_{monkey,beatnum}_eval_v3.jsonl(.gz), local or s3://. */
  path: JsonlFileSchema,
  program_form: programFormSchema('prompt_plus_completion'),
  library: z.strictObject(
    {
      private_library: z.enum(['monkey', 'beatnum']),
      /** {pandas,numpy}_keywords.jsonl: original name -> private name. */
      keywords: JsonlFileSchema,
      /** {pandas,numpy}_keyword_mapping.json: the private keywords' descriptions (the API docs). */
      mapping: localOrS3File('.json', /\.json$/),
    },
    { error: 'must be {private_library: monkey|beatnum, keywords, mapping}' },
  ),
});
export type RenamedLibraryEntry = z.output<typeof RenamedLibraryEntrySchema>;

export const renamedLibraryFamily = defineFamily({
  id: 'renamed-library',
  description: 'MonkeyEval / BeatNumEval: pandas / numpy tasks on renamed private libraries (rename map and keyword docs)',
  entrySchema: RenamedLibraryEntrySchema,
  bringsLibrary: () => true,
  files: (entry) => ({
    rows: { path: entry.path, field: 'path' },
    keywords: { path: entry.library.keywords, field: 'library.keywords' },
    mapping: { path: entry.library.mapping, field: 'library.mapping' },
  }),
  load: ({ entry, texts, sources }) => {
    const loaded = loadPrivateLibraryDataset({
      rows: texts.rows!,
      keywords: texts.keywords!,
      mapping: texts.mapping!,
      kind: entry.library.private_library,
      source: { rows: sources.rows!, keywords: sources.keywords!, mapping: sources.mapping! },
    });
    return {
      problems: loaded.problems.map((row) => normalizeRow(DatasetRowSchema.parse(row), formOf(entry), 'renamed-library')),
      library: loaded.library,
      notes: loaded.quirks.map((q) => `dataset ${entry.name}: ${q.task_id}: ${q.problem}`),
    };
  },
  evaluate: {
    kind: 'refused',
    why:
      'renamed-library is not read by evaluate.ts: its problems need the library keywords and name-mapping files, which a problems file does not carry; ' +
      'evaluate its generations with a sweep (start-sweep --evaluate-only --load-generations)',
  },
  ...humanEvalStylePython,
});
