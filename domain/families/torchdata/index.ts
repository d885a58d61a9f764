/**
 * TorchDataEval (PyCodeGPT's private-eval set, Zan et al. 2022, "When Language Model Meets Private
 * Library"; the CAPIR and ExploraCoder papers' third unseen library): 50 tasks on torchdata's
 * DataPipes, `real_torchdata_eval_v3.jsonl(.gz)` in microsoft/PyCodeGPT (apicoder/private-eval/data).
 * Rows are HumanEval-shaped like MonkeyEval's, with no renaming: the library is real (it appeared
 * after the models' training data, which is what makes it "unseen"), so programs run against the
 * installed torchdata as written, as PyCodeGPT's evaluator runs them (`prompt + completion + test`,
 * then `check()`).
 *
 * Every published task is a statement completion (entry point `none`, the prompt an unfinished
 * assignment, `def check():` asserting on the variable it leaves): the test's check gets an ignored
 * parameter and the entry point is `None`, so the sweep's `check(entry_point)` runs it. Canonical
 * solutions are lists of equivalent answers (the class form and the functional form); the reference
 * is the first that calls only names the prompt binds (chooseReference), noted when not the first.
 *
 * The API docs are the installed library's own docstrings, dumped by scripts/install-torchdata.sh
 * (one ApiDoc per public DataPipe and utility); the library is marked unseen, so `doc_masking: auto`
 * masks them as for the other unseen libraries. Programs need torch and torchdata in the sandbox's
 * Python: a sweep naming these tasks without them is refused before it starts.
 */
import { z } from 'zod';
import { parseApiDocsJsonl } from '../../apidocs/corpus.js';
import { docExampleDemos } from '../../apidocs/usageDemos.js';
import { datasetRowsProblem, pyCodeGptCheck, type SweepProblem } from '../../datasets/problems.js';
import { parseJsonl } from '../../datasets/jsonl.js';
import { DatasetEntryNameSchema, formOf, JsonlFileSchema, programFormSchema } from '../entry.js';
import { defineFamily } from '../define.js';
import { DatasetRowSchema, humanEvalStylePython, normalizeRow, type HumanEvalStyleProblem } from '../humanevalStyle.js';
import type { ExecutionLimits } from '../../execution/types.js';
import type { Requirement } from '../types.js';

/**
 * What a TorchDataEval program needs from the sandbox beyond the defaults, measured with torch
 * 2.1.2 / torchdata 0.7.1 (PyPI's CUDA wheel, no GPU) on Python 3.11: importing
 * torchdata.datapipes maps ~3.0 GB of address space (the CUDA libraries; ~400 MB resident) and takes
 * ~1.1 s of CPU (1.5 s wall, more when the sandbox's slots share two cores). The sandbox's memory
 * limit is RLIMIT_AS, so the default 1 GB fails every program with an ImportError or MemoryError:
 * these programs get 4 GiB, and at least 10 s of wall time whatever the sweep's timeout_s.
 */
export const TORCHDATA_LIMITS = { memoryBytes: 4 * 1024 * 1024 * 1024, minTimeoutMs: 10_000 } as const;

/** The module the tasks import, and the command that installs it (with torch) and writes the docs. */
export const TORCHDATA_REQUIREMENT = {
  module: 'torchdata.datapipes',
  install: 'bash scripts/install-torchdata.sh',
} as const;

export const TORCHDATA_SUMMARY =
  'torchdata is a Python library of composable data-loading building blocks for PyTorch, DataPipes, imported as ' +
  '`from torchdata.datapipes.iter import ...` (iterable-style, IterDataPipe) or `from torchdata.datapipes.map import ...` ' +
  '(map-style, MapDataPipe). A DataPipe wraps a source (IterableWrapper over a Python iterable, file listers and openers, ' +
  'HTTP readers) or another DataPipe, and is chained either by constructing the class (`Mapper(dp, fn)`) or by calling ' +
  'its functional name as a method (`dp.map(fn)`): mapping, filtering, batching and unbatching, bucketing, grouping, ' +
  'shuffling and sampling, cycling, concatenating, zipping (also by key), forking and demultiplexing, multiplexing, ' +
  'enumerating, collating, and parsing CSV, JSON and archives. A DataPipe is iterated (`list(dp)`) to produce its items.';

