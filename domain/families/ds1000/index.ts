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
 *
 * `mode: insertion` is bigcode's `ds1000-<subset>-insertion`: the task is a gap to fill, asked of a
 * completion model with FIM tokens as the text before DS-1000's `[insert]` and the text after it
 * (each stripped, then a newline after the prefix and around the suffix, as bigcode's get_prompt
 * does); the answer is cut at the stop words and stripped (bigcode's postprocess_generation), then
 * checked by the same code_context as in completion mode. The current release's prompts are
 * completion prompts: insertion needs rows whose prompt holds the original format's Insertion
 * prompt (with one `[insert]`; docs/datasets/ds1000.md). Matplotlib has no insertion prompts; as bigcode
 * does, its tasks are left out in insertion mode.
 */
import { z } from 'zod';
import { readsProblemsFiles } from '../evaluateOptions.js';
import { familyOptions, option } from '../familyOptions.js';
import { datasetRowsProblem, type SweepProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { DatasetEntryNameSchema, JsonlFileSchema } from '../entry.js';
import { selfChecking } from '../humanevalStyle.js';
import { defineFamily } from '../define.js';
import { pyStrip } from '../../metrics/pythonText.js';
import type { DefinedFamily } from '../types.js';
import { utf8Base64 } from '../base64.js';

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

/** The entry's mode and evaluate.ts's --ds1000-mode (its flag's name from before the family declared its options). */
const DS1000_OPTIONS = familyOptions({
  /**
   * completion (left to right, the default) or insertion (fill in the middle, bigcode's
   * ds1000-*-insertion). `completion` resolves to absent, so configs written before the option
   * existed, and those that spell the default out, hash alike.
   */
  mode: option(
    z
      .enum(['completion', 'insertion'])
      .optional()
      .transform((mode) => (mode === 'insertion' ? mode : undefined)),
    {
      help: "completion (default) or insertion (bigcode's ds1000-*-insertion: each completion is the middle, rows' prompts hold [insert])",
      value: 'mode',
      flag: 'ds1000-mode',
    },
  ),
});

export const Ds1000EntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('ds1000'),
  /** ds1000.jsonl or ds1000.jsonl.gz, local or s3://. */
  path: JsonlFileSchema,
  /** Only the tasks of these libraries (as the metadata names them); absent: all. */
  libraries: z.array(z.enum(LIBRARY_NAMES)).min(1).optional(),
  ...DS1000_OPTIONS.entry,
});
export type Ds1000Entry = z.output<typeof Ds1000EntrySchema>;

