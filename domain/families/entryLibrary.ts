/**
 * A dataset entry's optional `library` (humaneval, bigcodebench): an API-doc corpus of a library the
 * sandbox's Python already has, which makes the dataset usable by the library-using methods (rag,
 * ExploraCoder). Its schema, the file it names and the dataset library it loads as, declared once.
 */
import { z } from 'zod';
import { parseApiDocsJsonl } from '../apidocs/corpus.js';
import type { ApiLibrary, DatasetLibrary } from '../apidocs/library.js';
import { docExampleDemos } from '../apidocs/usageDemos.js';
import { JsonlFileSchema } from './entry.js';
import type { DatasetFiles, LoadInput } from './types.js';

export const EntryLibrarySchema = z
  .strictObject({
    api_docs: JsonlFileSchema,
    name: z.string().min(1, 'must not be empty'),
    summary: z.string().min(1, 'must not be empty'),
  })
  .optional();
export type EntryLibrary = z.output<typeof EntryLibrarySchema>;

/** The corpus among the entry's files (role api_docs); none without a library. */
export function entryLibraryFiles(library: EntryLibrary): DatasetFiles {
  return library ? { api_docs: { path: library.api_docs, field: 'library.api_docs' } } : {};
}

/**
 * The dataset's library (the corpus read, errors naming its file); {} without one. `sandbox`: what
 * the methods' own runs of its tasks need (bigcodebench: the environment its scoring mounts).
 */
export function loadEntryLibrary(
  library: EntryLibrary,
  { texts, sources }: Pick<LoadInput<unknown>, 'texts' | 'sources'>,
  sandbox?: ApiLibrary['sandbox'],
): { library?: DatasetLibrary } {
  if (!library) return {};
  const docs = parseApiDocsJsonl(texts.api_docs!, sources.api_docs!);
  return {
    library: {
      library: { name: library.name, summary: library.summary, docs, runtime: { kind: 'builtin' }, ...(sandbox ? { sandbox } : {}) },
      // The planner's demos come from the docs' own usage examples (none without them).
      planner_examples: docExampleDemos(docs),
    },
  };
}
