/**
 * What a language carries for the tests and the benchmarks, beside its definition: each language's
 * folder holds a `fixtures.ts` exporting `fixtures` of this type, and the generic tests and
 * scripts/bench/bench-multiple.ts loop over `LANGUAGES` and take each language's from its folder
 * (test/support/language-fixtures.ts finds them), so that a new language needs no edit in a shared
 * test file. Only tests and benchmarks import these files: no product entry point does, so they stay
 * out of the product's bundles. A language without them, or a process-run language without its
 * process fixtures, fails test/languages/fixtures.test.ts, which names what is missing.
 */

/** What a MultiPL-E completion of each kind does: the tests pass, fail, do not compile, or it attacks the sandbox. */
export type CompletionKind = 'right' | 'wrong' | 'noncompiling' | 'hostile';

/** The hostile programs every process-run language has (test/sandbox/process-hostile.e2e.test.ts says what each must give). */
export type HostileKind = 'loop' | 'spawnBomb' | 'memoryBomb' | 'output' | 'network' | 'environment' | 'writeOutside' | 'daemon';

/** What a hostile program is aimed at: a listener's port on loopback (beside Temporal's and S3's), paths to write. */
export interface HostileTargets {
  port: number;
  targets: readonly string[];
  /** How much the output program writes, in MiB (written 1 MiB at a time). */
  outputMiB: number;
}

export interface MultiplEFixtures {
  /** MultiPL-E's id of the language (its own but for Python's: `py`). */
  id: string;
  /**
   * HumanEval_53_add ("Add two numbers x and y") as MultiPL-E's own translator for the language
   * makes it (dataset_builder/humaneval_to_<lang>.py with `--doctests transform --prompt-terminology
   * reworded`; how in docs/datasets/multipl-e.md#multipl-e): prompt, tests and stop tokens byte for byte.
   */
  row: { prompt: string; tests: string; stop: string[] };
  /**
   * A completion of each kind, as a model returns it: the body, then text past a stop token that
   * would break the program if it were kept. `hostile` is a different attack per language.
   */
  completions: Record<CompletionKind, string>;
  /** Whether the hostile completion passes once contained (else it must time out or run out of memory). */
  hostilePasses: boolean;
}

/** Whole programs, one per outcome MultiPL-E tells apart (OK, Exception, SyntaxError, Timeout). */
export interface StatusPrograms {
  ok: string;
  wrong: string;
  /** Does not compile (for an interpreted language: does not parse): `compile_error`, never a pass. */
  broken: string;
  hangs: string;
}

/** A correct MultiPL-E row with its completion: the benchmark's workload (program = prompt + completion + "\n" + tests). */
export interface BenchRow {
  name: string;
  prompt: string;
  completion: string;
  tests: string;
}

/** What a language run by the sandbox's process runner carries besides. */
export interface ProcessFixtures {
  statuses: StatusPrograms;
  /** An infinite loop, a spawn bomb, a memory bomb, `outputMiB` of output, network, environment, writes outside, a daemon. */
  hostile: (aim: HostileTargets) => Record<HostileKind, string>;
  /** A program that passes: run after the hostile ones, to show the runner still works. */
  wellBehaved: string;
  bench: {
    rows: readonly BenchRow[];
    /**
     * Text after the tests that makes the benchmark's i-th program distinct from the others (so that no
     * cache returns an earlier result): a comment, or where the compiled output ignores comments (Go)
     * code of its own.
     */
    distinct: (i: number) => string;
    /** What the plain toolchain does where the warm one takes a shortcut (bench-multiple.ts --levers); absent: no lever. */
    lever?: string;
  };
}

export interface LanguageFixtures<Id extends string = string> {
  language: Id;
  /** Why this machine may lack the toolchain (not installable from the registries it reaches); absent: it must be there. */
  toolchainMayBeMissing?: string;
  multiple: MultiplEFixtures;
  /** Required of a language whose runner is `process`. */
  process?: ProcessFixtures;
}