const RowSchema = z.looseObject({
  prompt: z.string().min(1),
  reference_code: z.string(),
  metadata: z.looseObject({ problem_id: z.int().nonnegative(), library: z.enum(LIBRARY_NAMES) }),
  code_context: z.string().regex(/\bdef test_execution\s*\(/, "must define test_execution(solution), as DS-1000's harness does"),
});

/** Where an insertion prompt's gap is (DS-1000's marker, which bigcode splits the prompt at). */
const INSERT = '[insert]';

/**
 * A problem's payload: how its task is asked. Completion problems carry none (their stored bytes
 * are those of before insertion mode); insertion problems the text before and after the gap.
 */
const Ds1000PayloadSchema = z.union([
  z.object({ mode: z.literal('insertion'), prefix: z.string(), suffix: z.string() }),
  z.object({ mode: z.literal('completion').optional() }),
]);
type Ds1000Payload = z.output<typeof Ds1000PayloadSchema>;

/** bigcode's insertion prompt of a DS-1000 prompt (GeneralDS1000.get_prompt): split at [insert], stripped, newlines kept at the joins. */
export function ds1000InsertionParts(prompt: string): { prefix: string; suffix: string } {
  const [before, after] = prompt.split(INSERT) as [string, string];
  return { prefix: `${pyStrip(before)}\n`, suffix: `\n${pyStrip(after)}\n` };
}

/** bigcode's postprocessing of an insertion answer: cut at each stop word, stripped. */
export function ds1000InsertionPostprocess(generation: string): string {
  let out = generation;
  for (const stop of DS1000_STOP_WORDS) out = out.split(stop)[0]!;
  return pyStrip(out);
}

/** DS-1000's official postprocessing of an answer (test_ds1000.py's postprocess). */
export function ds1000Postprocess(code: string): string {
  return code.split('</code>')[0]!.replace('```python', '').split('```')[0]!.split('\nEND SOLUTION')[0]!.replace('<code>', '');
}

/** The library a stored DS-1000 problem needs (kept in its entry point, which DS-1000 tasks have none of). */
function libraryOf(problem: SweepProblem): Ds1000Library {
  const library = problem.entry_point as Ds1000Library;
  if (!(library in DS1000_LIBRARIES)) throw new Error(`DS-1000 task ${problem.task_id}: unknown library ${problem.entry_point}`);
  return library;
}

// Typed here: its evaluate step loads through it.
export const ds1000Family: DefinedFamily<'ds1000', typeof Ds1000EntrySchema, Ds1000Payload> = defineFamily({
  id: 'ds1000',
  description: "DS-1000 (its current release): data-science completions checked by each task's own code_context harness",
  entrySchema: Ds1000EntrySchema,
  payloadSchema: Ds1000PayloadSchema,
  bringsLibrary: () => false,
  files: (entry) => ({ rows: { path: entry.path, field: 'path' } }),
  load: ({ entry, texts, sources }) => {
    const insertion = entry.mode === 'insertion';
    const all = parseJsonl(texts.rows!, RowSchema, sources.rows!).filter(
      ({ row }) => !entry.libraries || entry.libraries.includes(row.metadata.library),
    );
    // bigcode leaves Matplotlib out of insertion mode: DS-1000 has no insertion prompts for it.
    const rows = insertion ? all.filter(({ row }) => row.metadata.library !== 'Matplotlib') : all;
    const notes =
      rows.length < all.length
        ? [`${sources.rows}: ${all.length - rows.length} Matplotlib task(s) left out: insertion mode has none (as bigcode)`]
        : [];
    if (insertion) {
      for (const { line, row } of rows) {
        const gaps = row.prompt.split(INSERT).length - 1;
        if (gaps !== 1)
          throw new Error(
            `${sources.rows}:${line}: prompt: mode: insertion needs a prompt with one ${INSERT} (the original format's Insertion prompt, ` +
              `see docs/datasets/ds1000.md); this one has ${gaps}${gaps === 0 ? ' (a completion prompt: leave mode out)' : ''}`,
          );
      }
    }
    const problem = datasetRowsProblem(
      rows.map(({ line, row }) => ({ line, row: { task_id: String(row.metadata.problem_id) } })),
      sources.rows!,
    );
    if (problem)
      throw new Error(
        entry.libraries && rows.length === 0
          ? `${sources.rows}: no task of ${entry.libraries.join(', ')}${insertion ? ' in insertion mode (Matplotlib has none)' : ''}`
          : problem,
      );
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
        ...(insertion ? { mode: 'insertion' as const, ...ds1000InsertionParts(row.prompt) } : {}),
      })),
      notes,
    };
  },
  stopWords: () => DS1000_STOP_WORDS,
  language: () => 'python',
  completionPrompt: (problem) => problem.prompt,
  fillsInTheMiddle: (entry) => entry.mode === 'insertion',
  infill: (problem) => (problem.mode === 'insertion' ? { prefix: problem.prefix, suffix: problem.suffix } : undefined),
  chatInstruction: () =>
    'Complete the code below: reply with only the code that goes where the solution belongs (between BEGIN SOLUTION and END SOLUTION), in one ```python code block.',
  solution: (problem, _api, code) => (problem.mode === 'insertion' ? ds1000InsertionPostprocess(code) : ds1000Postprocess(code)),
  referenceSolution: (problem) => problem.canonical_solution ?? null,
  ...selfChecking,
  // The official program: the context, then the solution as a string its harness executes.
  embedSolution: (problem, solution) =>
    `${problem.test}\ncode = __import__("base64").b64decode(${JSON.stringify(utf8Base64(solution))}).decode("utf-8")\n`,
  tests: (problem, _reference) =>
    problem.test.includes('test_string(') ? 'test_execution(code)\ntest_string(code)\n' : 'test_execution(code)\n',
  // The sweep's timeout_s (DS-1000's official evaluation gives a program 120 s).
  limits: (_problem, _reference, timeoutMs) => ({ timeoutMs }),
  requirements: (problem) => {
    const library = DS1000_LIBRARIES[libraryOf(problem)];
    return [{ kind: 'python-module', module: library.module, why: `DS-1000's ${libraryOf(problem)} tasks`, install: library.install }];
  },
  evaluate: readsProblemsFiles({
    // bigcode's ds1000-<library|all>-<completion|insertion>.
    bigcodeTasks: {
      names: 'ds1000-<all|numpy|pandas|...>-<completion|insertion>',
      read: (task) => {
        const mode = /^ds1000-[a-z]+-(completion|insertion)$/i.exec(task)?.[1];
        return mode === undefined ? null : { options: { mode } };
      },
    },
    recognize: {
      rank: 30,
      test: (row) => 'code_context' in row && 'reference_code' in row,
      fields: "DS-1000's prompt, reference_code, metadata, code_context",
    },
    options: DS1000_OPTIONS.evaluate,
    form: 'completion',
    problems: ({ text, source, options }) => {
      const mode = options.mode;
      const entry = Ds1000EntrySchema.parse({ name: 'evaluate', family: 'ds1000', path: 'rows.jsonl', ...(mode ? { mode } : {}) });
      return ds1000Family.load({ entry, texts: { rows: text }, sources: { rows: source } }).problems;
    },
  }),
});
