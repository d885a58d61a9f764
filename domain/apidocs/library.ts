/**
 * An API library a method may be told about: its documentation table (one row per API: import
 * path, name, signature, description, optional examples), a short summary for the planner, and how
 * programs that use it are run. Datasets carry one (PBE World: Python's `str` methods or a generated
 * private library; MonkeyEval / BeatNumEval: renamed pandas / numpy). Stored in S3 beside a sweep's
 * dataset and read by the method and sandbox activities.
 */
import { z } from 'zod';

export const ApiDocSchema = z.strictObject({
  /** Dotted path a program uses, e.g. `str.replace`, `strkit.swap_all`, `monkey.KnowledgeFrame.sip`. */
  import_path: z.string().min(1),
  name: z.string().min(1),
  signature: z.string(),
  description: z.string().min(1),
  examples: z.array(z.string()).optional(),
});
export type ApiDoc = z.infer<typeof ApiDocSchema>;

/**
 * How a program written against the library is made runnable:
 * - `builtin`: nothing to do (Python's own `str`);
 * - `module`: a generated module (PBE World private library) made importable under `module`;
 * - `renamed`: a renamed copy of a real library (MonkeyEval: pandas -> monkey); programs are mapped
 *   back to the original names before running, and what the program prints or raises is mapped to
 *   the renamed names before anyone (a model, a trace) sees it.
 */
export const LibraryRuntimeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('builtin') }),
  z.strictObject({ kind: z.literal('module'), module: z.string().regex(/^[a-z_][a-z0-9_]*$/), source: z.string().min(1) }),
  z.strictObject({
    kind: z.literal('renamed'),
    /** The real library, e.g. `pandas`. */
    original: z.string().min(1),
    /** Its private name, e.g. `monkey`. */
    renamed: z.string().min(1),
    /** original keyword -> private keyword (PyCodeGPT's *_keywords.jsonl, which despite its name is one JSON object). */
    mapping: z.record(z.string(), z.string()),
  }),
]);
export type LibraryRuntime = z.infer<typeof LibraryRuntimeSchema>;

export const ApiLibrarySchema = z.strictObject({
  /** e.g. `python-str`, `pbe-private`, `monkey`. */
  name: z.string().min(1),
  /** A few sentences on what the library is for, shown to the planner. */
  summary: z.string().min(1),
  docs: z.array(ApiDocSchema).min(1),
  runtime: LibraryRuntimeSchema,
  /**
   * A real library the paper treats as unseen (released after the models' training data, e.g.
   * torchdata for TorchDataEval): its runtime is the sandbox's own, but `doc_masking: auto` masks
   * its docs as for the private and renamed libraries. Absent: unseen only if its runtime is not builtin.
   */
  unseen: z.literal(true).optional(),
  /**
   * What any program using the library needs from the sandbox beyond its defaults, for the runs the
   * methods make themselves (exploration snippets, self-repair's checks) as for the samples: torch's
   * CUDA libraries map ~3 GB of address space (the sandbox limits RLIMIT_AS) and take seconds to import.
   */
  sandbox: z
    .strictObject({
      memory_bytes: z.int().positive().optional(),
      min_timeout_s: z.number().positive().optional(),
      /**
       * The Python environment the dataset's scoring runs programs with (BigCodeBench's pinned
       * libraries), set up by a one-line preamble (pythonEnvironment.ts): `path`, a venv's folder
       * mounted read-only at its own path, whose site-packages go first on sys.path; `environ`, the
       * variables the scoring's harness sets (TZ, OMP_NUM_THREADS...). HOME is the run's folder
       * unless set (the sandbox gives none; matplotlib stops at import without one).
       */
      python_environment: z
        .strictObject({
          path: z.string().startsWith('/', 'must be an absolute path'),
          environ: z.record(z.string(), z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
});

/** The limits of a method's own run of a program using `library`, given the method's time limit. */
export function librarySnippetLimits(library: ApiLibrary, timeoutS: number): { timeoutMs: number; memoryBytes?: number } {
  const needs = library.sandbox ?? {};
  return {
    timeoutMs: Math.round(Math.max(timeoutS, needs.min_timeout_s ?? 0) * 1000),
    ...(needs.memory_bytes !== undefined ? { memoryBytes: needs.memory_bytes } : {}),
  };
}
export type ApiLibrary = z.infer<typeof ApiLibrarySchema>;

/** A program ready for the sandbox, or the reason it must not run (counted as a runtime error). */
export type PreparedProgram = { ok: true; program: string } | { ok: false; error: { type: string; message: string } };

/**
 * A requirement and its numbered API subtasks: a few-shot demo for the planner, drawn from the
 * library's own usage (usageDemos.ts), never from a benchmark task.
 */
const PlannerExampleShape = z.strictObject({
  /** The usage example it was written from (e.g. `str-slug`, `doc:mylib.open`). */
  id: z.string().min(1),
  requirement: z.string().min(1),
  subtasks: z.array(z.string().min(1)).min(1),
});

/**
 * Libraries stored before issue 20 named the task an example was built from (`task_id`); a sweep
 * still running on one reads them under `id`.
 */
export const PlannerExampleSchema = z.preprocess((v) => {
  if (v && typeof v === 'object' && 'task_id' in v && !('id' in v)) {
    const { task_id, ...rest } = v as Record<string, unknown>;
    return { id: task_id, ...rest };
  }
  return v;
}, PlannerExampleShape);
export type PlannerExample = z.infer<typeof PlannerExampleSchema>;

/** What a dataset brings for API-aware methods; stored beside a sweep's copy of the dataset. */
export const DatasetLibrarySchema = z.strictObject({
  library: ApiLibrarySchema,
  planner_examples: z.array(PlannerExampleSchema),
});
export type DatasetLibrary = z.infer<typeof DatasetLibrarySchema>;
