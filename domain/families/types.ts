/**
 * What a task family is: how a dataset of its rows is named in a sweep config, read and validated,
 * how its tasks are prompted, how a generation becomes a program, what the reference is, and how a
 * run is scored. Each family is one folder with a definition, listed in registry.ts; a sweep config
 * names its family with the `family:` tag of each dataset.
 */
import type { z } from 'zod';
import type { DatasetLibrary } from '../apidocs/library.js';
import type { SweepProblem } from '../datasets/problems.js';
import type { ExecutionLimits, ExecutionResult } from '../execution/types.js';
import type { LanguageId } from '../languages/registry.js';
import type { LlmApi } from '../llm/request.js';

/** What every dataset entry of a sweep config has, whatever its family. */
export interface DatasetEntryBase<Family extends string> {
  name: string;
  family: Family;
}

/** The files a dataset entry names, by role: each as written in the config (local path or s3:// URI) and the entry's field that names it. */
export type DatasetFiles = Record<string, { path: string; field: string }>;

export interface LoadInput<Entry> {
  entry: Entry;
  /** The text of each file of `files(entry)`, by role; `rows` also for generated families. */
  texts: Record<string, string>;
  /** What to call each file in errors (its path or URI), by role. */
  sources: Record<string, string>;
}

export interface LoadedDataset {
  /** Every task, in file order (a sweep's `limit` is applied by its caller). */
  problems: SweepProblem[];
  /** The API library the family brings, for library-using methods; absent when it brings none. */
  library?: DatasetLibrary;
  /** What the loader fixed or noticed (quirky rows), to be shown to the user. */
  notes: string[];
}

/**
 * How a run of a sample counts, as a tagged union every family shares: `passed` (what pass@k counts)
 * and `success` (success@k) always; families with several scores add theirs:
 * - `status`: the program's own tests decide, from its status alone (HumanEval, MBPP, ...);
 * - `named`: several pass/fail scores per sample, each with its own pass@k (evalplus: `base`, the
 *   original tests, and `plus`, base and the added ones; `passed` is the family's headline score);
 * - `test_cases`: per-test-case credit, what APPS's average test-case accuracy is made of.
 */
export type TaskScore =
  | { kind: 'status'; passed: boolean; success: boolean }
  | { kind: 'named'; passed: boolean; success: boolean; scores: Record<string, boolean> }
  | { kind: 'test_cases'; passed: boolean; success: boolean; testCases: { passed: number; total: number } };

/** What a family scores a run from: its status, and what it printed (a family's harness reports there). */
export type RunOutcome = Pick<ExecutionResult, 'status' | 'stdout'>;

/**
 * How a task's samples are checked:
 * - `tests`: by the tests the program carries (`tests(problem, null)`);
 * - `reference-outputs`: against the outputs of the dataset's own solution, which runs first, once
 *   per content (`cacheKey` names what the outputs depend on; callers cache them by its hash), and
 *   whose result `parse` turns into the text `tests` and `limits` are given.
 */
export type TaskChecking =
  | { kind: 'tests' }
  | {
      kind: 'reference-outputs';
      program: string;
      limits: Partial<ExecutionLimits>;
      cacheKey: string;
      parse(result: ExecutionResult): { ok: true; outputs: string } | { ok: false; error: string };
    };

/** Something the sandbox must provide for a task: a Python module importable by the sandbox's interpreter. */
export interface Requirement {
  kind: 'python-module';
  module: string;
  /** Which tasks need it, for the message. */
  why: string;
  /** The command that installs it. */
  install: string;
}

export interface TaskFamily<Id extends string, Entry extends DatasetEntryBase<Id>> {
  id: Id;
  /** One line for `--help` and the docs. */
  description: string;
  /** The dataset entry in a sweep config (strict: unknown keys are refused), `family` included. */
  entrySchema: z.ZodType<Entry, unknown>;
  /** The entry's own keys, for "unknown key (did you mean ...)" messages. */
  entryKeys: readonly string[];
  /** Whether the family brings an API library (rag, self-repair and ExploraCoder need one). */
  bringsLibrary(entry: Entry): boolean;
  /** The files the entry names, by role (`rows` holds the tasks); none for generated families. */
  files(entry: Entry): DatasetFiles;
  /** Rows (and the other files) to the sweep's problems; throws naming the file, line and field. */
  load(input: LoadInput<Entry>): LoadedDataset;
  /** bigcode's stop words for completion models on this dataset (a model's `stop` overrides them). */
  stopWords(entry: Entry): readonly string[];
  /** The language its programs are written in. */
  language(problem: SweepProblem): LanguageId;
  /** The text a completion model continues. */
  completionPrompt(problem: SweepProblem): string;
  /** What a chat model is asked to write (before the prompt's code). */
  chatInstruction(problem: SweepProblem): string;
  /** The solution a generation stands for: the program without its tests (bigcode's saved generation). */
  solution(problem: SweepProblem, api: LlmApi | 'saved', code: string): string;
  /** The dataset's own solution as a solution (what `--check-references` runs), or null when it has none. */
  referenceSolution(problem: SweepProblem): string | null;
  /**
   * The solution as the program carries it, before the tests: as is for most families; APPS's
   * harness holds it as a string and runs it once per test case (a standard-input program must not
   * run before its input is set).
   */
  embedSolution(problem: SweepProblem, solution: string): string;
  /** How the task's samples are checked: by their tests, or against the reference's outputs. */
  checking(problem: SweepProblem): TaskChecking;
  /**
   * What runs after the solution to test it (the reference bigcode's references.json holds);
   * `reference` is the parsed reference outputs when `checking` asks for them, else null.
   */
  tests(problem: SweepProblem, reference: string | null): string;
  /** The limits a sample's run gets, from the sweep's timeout (and the reference's times, when there is one). */
  limits(problem: SweepProblem, reference: string | null, timeoutMs: number): Partial<ExecutionLimits>;
  /** How a run counts. */
  score(problem: SweepProblem, outcome: RunOutcome): TaskScore;
  /** What the sandbox must have to run the task's programs (DS-1000: its library); checked before a sweep starts. */
  requirements(problem: SweepProblem): readonly Requirement[];
}
