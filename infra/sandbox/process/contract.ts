/**
 * The process runner's contract: how a language whose programs run as processes of their own
 * (JavaScript, TypeScript, Go, Rust, Java, C++) plugs into the sandbox.
 *
 * A language's toolchain is one module in toolchains/ that implements `Toolchain` below. The
 * runner (processExecutor.ts) owns everything that is the same for every language: slots and
 * their uids, the per-sample build directory, isolation (bwrapStep.ts), limits, output capture,
 * wall-time kills, counting and killing survivors, and the result. A toolchain only says:
 *
 *   1. `check()`       is the toolchain there? If not, what is missing and how to get it
 *                       (refused before a sweep or an evaluate run starts);
 *   2. `prepare()`     one-time work before the first sample (warm a cache, start a warm process);
 *                       optional; `close()` undoes it;
 *   3. `files()`       the files the sample's build directory holds (the program under the name
 *                       the language needs: Problem.java, program_test.go ...);
 *   4. `compile()`     the compile step, or null (interpreted): argv, environment and limits of
 *                       its own; any failure (exit != 0, signal, its own timeout) is the outcome
 *                       `compile_error`, never a pass;
 *   5. `run()`         the run step: argv, environment, limits;
 *   6. `classify()`    the run step's end as a status (passed / failed / error / oom / killed;
 *                       the runner itself handles timeouts and compile failures);
 *   7. `batch`         optional: several programs compiled by one compiler call (BatchCompile
 *                       below), each still run alone; `runMany` uses it.
 *
 * Steps run inside bubblewrap (bwrapStep.ts) as the sample's slot uid: the compile step with the
 * build directory writable at BUILD_DIR and its cwd there; the run step with it read-only and a
 * private, size-capped tmpfs /tmp as its cwd. `mounts()` are the toolchain's read-only
 * directories (host path -> sandbox path); /usr, /etc and the system's library dirs are always
 * there. Environments are exactly what a step says (plus nothing): the host's never leaks in.
 *
 * To replace a strategy (a warm compiler, a precompiled header, a prebuilt runner), change the
 * language's module behind this interface; a new kind of step (e.g. one served by a warm process
 * that itself lives in a sandbox) is a new member of the `Step` union, handled in
 * processExecutor.ts, and must map its failures onto a `StepResult` the same way.
 */
import type { ExecutionLimits, ExecutionStatus, ExceptionInfo } from '../../../domain/execution/types.js';

/** Where the build directory appears inside the sandbox. */
export const BUILD_DIR = '/build';

/**
 * How memory is limited in a step:
 * - `address-space`: RLIMIT_AS (native binaries, Node, Go test binaries);
 * - `data`: RLIMIT_DATA, the private writable memory (heap, anonymous mappings, brk): for runtimes
 *   that reserve far more address space than they use (the JVM's compressed class space and heap
 *   reservations, compilers' arenas), where RLIMIT_AS would kill them at start.
 */
export type MemoryLimitKind = 'address-space' | 'data';

export interface StepLimits {
  timeoutMs: number;
  memoryBytes: number;
  memoryKind: MemoryLimitKind;
  maxProcesses: number;
  maxFileBytes: number;
  maxOutputBytes: number;
  maxOpenFiles: number;
}

export interface Mount {
  host: string;
  sandbox: string;
}

export type Step = SandboxStep | ServedStep;

/**
 * A compile step served by a long-lived compiler that lives in a sandbox of its own
 * (infra/sandbox/warm/: javac through javax.tools, a warm tsc): it compiles the sample's build
 * directory (host path) and hands it back owned by the sample's uid; its failures map onto a
 * StepResult as a sandboxed step's do (exit != 0 is a compile error).
 */
export interface ServedStep {
  kind: 'served';
  limits: StepLimits;
  serve(build: { buildDir: string; uid: number | undefined }): Promise<StepResult>;
}

export interface SandboxStep {
  kind: 'sandbox';
  argv: string[];
  env: Record<string, string>;
  limits: StepLimits;
}

/** What bwrapStep reports of one step. */
export interface StepResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  /** Processes of the slot's uid still alive after the step's sandbox ended (killed; 0 is the norm). */
  survivors: number;
  /** The sandbox itself failed (bwrap or the launcher could not set it up), not the program. */
  sandboxError?: string;
}

export type ToolchainCheck = { ok: true; version: string } | { ok: false; missing: string; install: string };

/** A run step's end, as the toolchain reads it. */
export interface RunOutcome {
  /** `compile_error` only for a language whose parse happens at run time (JavaScript's SyntaxError). */
  status: Exclude<ExecutionStatus, 'timeout'>;
  exception?: ExceptionInfo;
}

/**
 * Several programs compiled by one compiler call, each then run alone exactly as after its own
 * compile. Why: for a language whose compiler's start and link dominate a small program's compile
 * (rustc, the Go linker), one call for N programs costs little more than one for one program.
 *
 * The runner (processExecutor.ts: `runMany`, and `run` calls queued for a slot) owns the rest,
 * the same for any language: it groups the programs `accepts()` takes, runs `compile()` in one sandboxed compile step (the batch's
 * build directory writable, as a sample's), and on success gives each program a fresh build
 * directory of its own holding `runFiles()` (its lone build directory's files: same names, same
 * contents), in which the toolchain's ordinary `run()` step runs in its own sandbox with the
 * program's own limits. A batch failure never becomes a program's outcome: the programs `blame()`
 * names are run the ordinary way (their own compile step: their own diagnostics, their own
 * compile_error), the rest batched again; when the failure names nobody new (or the step timed
 * out, was killed, or the sandbox failed) every program of the batch runs the ordinary way.
 * So a toolchain must only promise: a program it accepts compiles in the batch iff it compiles
 * alone, and its run step then does exactly what it does after its own compile.
 */
export interface BatchCompile {
  /** Most programs per compiler call. */
  maxPrograms: number;
  /** May this program share a compiler call? (false: its own compile step, as ever). */
  accepts(program: string): boolean;
  /** The batch build directory's files, by relative path (subdirectories allowed). */
  files(programs: readonly string[]): Record<string, string>;
  /** The one compile step (its limits scaled for the batch). */
  compile(limits: ExecutionLimits, programs: readonly string[]): SandboxStep;
  /**
   * The programs (indices) a failed compile step's output blames; null when it cannot tell (the
   * runner then compiles every program alone).
   */
  blame(compiled: StepResult, programs: readonly string[]): number[] | null;
  /**
   * Program `index`'s run directory after the batch compiled in `buildDir` (host path): the files
   * its own build directory would hold after its own compile; null if the batch's output is not
   * usable (every program then compiles alone).
   */
  runFiles(buildDir: string, index: number, programs: readonly string[]): Record<string, BuildFile> | null;
}

/** A file written into a build directory. */
export interface BuildFile {
  data: string | Uint8Array;
  executable: boolean;
}

export interface Toolchain {
  /** The language id (domain/languages/), MultiPL-E's own. */
  language: string;
  /** Human name, for messages. */
  name: string;
  check(): ToolchainCheck;
  mounts(): Mount[];
  prepare?(): Promise<void>;
  close?(): Promise<void>;
  /** The build directory's files, by name (relative, no slashes). */
  files(program: string): Record<string, string>;
  /** `program` is the sample's text, for strategies that depend on it (a precompiled header). */
  compile(limits: ExecutionLimits, program: string): SandboxStep | ServedStep | null;
  run(limits: ExecutionLimits): SandboxStep;
  classify(run: StepResult): RunOutcome;
  /** Several programs per compiler call (see BatchCompile); absent: one compile step per program. */
  batch?: BatchCompile;
}
