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
import type { InfillParts } from '../llm/fim.js';
import type { LlmApi } from '../llm/request.js';
import type { AnyScoreKind, KindTaskScore } from '../scoring/scoreKind.js';

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
  /**
   * The tools folder of the machine that loads (EXPLORA_TOOLS_DIR, else the project's .tools):
   * where `npm run setup` installs what a family's entry defaults to (BigCodeBench's environment).
   * Absent: no such default.
   */
  tools?: string;
}

export interface LoadedDataset<Problem extends SweepProblem = SweepProblem> {
  /** Every task, in file order (a sweep's `limit` is applied by its caller). */
  problems: Problem[];
  /** The API library the family brings, for library-using methods; absent when it brings none. */
  library?: DatasetLibrary;
  /** What the loader fixed or noticed (quirky rows), to be shown to the user. */
  notes: string[];
}

/**
 * How a run of a sample counts: `passed` (what pass@k counts) and `success` (success@k) always, and
 * its kind:
 * - `status`: the program's own tests decide, from its status alone (HumanEval, MBPP, ...), or the
 *   family from what it printed (Spider), saying why a run that ended well is wrong (`failure`);
 * - any other: a score kind the family declares (FamilyDefinition.scoreKinds; domain/scoring/scoreKind.ts),
 *   which says what the record keeps of the score's other fields and how a cell folds them
 *   (evalplus's `named`, APPS's `test_cases`, PAL's `answer`), or the shared `text` (TextScore).
 */
export type TaskScore = StatusScore | TextScore | KindTaskScore;

/** A score from the run's status (TaskScore `status`). */
export interface StatusScore {
  kind: 'status';
  passed: boolean;
  success: boolean;
  /**
   * Why a run that ended well is wrong all the same, when the family's comparison and not the
   * program decides (Spider's execution accuracy: the query ran, its result is not the gold's):
   * the record then reads `failed`, with this as its exception (records.ts recordedRun).
   */
  failure?: { type: string; message: string };
}

/**
 * The score of a sample scored from its text (TaskChecking `text`): nothing ran, so nothing passed
 * (`passed` and `success` are false and mean nothing; pass@k is not reported for such cells); the
 * sample's statistics, which the family's corpus metric sums over a cell.
 */
export type TextScore = { kind: 'text'; passed: false; success: false; stats: TextStats };

/**
 * A text-scored sample's numeric statistics, named by its family's metric: what the metric needs of
 * one sample so that summing them over samples gives the corpus figures (BLEU: matches and
 * candidates per n-gram order and the two lengths; a mean: the sample's value; accuracy and F1:
 * a count of 1 under the sample's (predicted, reference) label pair).
 */
export type TextStats = Record<string, number>;

/** A corpus metric's figures as the peer harness reports them (bigcode's keys; HF bleu's `precisions` is a list). */
export type MetricFigures = Record<string, number | number[]>;

/**
 * A metric over a cell's text-scored samples, computed from the sum of their statistics (so a cell
 * is folded one record at a time, in memory that does not grow with it).
 */
export interface CorpusMetric {
  /** Its name in messages, the report and the results (`bleu`, `codexglue-bleu`, `exact-match`). */
  id: string;
  /**
   * Which samples of a task it scores: `first`, the task's sample 0 only (bigcode's BLEU tasks
   * score `gen[0]` of each task, whatever n is); `all`, every sample (a mean over samples).
   */
  samples: 'first' | 'all';
  /** The figure the report's tables, the best-per-dataset line and the progress headline show. */
  headline: string;
  /** The figures from the statistics summed over `count` scored samples (count >= 1). */
  figures(sums: Readonly<TextStats>, count: number): MetricFigures;
}

/** What a family scores a run from: its status, and what it printed (a family's harness reports there). */
export type RunOutcome = Pick<ExecutionResult, 'status' | 'stdout'>;

/**
 * How a task's samples are checked:
 * - `tests`: by the tests the program carries (`tests(problem, null)`);
 * - `text`: from the sample's text against the task's reference, nothing run (CoNaLa's BLEU): the
 *   record's status is `scored`, its score a TextScore, and the cell's scores the metric's figures
 *   over the cell (`tests`, `limits` and `score` are not asked; no sandbox starts for such tasks);
 * - `reference-outputs`: against the outputs of the dataset's own solution, which runs first, once
 *   per content (`cacheKey` names what the outputs depend on; callers cache them by its hash), and
 *   whose result `parse` turns into the text `tests` and `limits` are given.
 */