export const TorchDataEntrySchema = z.strictObject({
  name: DatasetEntryNameSchema,
  family: z.literal('torchdata'),
  /** real_torchdata_eval_v3.jsonl(.gz), local or s3://. */
  path: JsonlFileSchema,
  /** torchdata's API docs (JSONL of ApiDoc rows): what scripts/install-torchdata.sh writes to .tools/torchdata/torchdata-api-docs.jsonl. */
  api_docs: JsonlFileSchema,
  program_form: programFormSchema('prompt_plus_completion'),
});
export type TorchDataEntry = z.output<typeof TorchDataEntrySchema>;

/** Python's builtins a one-line answer may call (`list(dp)`, `len(x)`), which no prompt binds. */
const PYTHON_BUILTINS = new Set([
  'abs',
  'all',
  'any',
  'bool',
  'dict',
  'enumerate',
  'filter',
  'float',
  'frozenset',
  'int',
  'isinstance',
  'iter',
  'len',
  'list',
  'map',
  'max',
  'min',
  'next',
  'print',
  'range',
  'reversed',
  'round',
  'set',
  'sorted',
  'str',
  'sum',
  'tuple',
  'zip',
]);

/** Names a prompt binds at top level: imports (`from m import a, b as c`, `import m as n`), assignments, defs and classes. */
function boundNames(prompt: string): Set<string> {
  const names = new Set<string>();
  for (const m of prompt.matchAll(/^from\s+\S+\s+import\s+\(?([^)\n]+)\)?/gm)) {
    for (const part of m[1]!.split(','))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      );
  }
  for (const m of prompt.matchAll(/^import\s+([^\n]+)/gm)) {
    for (const part of m[1]!.split(','))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .trim()
          .split('.')[0]!,
      );
  }
  for (const m of prompt.matchAll(/^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm)) names.add(m[1]!);
  for (const m of prompt.matchAll(/^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)/gm)) {
    for (const name of m[1]!.split(',')) names.add(name.trim());
  }
  return names;
}

