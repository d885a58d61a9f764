/**
 * What a task family is: how a dataset of its rows is named in a sweep config, read and validated,
 * how its tasks are prompted, how a generation becomes a program, what the reference is, and how a
 * run is scored. Each family is one folder with a definition, listed in registry.ts; a sweep config
 * names its family with the `family:` tag of each dataset.
 */
import type { z } from 'zod';
import type { DatasetLibrary } from '../apidocs/library.js';
import type { SweepProblem } from '../datasets/problems.js';
import type { ExecutionStatus } from '../execution/types.js';
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
 * How a run of a sample counts: one status-based score today. Families with several scores
 * (evalplus's base and plus, APPS's per-test credit) extend this type, and the cell's results with
 * it: pass@k per score (issue 19).
 */
export interface TaskScore {
  /** The task's tests passed. */
  passed: boolean;
  /** The program ran to the end of its tests or stopped on a test assertion (success@k). */
  success: boolean;
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
  /** What runs after the solution to test it (the reference bigcode's references.json holds). */
  tests(problem: SweepProblem): string;
  /** How a run counts. */
  score(status: ExecutionStatus): TaskScore;
}
