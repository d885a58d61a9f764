/**
 * The text and record layout of a PBE World task, reproducing the published card example byte for
 * byte: the same Python templates, the same JSON key order. Tasks over the private library (see
 * privateLibrary.ts) follow the same layout with their own prompt and solution texts and one more
 * metadata field, `library`, last.
 */
import { OPERATIONS, renderStep, type PipelineStep } from './operations.js';
import type { PbeParams } from './params.js';
import { renderPrivateStep, type PrivateLibrary } from './privateLibrary.js';
import { pyRepr } from './pyrepr.js';

export const ENTRY_POINT = 'apply_pipeline';
export const PBE_WORLD_VERSION = '1.0.0';
const INDENT = '    ';

export interface IoPair {
  input: string;
  output: string;
}

export interface PbeGenerationParams {
  n_inputs_for_examples: number;
  l_min: number;
  l_max: number;
  pipeline_L_min: number;
  pipeline_L_max: number;
}

/** Which private library a row's solution uses (rows over Python's str have no such field). */
export interface PbeLibraryMetadata {
  /** `pbe-private`. */
  name: string;
  /** The module the solution imports. */
  module: string;
  /** PRIVATE_LIBRARY_VERSION: the templates the module was rendered from. */
  version: string;
  /** privateSourceHash of the module source: rows and a library built elsewhere must agree on it. */
  source_hash: string;
}

export interface PbeTaskMetadata {
  alphabet: string[];
  alphabet_size: number;
  num_programs: 1;
  num_examples: number;
  /** Hidden tests only (the record's top-level num_tests also counts the examples). */
  num_tests: number;
  generation_params: PbeGenerationParams;
  split: string;
  version: string;
  /** Only for `library: 'private'` datasets. */
  library?: PbeLibraryMetadata;
}

/** One dataset row. Declared in the card's key order, which buildTaskRecord reproduces. */
export interface PbeTask {
  task_id: string;
  entry_point: string;
  prompt: string;
  canonical_solution: string;
  canonical_pipeline: PipelineStep[];
  test: string;
  /** Examples + hidden tests: every assert in `test`. */
  num_tests: number;
  examples: IoPair[];
  tests: IoPair[];
  metadata: PbeTaskMetadata;
}

/** `pbe-world/000042`: at least 6 digits, more once the index reaches 10^6. */
export function formatTaskId(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`task index must be a non-negative integer, got ${index}`);
  return `pbe-world/${String(index).padStart(6, '0')}`;
}

function exampleLines(examples: readonly IoPair[]): string[] {
  return examples.map((e) => `${INDENT}${INDENT}>>> ${ENTRY_POINT}(${pyRepr(e.input)}) == ${pyRepr(e.output)}`);
}

/**
 * The HumanEval-style prompt: signature, docstring with the method list and the shown examples; with
 * a private library, the docstring names the module instead (its docs are given to the model apart).
 */
export function renderPrompt(examples: readonly IoPair[], library?: PrivateLibrary): string {
  if (library) return renderPrivatePrompt(examples, library);
  // Blank docstring lines keep their indentation, as in the card.
  const lines = [
    'from typing import List',
    '',
    `def ${ENTRY_POINT}(s: str) -> str:`,
    `${INDENT}"""Apply a fixed string-manipulation pipeline to the input string \`s\`.`,
    INDENT,
    `${INDENT}The pipeline consists of several string method calls such as:`,
    INDENT,
    ...OPERATIONS.map((op) => `${INDENT}${INDENT}${op.signature}`),
    INDENT,
    `${INDENT}which are always applied in the same fixed order.`,
    INDENT,
    `${INDENT}Your task is to reverse-engineer this pipeline from the examples`,
    `${INDENT}and implement it.`,
  ];
  return promptText(lines, examples);
}

/** The prompt's lines, then the docstring's shared end: the shown examples, and the stub's body. */
function promptText(lines: string[], examples: readonly IoPair[]): string {
  const end = [
    INDENT,
    `${INDENT}Example input/output pairs:`,
    INDENT,
    ...exampleLines(examples),
    `${INDENT}"""`,
    `${INDENT}raise NotImplementedError()`,
  ];
  return [...lines, ...end].join('\n') + '\n';
}