export type TaskChecking =
  | {
      kind: 'tests';
      /**
       * Also scored from its text (Spider with its databases: execution accuracy by running, and
       * bigcode's BLEU of the same samples): `evaluate.ts` and a sweep's cell (CellScores.alsoText)
       * report the metric's figures beside pass@k. Its metric is one the family declares (corpusMetrics).
       */
      alsoText?: Extract<TaskChecking, { kind: 'text' }>;
    }
  | {
      kind: 'text';
      metric: CorpusMetric;
      /** What the samples are compared with (bigcode's get_reference; references.json holds it). */
      reference: string;
      /**
       * What a chat model's answer gives `solution`: absent, the language's code extracted from it
       * (its fenced block); `reply`, the whole reply with its thinking stripped (prose answers:
       * "YES", a class name). Completions are cut at the stop words either way.
       */
      answer?: 'reply';
      /** The sample's statistics, from its solution (the family's post-processed generation) and the task's reference. */
      stats(solution: string): TextStats;
    }
  | {
      kind: 'reference-outputs';
      program: string;
      limits: Partial<ExecutionLimits>;
      cacheKey: string;
      parse(result: ExecutionResult): { ok: true; outputs: string } | { ok: false; error: string };
    };

/**
 * Something the sandbox must provide for a task: a Python module importable by the sandbox's
 * interpreter, or a file its programs open (Spider's databases), present on this machine.
 */
/** The toolchain parts a task can require: boost's headers (C++), testify (Go), the crates of code_eval_octopack's Cargo project (Rust). */
export type ToolchainPart = 'boost-headers' | 'go-testify' | 'rust-crates';

export type Requirement =
  | {
      kind: 'python-module';
      module: string;
      /** Which tasks need it, for the message. */
      why: string;
      /** The command that installs it. */
      install: string;
    }
  | {
      /**
       * A part of a language's toolchain that only some tasks need, installed beside it by
       * scripts/install-toolchains.sh (code_eval_octopack's environment for HumanEvalPack:
       * infra/sandbox/process/toolchains/octopack.ts checks each).
       */
      kind: 'toolchain-part';
      part: ToolchainPart;
      /** Which tasks need it, for the message. */
      why: string;
      /** The command that installs it. */
      install: string;
    }
  | {
      kind: 'file';
      /** Its absolute path. */
      path: string;
      /** Which tasks need it, for the message. */
      why: string;
      /** Where it comes from (the flag or field that named its folder). */
      from: string;
      /** The folder (absolute) the sandbox mounts read-only at its own path for the programs to open it. */
      readableDir: string;
    };

/** How a sample's completion becomes the solution in evaluate.ts: it continues the prompt, or it is the whole solution. */
export type SampleForm = 'completion' | 'full';

/**
 * A family's own options of scripts/evaluate.ts, declared in its folder: as a rule with
 * familyOptions (familyOptions.ts), one declaration that is also its entry's field; a strict zod
 * object, each key an option whose flag is the key in kebab case (`min_time_limit` is
 * `--min-time-limit`) or its FlagMeta `flag`, each schema optional and parsing the flag's text,
 * with `.meta(FlagMeta)`: its help line, its value's name, and whether it names a folder.
 * evaluate.ts's flags, their checks and `--help` come from these (registry.ts evaluateFlags);
 * families that read one flag share its spelling and value name, each with its own schema and help.
 */
export type EvaluateOptionsSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/** What a family option's `.meta()` says (EvaluateOptionsSchema). */
export type FlagMeta = {
  /** The help line. */
  description: string;
  /** The value's name in `--help` (`--min-time-limit <seconds>`). */
  value: string;
  /** A folder: evaluate.ts resolves it from the working directory and refuses one that does not exist. */
  folder?: boolean;
  /** A file: evaluate.ts reads it (refusing one that does not exist) and the schema parses `{path, text}`. */
  file?: boolean;
  /** The flag without `--`, when it is not the key in kebab case (familyOptions.ts `option`'s `flag`). */
  flag?: string;
};