/** Names an answer calls bare (`Cycler(dp, 6)`, not `dp.cycle(6)`), outside strings. */
function calledNames(code: string): string[] {
  const withoutStrings = code.replace(/(["'])(?:\\.|(?!\1)[^\\\n])*\1/g, '""');
  return [...withoutStrings.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*\(/g)]
    .map((m) => m[1]!)
    .filter((n) => !['lambda', 'if', 'for', 'in', 'not', 'and', 'or'].includes(n));
}

/**
 * The reference among a row's equivalent answers: the first whose every bare call is of a name the
 * prompt binds or a builtin. The release lists the class form (`Cycler(datapipe, 6)`) and the
 * functional form (`datapipe.cycle(6)`) without importing the class, so the class form, often
 * first, fails with a NameError as PyCodeGPT's evaluator would run it; the intent is unambiguous.
 * When none qualifies, the first.
 */
export function chooseReference(prompt: string, answers: readonly string[]): { index: number; unbound: string[] } {
  const bound = boundNames(prompt);
  const unboundOf = (answer: string) => [...new Set(calledNames(answer).filter((n) => !bound.has(n) && !PYTHON_BUILTINS.has(n)))];
  const index = answers.findIndex((a) => unboundOf(a).length === 0);
  return { index: index === -1 ? 0 : index, unbound: unboundOf(answers[0] ?? '') };
}

/** The rows as problems, statement tasks made callable as `check(None)`; what was changed or is odd, as notes. */
export function torchDataProblems(
  text: string,
  source: string,
  form: 'completion' | 'full',
): { problems: HumanEvalStyleProblem[]; notes: string[] } {
  const rows = parseJsonl(text, DatasetRowSchema, source);
  const problem = datasetRowsProblem(rows, source);
  if (problem) throw new Error(problem);
  const notes: string[] = [];
  const statements: string[] = [];
  const problems = rows.map(({ line, row: published }) => {
    let row = published;
    if (Array.isArray(published.canonical_solution) && published.canonical_solution.length > 1) {
      const chosen = chooseReference(published.prompt, published.canonical_solution);
      if (chosen.index > 0) {
        const [first, pick] = [published.canonical_solution[0]!, published.canonical_solution[chosen.index]!];
        notes.push(
          `${source}:${line}: ${row.task_id}: reference is answer ${chosen.index + 1} (${JSON.stringify(pick.trim())}): the first, ` +
            `${JSON.stringify(first.trim())}, calls ${chosen.unbound.join(', ')}, which the prompt does not import`,
        );
        row = { ...published, canonical_solution: [pick, ...published.canonical_solution.filter((_, i) => i !== chosen.index)] };
      }
    }
    const check = pyCodeGptCheck(row);
    switch (check.kind) {
      case 'no-check':
        notes.push(`${source}:${line}: ${row.task_id}: test defines no check(...) function: every program fails with a NameError`);
        return normalizeRow(row, form, 'torchdata');
      case 'function':
        if (check.checkTakesNoCandidate)
          notes.push(
            `${source}:${line}: ${row.task_id}: entry_point is ${row.entry_point} but the test's check() takes no candidate: every program fails with a TypeError`,
          );
        return normalizeRow(row, form, 'torchdata');
      case 'none-with-parameter':
        notes.push(
          `${source}:${line}: ${row.task_id}: entry_point is "none" but the test's check takes (${check.parameters}): called as check(None)`,
        );
        return normalizeRow({ ...row, entry_point: 'None' }, form, 'torchdata');
      case 'statement':
        statements.push(row.task_id);
        return normalizeRow({ ...row, entry_point: 'None', test: check.test }, form, 'torchdata');
    }
  });
  if (statements.length > 0) {
    notes.push(
      `${statements.length} statement completion(s) (entry_point "none", def check():): the test's check takes an ignored parameter ` +
        `and entry_point is None, so that check(entry_point) runs them`,
    );
  }
  return { problems, notes };
}

export const torchdataFamily = defineFamily({
  id: 'torchdata',
  description: "TorchDataEval: PyCodeGPT's torchdata DataPipe tasks, run on the installed torchdata, with its docstrings as API docs",
  entrySchema: TorchDataEntrySchema,
  bringsLibrary: () => true,
  files: (entry) => ({
    rows: { path: entry.path, field: 'path' },
    api_docs: { path: entry.api_docs, field: 'api_docs' },
  }),
  load: ({ entry, texts, sources }) => {
    const docs = parseApiDocsJsonl(texts.api_docs!, sources.api_docs!);
    const { problems, notes } = torchDataProblems(texts.rows!, sources.rows!, formOf(entry));
    return {
      problems,
      library: {
        library: {
          name: 'torchdata',
          summary: TORCHDATA_SUMMARY,
          docs,
          runtime: { kind: 'builtin' as const },
          unseen: true,
          // The methods' own runs (exploration snippets, self-repair) import torch too.
          sandbox: { memory_bytes: TORCHDATA_LIMITS.memoryBytes, min_timeout_s: TORCHDATA_LIMITS.minTimeoutMs / 1000 },
        },
        // Planner demos from the docstrings' own examples (the library's usage), never a task's solution.
        planner_examples: docExampleDemos(docs),
      },
      notes: notes.map((n) => `dataset ${entry.name}: ${n}`),
    };
  },
  evaluate: {
    kind: 'reads',
    // Its rows are HumanEval's, with statement tasks (entry point `none`) humaneval would call check(none) on.
    recognize: {
      rank: 60,
      test: (row) => 'entry_point' in row && String(row.task_id).startsWith('TorchDataEval/'),
      fields: "TorchDataEval's HumanEval fields with TorchDataEval/ task ids",
    },
    form: 'completion',
    // The API docs are for the methods; scoring needs only the rows.
    problems: ({ text, source }) => torchDataProblems(text, source, 'completion').problems,
  },
  ...humanEvalStylePython,
  limits: (_problem: SweepProblem, _reference: string | null, timeoutMs: number): Partial<ExecutionLimits> => ({
    timeoutMs: Math.max(timeoutMs, TORCHDATA_LIMITS.minTimeoutMs),
    memoryBytes: TORCHDATA_LIMITS.memoryBytes,
  }),
  requirements: (): readonly Requirement[] => [{ kind: 'python-module', ...TORCHDATA_REQUIREMENT, why: 'TorchDataEval tasks' }],
});
