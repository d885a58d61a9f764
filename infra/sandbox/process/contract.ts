/**
 * The process runner's contract: how a language whose programs run as processes of their own
 * (every MultiPL-E language but Python: JavaScript, Go, Rust, Lua, Racket, ...) plugs into the sandbox.
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
 *   7. `compileBatch()` optional: several programs compiled in one go, where what does not depend
 *                       on the program (a test main, a link) can be paid once for all of them;
 *                       each program still runs alone in its own sandbox (see BatchCompile);
 *   8. `runTogether()`  optional, used only when the runner is asked to (`shareProcess`): several
 *                       programs run in one sandboxed process, each where the others cannot
 *                       change what it sees (see SharedRun);
 *   9. `forkServer()`   optional, used only when the runner is asked to (`forkServer`): a warm
 *                       interpreter per slot forks each program's process (forkServer.ts).
 *
 * Steps run inside bubblewrap (bwrapStep.ts) as the sample's slot uid: the compile step with the
 * build directory writable at BUILD_DIR and its cwd there; the run step with it read-only and a
 * private, size-capped tmpfs /tmp as its cwd. `mounts()` are the toolchain's read-only
 * directories (host path -> sandbox path); /usr, /etc and the system's library dirs are always
 * there. Environments are exactly what a step says (plus nothing): the host's never leaks in.
 *
 * To change how a language builds (a warm compiler, a precompiled header, a prebuilt runner), change the
 * language's module behind this interface; a new kind of step (e.g. one served by a warm process
 * that itself lives in a sandbox) is a new member of the `Step` union, handled in
 * processExecutor.ts, and must map its failures onto a `StepResult` the same way.
 */
import type { ExecutionLimits, ExecutionStatus, ExceptionInfo } from '../../../domain/execution/types.js';
import type { Mount } from '../bwrapPolicy.js';

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

/** A toolchain's read-only directory (host path -> sandbox path), as the bubblewrap policy mounts it. */
export type { Mount };

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
  /** What the step reads on stdin (absent: /dev/null). */
  stdin?: string;
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

/**
 * Several programs compiled together (`Toolchain.compileBatch`). Why a member of its own: in some
 * languages most of a lone compile does not depend on the program (Go links the runtime and
 * `testing` into every test binary: ~110 ms of a ~170 ms build), and one step for several programs
 * pays it once. The runner gives `build` one build directory (owned by one slot's uid) and a way
 * to run sandboxed compile steps in it; `build` answers, per program and in order, either `built`
 * (the files of the program's own run directory, taken from the batch directory, and its run
 * step: the program then runs alone, in its own sandbox, exactly as a lone one) or `alone`: the
 * runner then compiles it on its own as if there were no batch. Any doubt is `alone` (a compile
 * or check failure, a program the batch cannot hold without changing what another one sees, a
 * failed batch step): a batch never changes a program's outcome, it only shares work.
 */
export interface BatchCompile {
  build(batch: BatchDirectory): Promise<BatchOutcome[]>;
}

export interface BatchDirectory {
  /** Host path of the batch's build directory (BUILD_DIR inside its steps). */
  buildDir: string;
  /** Writes files (relative paths, sub-directories created) owned by the batch's uid. */
  write(files: Record<string, string>): void;
  /** Runs a step with the batch directory writable, as a compile step runs. */
  run(step: SandboxStep): Promise<StepResult>;
}

export type BatchOutcome =
  | {
      kind: 'built';
      /** The program's run directory: file name -> host path of a file in the batch directory (hard-linked or copied). */
      files: Record<string, string>;
      run: SandboxStep;
      /** The program's share of the batch's compile time. */
      compileMs: number;
    }
  | { kind: 'alone' };

/**
 * Several programs run in one process (`Toolchain.runTogether`), opt-in (ProcessExecutorOptions.
 * shareProcess). Why: where a process's start is most of a program's cost (Node: ~40 ms to start,
 * under 1 ms for a MultiPL-E program), a process per program bounds throughput whatever else is
 * done. The isolation is weaker than a process per program, and says so: the programs of one
 * step share a sandbox (one uid, one set of limits, one address space), each in a space of its
 * own within it (JavaScript: a V8 context). The runner writes `files` into a fresh build directory
 * (read-only to the step, as a run step's), runs `step` there as a run step, and asks `read` what
 * the step's end says of each program: `done` with the StepResult its lone run step would have
 * ended with (the toolchain's classify then reads it as it reads a lone run), or `alone`: the
 * runner then runs it on its own. Any doubt is `alone` (a program the screen refused, one that
 * touched what is not its own, the step's death before its line came): sharing a process never
 * changes an outcome, it only shares a start.
 */
export interface SharedRun {
  files: Record<string, string>;
  step: SandboxStep;
  read(ran: StepResult): SharedOutcome[];
}