/** A family's bigcode task names (EvaluateSupport `bigcodeTasks`). */
export interface BigcodeTasks {
  names: string;
  read: (task: string) => { options?: EvaluateOptionValues; cell?: Readonly<Record<string, unknown>> } | null;
}

/** The options a family's `problems` is given: its schema's output for the flags given. */
export type EvaluateOptionValues = Readonly<Record<string, unknown>>;

/**
 * How scripts/evaluate.ts reads a problems file of the family (samples scored without a sweep):
 * - `reads`: `problems` turns the file's text into problems, reading the family's own flags, `options`
 *   (EvaluateOptionsSchema; absent: none);
 *   `recognize` (absent: only with `--family`) tells the family from the file's first row: the
 *   families are asked by ascending `rank` and the first that says yes reads the file (so a
 *   family whose rows are another's with more fields ranks before it);
 * - `refused`: the family's problems need more than a problems file; `why` says where to go.
 */
export type EvaluateSupport =
  | {
      kind: 'reads';
      recognize?: { rank: number; test(row: Readonly<Record<string, unknown>>): boolean; fields: string };
      options?: EvaluateOptionsSchema;
      /** How completions become solutions unless `--form` says. */
      form: SampleForm;
      /**
       * bigcode-evaluation-harness's task names the family reads (`--tasks`): `names` for messages
       * (`multiple-<language>`), `read` the family options and the cell settings a name implies
       * (PAL's `-greedy`: one sample's figures lead), or null for a name not its own.
       */
      bigcodeTasks?: BigcodeTasks;
      /** The problems, given the options parsed by `options` (readsProblemsFiles types them). */
      /** `tools`: LoadInput's, the machine's tools folder. */
      problems(input: { text: string; source: string; options: EvaluateOptionValues; tools?: string }): SweepProblem[] | ScopedProblems;
    }
  | { kind: 'refused'; why: string };

/**
 * The problems of a file a family scores only part of (LiveCodeBench's contamination window): the
 * rows it leaves out, whose samples evaluate.ts skips and counts (`why` says why, for its message),
 * and the settings that say which part a number is for (the cell's results.json `cell`).
 */
export interface ScopedProblems {
  problems: SweepProblem[];
  leftOut: { taskIds: readonly string[]; why: string };
  cell: Readonly<Record<string, unknown>>;
}

/**
 * A problem as its family reads it: the common core (SweepProblem) and the family's own payload,
 * stored flat in the same JSON object and parsed by the family's payload schema.
 */
export type ProblemOf<Payload> = SweepProblem & Payload;

/** What every step asks a family, whatever the family: entries typed by the family, problems by their common core. */
export interface TaskFamily<Id extends string, Entry> extends FamilySteps<Entry, SweepProblem> {
  id: Id;
  /** The dataset entry in a sweep config (strict: unknown keys are refused), `family` included. */
  entrySchema: z.ZodType<Entry, unknown>;
  /** The entry's own keys, for "unknown key (did you mean ...)" messages. */
  entryKeys: readonly string[];
  /** PBE World's breakdown: the hidden pipeline's length, for the pass rate by length; undefined for others. */
  pipelineLength(problem: SweepProblem): number | undefined;
  /** How scripts/evaluate.ts reads the family's problems files. */
  evaluate: EvaluateSupport;
  /** FamilyDefinition.corpusMetrics. */
  corpusMetrics?: readonly CorpusMetric[];
  /** FamilyDefinition.scoreKinds. */
  scoreKinds?: readonly AnyScoreKind[];
}

/**
 * What a family's folder defines (defineFamily, define.ts, makes a TaskFamily of it): its entry
 * schema and payload schema, and the steps, which see the problem with its payload parsed.
 */
export interface FamilyDefinition<Id extends string, Schema extends EntrySchema, Payload extends object> extends FamilySteps<
  z.output<Schema>,
  ProblemOf<Payload>