function renderPrivatePrompt(examples: readonly IoPair[], library: PrivateLibrary): string {
  const m = library.module;
  const lines = [
    `import ${m}`,
    '',
    `def ${ENTRY_POINT}(s: str) -> str:`,
    `${INDENT}"""Apply a fixed string-manipulation pipeline to the input string \`s\`.`,
    INDENT,
    `${INDENT}The pipeline consists of several calls to functions of the module`,
    `${INDENT}\`${m}\`, which are always applied in the same fixed order.`,
    INDENT,
    `${INDENT}Your task is to reverse-engineer this pipeline from the examples`,
    `${INDENT}and implement it with \`${m}\`: call its functions for every step,`,
    `${INDENT}not the methods of \`str\`. The documentation of \`${m}\` is provided;`,
    `${INDENT}its function names and argument conventions are its own, so read it.`,
  ];
  return promptText(lines, examples);
}

/** The solution applying the pipeline: `str` methods, or the private module's functions. */
export function renderCanonicalSolution(pipeline: readonly PipelineStep[], library?: PrivateLibrary): string {
  const lines = [
    ...(library ? [`import ${library.module}`, ''] : []),
    `def ${ENTRY_POINT}(s: str) -> str:`,
    `${INDENT}"""Canonical solution (auto-generated)."""`,
    ...pipeline.map((step) => INDENT + (library ? renderPrivateStep(library, step) : renderStep(step))),
    `${INDENT}return s`,
  ];
  return lines.join('\n') + '\n';
}

/**
 * The `check(candidate)` function: asserts for the prompt's examples, then a blank line and the hidden
 * tests. With no hidden tests the second section is left out entirely (the card gives no template for
 * an empty section, and a dangling "# hidden tests" header would suggest missing asserts); with no
 * asserts at all (not produced by the generator) the body is `pass` so the code stays valid Python.
 */
export function renderTest(examples: readonly IoPair[], tests: readonly IoPair[]): string {
  const assertLine = (t: IoPair) => `${INDENT}assert candidate(${pyRepr(t.input)}) == ${pyRepr(t.output)}`;
  const lines = ['from typing import Callable', '', 'def check(candidate: Callable[[str], str]) -> None:'];
  if (examples.length > 0) lines.push(`${INDENT}# examples from the prompt`, ...examples.map(assertLine));
  if (tests.length > 0) {
    if (examples.length > 0) lines.push('');
    lines.push(`${INDENT}# hidden tests`, ...tests.map(assertLine));
  }
  if (examples.length === 0 && tests.length === 0) lines.push(`${INDENT}pass`);
  return lines.join('\n') + '\n';
}

export interface TaskRecordInput {
  index: number;
  params: Pick<PbeParams, 'alphabet' | 'split' | keyof PbeGenerationParams>;
  pipeline: readonly PipelineStep[];
  examples: readonly IoPair[];
  tests: readonly IoPair[];
  /** The private library the row is written against; absent for Python's str (the card's form). */
  library?: PrivateLibrary;
}

/** The dataset row, with every key in the card's order (JSON.stringify keeps insertion order). */
export function buildTaskRecord({ index, params, pipeline, examples, tests, library }: TaskRecordInput): PbeTask {
  const copyPairs = (pairs: readonly IoPair[]) => pairs.map(({ input, output }) => ({ input, output }));
  return {
    task_id: formatTaskId(index),
    entry_point: ENTRY_POINT,
    prompt: renderPrompt(examples, library),
    canonical_solution: renderCanonicalSolution(pipeline, library),
    canonical_pipeline: pipeline.map(({ method, args }) => ({ method, args: [...args] })),
    test: renderTest(examples, tests),
    num_tests: examples.length + tests.length,
    examples: copyPairs(examples),
    tests: copyPairs(tests),
    metadata: {
      alphabet: [...params.alphabet],
      alphabet_size: params.alphabet.length,
      num_programs: 1,
      num_examples: examples.length,
      num_tests: tests.length,
      generation_params: {
        n_inputs_for_examples: params.n_inputs_for_examples,
        l_min: params.l_min,
        l_max: params.l_max,
        pipeline_L_min: params.pipeline_L_min,
        pipeline_L_max: params.pipeline_L_max,
      },
      split: params.split,
      version: PBE_WORLD_VERSION,
      ...(library
        ? { library: { name: library.name, module: library.module, version: library.version, source_hash: library.source_hash } }
        : {}),
    },
  };
}