/** What the CLIs' `--share-process` does (workers, start-sweep's in-process worker, evaluate): here, a module light enough for evaluate's start-up. */
export const SHARE_PROCESS_HELP =
  'JavaScript programs several to a sandboxed Node process, each in its own V8 context (weaker isolation between them; outcomes as lone runs; docs/sandbox.md#shared-processes-javascript-opt-in)';

/** What the CLIs' `--no-fork-server` does (worker, start-sweep, evaluate, bench-multiple). */
export const NO_FORK_SERVER_HELP =
  "a sandbox and an interpreter of its own for every program of a scripted language (and D and C#), instead of the default: a warm server per slot that forks rb, pl, php, r and lua programs from an interpreter with the test library loaded execs sh, js, d and cs ones from a warm sandbox, and runs rkt ones in a warm racket's sandboxed evaluators (root runners; the Python zygote's isolation; outcomes as lone runs; docs/sandbox.md#fork-servers-scripted-languages)";
/** `--fork-server`, the default, kept so that older command lines still parse. */
export const FORK_SERVER_HELP = 'the default (see --no-fork-server)';

export type SharedOutcome = { kind: 'done'; run: StepResult } | { kind: 'alone' };

export type ToolchainCheck = { ok: true; version: string } | { ok: false; missing: string; install: string };

/** A run step's end, as the toolchain reads it. */
export interface RunOutcome {
  /** `compile_error` only for a language whose parse happens at run time (JavaScript's SyntaxError). */
  status: Exclude<ExecutionStatus, 'timeout'>;
  exception?: ExceptionInfo;
}

export interface Toolchain {
  /** The language id (domain/languages/), MultiPL-E's own. */
  language: string;
  /** Human name, for messages. */
  name: string;
  /** Whether the toolchain is there; asynchronous, so that several languages' checks run side by side. */
  check(): Promise<ToolchainCheck>;
  mounts(): Mount[];
  prepare?(): Promise<void>;
  /**
   * Starts a warm compiler for the runner's directory `root` in the background, not awaited: it
   * loads while the runner's caller reads its input rather than at the first compile. Changes no
   * outcome; a failure is met by the first compile as if this had not been called.
   */
  startServers?(root: string): void;
  close?(): Promise<void>;
  /** The build directory's files, by name (relative, no slashes). */
  files(program: string): Record<string, string>;
  /** `program` is the sample's text, for toolchains whose step depends on it (a precompiled header). */
  compile(limits: ExecutionLimits, program: string): SandboxStep | ServedStep | null;
  run(limits: ExecutionLimits): SandboxStep;
  /**
   * Optional (see BatchCompile): a compile of several programs with the same limits, or null when
   * this toolchain cannot batch now (the runner then compiles each alone).
   */
  compileBatch?(limits: ExecutionLimits, programs: readonly string[]): BatchCompile | null;
  /** Optional (see SharedRun): one process for several programs with the same limits, or null when none of them can share. */
  runTogether?(limits: ExecutionLimits, programs: readonly string[]): SharedRun | null;
  /**
   * Optional, used only when the runner is asked to (`forkServer`): a warm interpreter per slot
   * with the test library loaded that forks one child per program (forkServer.ts says what
   * it isolates); any doubt runs the program alone.
   */
  forkServer?(): ForkServerSpec;
  /**
   * Optional, in place of `forkServer` (same switch, same conditions): warm servers of the
   * toolchain's own per slot (Racket: ./rktServer.ts), given the toolchain's mounts and the
   * sandbox's /tmp size.
   */
  slotServers?(mounts: readonly Mount[], tmpBytes: number): SlotServers;
  classify(run: StepResult): RunOutcome;
}

/** Warm servers of a runner, one per slot uid (forkServer.ts's ForkServers, rktServer.ts's RacketServers). */
export interface SlotServers {
  /** The run step's program (in `buildDir`) run by the slot's server, or null: run it alone. */
  run(uid: number, buildDir: string, step: SandboxStep): Promise<StepResult | null>;
  /** Whether the runner reaps the slot's uid after a served program (no: the server itself runs as that uid). */
  readonly reapsAfter: boolean;
  close(): void;
}

/** What a toolchain says of its fork server. */
export interface ForkServerSpec {
  /** Host path of the server script, mounted read-only at /fork/<its name>. */
  script: string;
  /** The server's argv, given the script's sandbox path. */
  argv(script: string): string[];
  /** Further host files the server needs (read-only), e.g. R's native library. */
  mounts?: readonly Mount[];
  /**
   * Exec mode: the child execs the run step's own argv (a fresh interpreter, as the lone run's)
   * rather than becoming the program inside the warm interpreter; saves the sandbox's start only.
   */
  exec?: boolean;
}