> {
  id: Id;
  /** The dataset entry in a sweep config: a strict object (unknown keys are refused), `family` included. */
  entrySchema: Schema;
  /**
   * The fields the family's problems carry beyond the common core, flat in the stored JSON (so
   * that problems stored before the split read the same); absent when it has none.
   */
  payloadSchema?: z.ZodType<Payload, unknown>;
  /** PBE World's breakdown (TaskFamily.pipelineLength); absent: none. */
  pipelineLength?(problem: ProblemOf<Payload>): number | undefined;
  evaluate: EvaluateSupport;
  /**
   * Every corpus metric its text-scored tasks are scored by (TaskChecking `text`); absent: none.
   * Stored results name a cell's metric by its id only, and a comparison recomputes it from
   * resampled tasks: the registry finds it by that id among the families' declarations
   * (registry.ts corpusMetricById), and a task scored by an undeclared metric is refused.
   */
  corpusMetrics?: readonly CorpusMetric[];
  /**
   * The kinds of the scores its `score` returns beyond `status` (domain/scoring/scoreKind.ts):
   * declared in its folder, they say what a record keeps, how a cell aggregates it, how results,
   * the report, the progress view and the peer files show it and how compare tests it. Absent: none.
   */
  scoreKinds?: readonly AnyScoreKind[];
}

/** What a family's entry schema is: a strict object (its keys are the entry's keys), `family: z.literal(<id>)` among them. */
export type EntrySchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/** A family as defineFamily makes it: its steps, its own entry schema, and its problems read with their payload. */
export type DefinedFamily<Id extends string, Schema extends EntrySchema, Payload extends object = Record<never, never>> = Omit<
  TaskFamily<Id, z.output<Schema>>,
  'entrySchema'
> & {
  entrySchema: Schema;
  /** The problem with the family's payload parsed (throws naming the task when it is not the family's). */
  read(problem: SweepProblem): ProblemOf<Payload>;
};

