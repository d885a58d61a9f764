/**
 * What a programming language is to explora: how a program is put together from a solution and
 * its tests, how code is found in a model's answer, its stop words and chat system prompt, and how
 * the sandbox runs it (its runner, and for compiled languages a compile step with limits of its
 * own whose failure is the outcome `compile_error`, never a pass). Each language is one folder,
 * listed in registry.ts; the runners are implemented by the sandbox host (infra/sandbox/).
 */
import type { ExecutionLimits } from '../execution/types.js';
import type { ExtractApi } from '../llm/extract.js';

/**
 * How the sandbox host runs a language's programs:
 * - `python-zygote`: Python source, run by a pre-forked interpreter (infra/sandbox/zygote.py).
 * - `process`: a program run as a process of its own, compiled first where the language compiles
 *   (infra/sandbox/process/: one toolchain module per language, keyed by the language's id).
 */
export type RunnerKind = 'python-zygote' | 'process';

export interface CompileStep {
  /** Limits of the compile step (separate from the run's). */
  limits: Partial<ExecutionLimits>;
}

export interface ExtractInput {
  api: ExtractApi;
  raw: string;
  /** The function the tests call: chooses among several code blocks. */
  entryPoint?: string;
  /** Completions: stop words to cut at. */
  stop: readonly string[];
}

/** `Runner` is the language's literal runner kind where known, so the process-run ids can be derived (registry.ts). */
export interface Language<Id extends string, Runner extends RunnerKind = RunnerKind> {
  id: Id;
  /** The language's name in prompts and messages (Kotlin, C++). */
  name: string;
  /** File extension of its programs (MultiPL-E's language id where it has one). */
  extension: string;
  /** bigcode's stop words for completion models of HumanEval-style tasks in this language. */
  stopWords: readonly string[];
  /** The system message of chat requests. */
  systemPrompt: string;
  /** The info string of the fenced code blocks prompts show and ask for (```python). */
  fenceTag: string;
  /** The code of a model's answer: a completion cut at stop words, or a chat answer's code block. */
  extractCode(input: ExtractInput): string;
  /** The program the sandbox runs: the solution, then the tests. */
  assemble: (parts: { solution: string; tests: string }) => string;
  /** null for interpreted languages. */
  compile: CompileStep | null;
  runner: Runner;
}

/** The ids of a table of languages (LANGUAGES, or a test's) whose programs run on the process runner. */
export type ProcessLanguageIdOf<Table extends Record<string, { runner: RunnerKind }>> = {
  [K in keyof Table & string]: Table[K]['runner'] extends 'process' ? K : never;
}[keyof Table & string];

/** Which sandbox runs a language's programs: the tag every caller switches on (runner.ts). */
export type LanguageRunner<ProcessId extends string> = { kind: 'python-zygote' } | { kind: 'process'; language: ProcessId };
