/**
 * DS-1000 (Lai et al. 2023, "DS-1000: A Natural and Reliable Benchmark for Data Science Code
 * Generation"), its current release (`ds1000.jsonl(.gz)`, as xlang-ai/DS-1000 publishes it: prompt,
 * reference_code, metadata {problem_id, library_problem_id, library, test_case_cnt,
 * perturbation_type, perturbation_origin_id}, code_context). Each task's own harness is its
 * `code_context`, which defines `test_execution(solution)` and sometimes `test_string(solution)`;
 * the program is DS-1000's official one: code_context, then `code = <the solution as a string>`,
 * `test_execution(code)` and, when the context defines it, `test_string(code)`. The solution is
 * the answer after DS-1000's official postprocessing (cut at `</code>`, "```", "\nEND SOLUTION";
 * `<code>` and "```python" removed). The libraries a task needs (numpy, pandas, scipy, matplotlib,
 * scikit-learn, torch, tensorflow) must be in the sandbox's Python: a sweep naming tasks whose
 * library is missing is refused before it starts (`requirements`).
 */
import { z } from 'zod';
import { datasetRowsProblem, type SweepProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../entry.js';
import { selfChecking } from '../humanevalStyle.js';
import { defineFamily } from '../define.js';
import type { DefinedFamily } from '../types.js';

/** DS-1000's libraries as its metadata names them: the module the sandbox imports, and how to get it. */
export const DS1000_LIBRARIES = {
  Numpy: { module: 'numpy', install: 'bash scripts/install-sandbox-python.sh' },
  Pandas: { module: 'pandas', install: 'bash scripts/install-sandbox-python.sh' },
  Scipy: { module: 'scipy', install: 'bash scripts/install-ds1000.sh' },
  Matplotlib: { module: 'matplotlib', install: 'bash scripts/install-ds1000.sh' },
  Sklearn: { module: 'sklearn', install: 'bash scripts/install-ds1000.sh' },
  Pytorch: { module: 'torch', install: 'bash scripts/install-ds1000.sh --with-torch' },
  Tensorflow: { module: 'tensorflow', install: 'bash scripts/install-ds1000.sh --with-tensorflow' },
} as const;
export type Ds1000Library = keyof typeof DS1000_LIBRARIES;
const LIBRARY_NAMES = Object.keys(DS1000_LIBRARIES) as [Ds1000Library, ...Ds1000Library[]];

/** DS-1000's stop words for completion models (its official generation's). */
export const DS1000_STOP_WORDS: readonly string[] = Object.freeze(['</code>', '# SOLUTION END']);

export const Ds1000EntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('ds1000'),
  /** ds1000.jsonl or ds1000.jsonl.gz, local or s3://. */
  path: JsonlFileSchema,
  /** Only the tasks of these libraries (as the metadata names them); absent: all. */
  libraries: z.array(z.enum(LIBRARY_NAMES)).min(1).optional(),
});
export type Ds1000Entry = z.output<typeof Ds1000EntrySchema>;

const RowSchema = z.looseObject({
  prompt: z.string().min(1),
  reference_code: z.string(),
  metadata: z.looseObject({ problem_id: z.int().nonnegative(), library: z.enum(LIBRARY_NAMES) }),
  code_context: z.string().regex(/\bdef test_execution\s*\(/, "must define test_execution(solution), as DS-1000's harness does"),
});

/** DS-1000's official postprocessing of an answer (test_ds1000.py's postprocess). */
export function ds1000Postprocess(code: string): string {
  return code.split('</code>')[0]!.replace('```python', '').split('```')[0]!.split('\nEND SOLUTION')[0]!.replace('<code>', '');
}

function b64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The library a stored DS-1000 problem needs (kept in its entry point, which DS-1000 tasks have none of). */
function libraryOf(problem: SweepProblem): Ds1000Library {
  const library = problem.entry_point as Ds1000Library;
  if (!(library in DS1000_LIBRARIES)) throw new Error(`DS-1000 task ${problem.task_id}: unknown library ${problem.entry_point}`);
  return library;
}

// Typed here: its evaluate step loads through it.
export const ds1000Family: DefinedFamily<'ds1000', typeof Ds1000EntrySchema> = defineFamily({
  id: 'ds1000',
  description: "DS-1000 (its current release): data-science completions checked by each task's own code_context harness",
  entrySchema: Ds1000EntrySchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const rows = parseJsonl(texts.rows!, RowSchema, sources.rows!).filter(
      ({ row }) => !entry.libraries || entry.libraries.includes(row.metadata.library),
    );
    const problem = datasetRowsProblem(
      rows.map(({ line, row }) => ({ line, row: { task_id: String(row.metadata.problem_id) } })),
      sources.rows!,
    );
    if (problem)
      throw new Error(entry.libraries && rows.length === 0 ? `${sources.rows}: no task of ${entry.libraries.join(', ')}` : problem);
    return {
      problems: rows.map(({ row }): SweepProblem => ({
        family: 'ds1000',
        task_id: String(row.metadata.problem_id),
        prompt: row.prompt,
        // DS-1000 tasks call no function: the entry point records the task's library.
        entry_point: row.metadata.library,
        test: row.code_context,
        canonical_solution: row.reference_code,
        form: 'completion',
      })),
      notes: [],
    };
  },
  stopWords: () => DS1000_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  chatInstruction: () =>
    'Complete the code below: reply with only the code that goes where the solution belongs (between BEGIN SOLUTION and END SOLUTION), in one ```python code block.',
  solution: (_problem, _api, code) => ds1000Postprocess(code),
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  ...selfChecking,
  // The official program: the context, then the solution as a string its harness executes.
  embedSolution: (problem, solution) =>
    `${problem.test}\ncode = __import__("base64").b64decode(${JSON.stringify(b64(solution))}).decode("utf-8")\n`,
  tests: (problem, _reference) =>
    problem.test.includes('test_string(') ? 'test_execution(code)\ntest_string(code)\n' : 'test_execution(code)\n',
  // The sweep's timeout_s (DS-1000's official evaluation gives a program 120 s).
  limits: (_problem, _reference, timeoutMs) => ({ timeoutMs }),
  requirements: (problem) => {
    const library = DS1000_LIBRARIES[libraryOf(problem)];
    return [{ kind: 'python-module', module: library.module, why: `DS-1000's ${libraryOf(problem)} tasks`, install: library.install }];
  },
  evaluate: {
    kind: 'reads',
    recognize: {
      rank: 30,
      test: (row) => 'code_context' in row && 'reference_code' in row,
      fields: "DS-1000's prompt, reference_code, metadata, code_context",
    },
    options: [],
    form: 'completion',
    problems: ({ text, source }) => {
      const entry = Ds1000EntrySchema.parse({ name: 'evaluate', family: 'ds1000', path: 'rows.jsonl' });
      return ds1000Family.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  },
});