/** The steps of a task family; `Problem` is what they see of a problem. */
export interface FamilySteps<Entry, Problem extends SweepProblem> {
  /** One line for `--help` and the docs. */
  description: string;
  /** Whether the family brings an API library (rag, self-repair and ExploraCoder need one). */
  bringsLibrary(entry: Entry): boolean;
  /** The files the entry names, by role (`rows` holds the tasks); none for generated families. */
  files(entry: Entry): DatasetFiles;
  /** Rows (and the other files) to the sweep's problems; throws naming the file, line and field. */
  load(input: LoadInput<Entry>): LoadedDataset<Problem>;
  /** bigcode's stop words for completion models on this dataset (a model's `stop` overrides them). */
  stopWords(entry: Entry): readonly string[];
  /** The language its programs are written in. */
  language(problem: Problem): LanguageId;
  /** The text a completion model continues. */
  completionPrompt(problem: Problem): string;
  /**
   * Fill-in-the-middle families only (absent: none is): whether the entry's tasks are asked as a
   * gap to fill (DS-1000's insertion mode), which only completion models with FIM tokens can take
   * (the config refuses other models), and each task's text before and after the gap (undefined:
   * the task is asked left to right, with `completionPrompt`).
   */
  fillsInTheMiddle?(entry: Entry): boolean;
  infill?(problem: Problem): InfillParts | undefined;
  /**
   * Families whose problems carry release dates (LiveCodeBench) only: the first day the entry
   * keeps problems from (its contamination window's start; null: every date) and the entry's field
   * that sets it. A model's `training_cutoff` must fall before it (config.ts trainingCutoffChecks).
   */
  releaseWindow?(entry: Entry): { from: string | null; field: string };
  /**
   * Families whose entry can scope itself by each model (LiveCodeBench's `release_after:
   * model_cutoff`: a contamination window after each model's training_cutoff): what makes that
   * impossible with the sweep's models (`issues`, each at the entry's field or a model's), and the
   * entries it stands for (`expand`: one per window, each with the models it meets, `modelsOf`);
   * undefined when the entry is one dataset for every model. config.ts expands a sweep's datasets.
   */
  perModel?: {
    issues(entry: Entry, models: readonly ModelScope[]): PerModelIssue[];
    expand(entry: Entry, models: readonly ModelScope[]): Entry[] | undefined;
  };
  /** The ids of the models the entry is run with, when not every model of the sweep; absent or undefined: every one. */
  modelsOf?(entry: Entry): readonly string[] | undefined;
  /**
   * What part of its dataset a cell's figures are over, as its results record it (LiveCodeBench's
   * window: `release_window`, `release_after`, `release_before`, as evaluate.ts's ScopedProblems
   * `cell`); absent or empty: all of it.
   */
  cellScope?(entry: Entry): Readonly<Record<string, string>>;
  /**
   * Every key cellScope may give: a cell's record holds them among its own keys, and the peers'
   * files copy them from it (bigcode's evaluation_results.json `config`, as evaluate.ts writes it).
   */
  cellScopeFields?: readonly string[];
  /** What a chat model is asked to write (before the prompt's code). */
  chatInstruction(problem: Problem): string;
  /**
   * Families asked in two steps (HumanEvalExplain: describe, then write from the description) only:
   * whether the entry's tasks are (a sweep's direct method then asks both per sample), and the
   * problem a sample asks next given its answer to this one (a chat answer without its reasoning;
   * undefined: this is the last step).
   */
  asksInTwoSteps?(entry: Entry): boolean;
  nextStep?(problem: Problem, answer: string): SweepProblem | undefined;
  /**
   * The whole user message of a chat request, where the family's peer words all of it
   * (BigCodeBench: its instruction, then the prompt in its own fence); absent, or undefined: the
   * instruction, then the prompt in a fenced block of its language (a model's prompt template
   * with an instruction also makes that one).
   */
  chatMessage?(problem: Problem): string | undefined;
  /**
   * The system message of a chat request, where the family's peer sends its own or none
   * (BigCodeBench: none, null); absent: the language's. A model's prompt template's `system` still
   * replaces it.
   */
  chatSystem?(problem: Problem): string | null;
  /**
   * The code of a chat model's answer (its thinking stripped), where the family's peer takes it its
   * own way (LiveCodeBench: the last fenced block); absent: the language's extraction. A model's
   * sanitizer (`sanitize:`) still reads the answer instead.
   */
  chatCode?(problem: Problem, answer: string): string;
  /**
   * The solution a generation stands for: the program without its tests (bigcode's saved generation).
   * `ending`: how a model's answer ended, when known (a sweep's; not a file's samples).
   */
  solution(problem: Problem, api: LlmApi | 'saved', code: string, ending?: AnswerEnding): string;
  /** The dataset's own solution as a solution (what `--check-references` runs), or null when it has none. */
  referenceSolution(problem: Problem): string | null;
  /**
   * The solution as the program carries it, before the tests: as is for most families; APPS's
   * harness holds it as a string and runs it once per test case (a standard-input program must not
   * run before its input is set).
   */
  embedSolution(problem: Problem, solution: string): string;
  /** How the task's samples are checked: by their tests, or against the reference's outputs. */
  checking(problem: Problem): TaskChecking;
  /**
   * What runs after the solution to test it (the reference bigcode's references.json holds);
   * `reference` is the parsed reference outputs when `checking` asks for them, else null.
   */
  tests(problem: Problem, reference: string | null): string;
  /** The limits a sample's run gets, from the sweep's timeout (and the reference's times, when there is one). */
  limits(problem: Problem, reference: string | null, timeoutMs: number): Partial<ExecutionLimits>;
  /** How a run counts; `reference` is what `tests` and `limits` were given (BigCodeBench keeps its ground truth's time). */
  score(problem: Problem, outcome: RunOutcome, reference?: string | null): TaskScore;
  /** What the sandbox must have to run the task's programs (DS-1000: its library); checked before a sweep starts. */
  requirements(problem: Problem): readonly Requirement[];
}

/** What a family's perModel reads of a sweep's model: its id and its training cut-off (YYYY-MM-DD), when given. */
export interface ModelScope {
  id: string;
  training_cutoff?: string;
}

/** Why an entry cannot scope itself by the models: at one of its fields, or at a model's (its index in `models`). */
export interface PerModelIssue {
  at: { field: string } | { model: number; field: string };
  message: string;
}

/**
 * How a model's answer ended: its raw text (the request's stop words dropped by the endpoint) and
 * the endpoint's finish_reason (`length`: cut at max_tokens; null: not said). QuixBugs reads it: an
 * answer cut at the token limit without a stop word is one bigcode keeps nothing of.
 */
export interface AnswerEnding {
  raw: string;
  finishReason: string | null;
}
