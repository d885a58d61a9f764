/**
 * What a PBE World dataset brings for API-aware methods: its library (Python's `str` methods, or the
 * dataset's generated private module with its docs and runtime), and planner demos written from the
 * library's own usage (usageDemos.ts): never a row's pipeline, arguments or solution. A task's
 * requirement in words is stated from its shown examples only (methods/exploracoder/requirement.ts).
 */
import { z } from 'zod';
import { getOperation } from '../pbe/operations.js';
import { validatePbeParams, type PbeParams } from '../pbe/params.js';
import { privateFunction, privateLibrary, type PrivateLibrary } from '../pbe/privateLibrary.js';
import { DatasetLibrarySchema, type ApiLibrary, type DatasetLibrary } from './library.js';
import { privateDemos, strDemos } from './usageDemos.js';
import { PYTHON_STR_LIBRARY } from './pythonStr.js';

/** The fields of a dataset row this module reads; the others are ignored. */
export const PbeLibraryRowSchema = z.looseObject({
  task_id: z.string().min(1),
  canonical_pipeline: z.array(z.strictObject({ method: z.string(), args: z.array(z.string()) })).min(1),
  examples: z.array(z.strictObject({ input: z.string(), output: z.string() })).min(1),
  metadata: z
    .looseObject({
      library: z.looseObject({ module: z.string(), source_hash: z.string() }).optional(),
    })
    .optional(),
});
/** What a caller passes: any object with these fields (a whole PbeTask row is one). */
export interface PbeLibraryRow {
  task_id: string;
  canonical_pipeline: ReadonlyArray<{ method: string; args: readonly string[] }>;
  examples: ReadonlyArray<{ input: string; output: string }>;
  metadata?: { library?: { module: string; source_hash: string } };
}

/** The private module's entry in the documentation table: one row per function. */
export function privateApiLibrary(library: PrivateLibrary): ApiLibrary {
  const m = library.module;
  return {
    name: library.name,
    summary:
      `${m} is a small private Python module of text functions: it replaces substrings, changes the case of letters and ` +
      'removes characters at both ends of a string. Every function takes its text and settings as str and returns a new str. ' +
      `Import it with \`import ${m}\` and call its functions as ${m}.<name>(...); each has its own argument order, and some ` +
      'arguments must be passed by keyword, so follow the signatures.',
    docs: library.functions.map((fn) => ({
      import_path: `${m}.${fn.name}`,
      name: fn.name,
      signature: `${m}.${fn.signature}`,
      description: fn.description,
      examples: [fn.example],
    })),
    runtime: { kind: 'module', module: m, source: library.source },
  };
}

function rowProblem(row: z.infer<typeof PbeLibraryRowSchema>, library: PrivateLibrary | undefined): string | null {
  for (const [i, step] of row.canonical_pipeline.entries()) {
    try {
      const op = getOperation(step.method);
      if (step.args.length !== op.arity)
        return `canonical_pipeline[${i}]: ${op.name} takes ${op.arity} argument(s), got ${step.args.length}`;
    } catch (error) {
      return `canonical_pipeline[${i}].method: ${(error as Error).message}`;
    }
  }
  const rowLibrary = row.metadata?.library;
  if (!library && rowLibrary)
    return `metadata.library: the row uses module ${rowLibrary.module}, but the parameters say library python_str`;
  if (library && !rowLibrary) return `metadata.library: missing; the parameters say library private (module ${library.module})`;
  if (library && rowLibrary && (rowLibrary.module !== library.module || rowLibrary.source_hash !== library.source_hash)) {
    return (
      `metadata.library: the row was generated with module ${rowLibrary.module} (source_hash ${rowLibrary.source_hash}), ` +
      `the parameters give ${library.module} (source_hash ${library.source_hash}): different seed or generator version`
    );
  }
  return null;
}

/**
 * The library and planner demos of the dataset generated with `params`; its rows are checked
 * against the parameters. Throws an Error naming every bad row (index, task_id, field).
 */
export function pbeDatasetLibrary(params: PbeParams, rows: ReadonlyArray<PbeLibraryRow>): DatasetLibrary {
  const valid = validatePbeParams(params);
  const library = valid.library === 'private' ? privateLibrary(valid.seed) : undefined;
  const problems: string[] = [];
  const parsed: z.infer<typeof PbeLibraryRowSchema>[] = [];
  rows.forEach((row, i) => {
    const result = PbeLibraryRowSchema.safeParse(row);
    const id = typeof (row as { task_id?: unknown })?.task_id === 'string' ? ` (${(row as { task_id: string }).task_id})` : '';
    if (!result.success) {
      for (const issue of result.error.issues) problems.push(`rows[${i}]${id}: ${issue.path.join('.') || '(row)'}: ${issue.message}`);
      return;
    }
    const problem = rowProblem(result.data, library);
    if (problem) problems.push(`rows[${i}]${id}: ${problem}`);
    else parsed.push(result.data);
  });
  if (problems.length > 0) throw new Error(`pbeDatasetLibrary: ${problems.length} bad row(s):\n  - ${problems.join('\n  - ')}`);
  return DatasetLibrarySchema.parse({
    library: library ? privateApiLibrary(library) : PYTHON_STR_LIBRARY,
    // Demos are the library's own usage, never another task's pipeline (the paper's planner examples).
    planner_examples: library ? privateDemos(library.module, (op) => privateFunction(library, op).name) : strDemos(),
  });
}
