/**
 * ProcessExecutor: runs programs of one process-run language (toolchains/), many at once, each
 * in its own sandboxed steps (bwrapStep.ts says what is isolated): write the files into a fresh
 * build directory, compile (if the language compiles) with the compile limits, run with the run
 * limits, classify, remove the directory. Same request and result as the Python SandboxExecutor.
 *
 * Outcomes:
 *   - compile step fails (exit != 0, a signal, or its own time limit): `compile_error`, with the
 *     compiler's diagnostics as the exception message (MultiPL-E's `SyntaxError`);
 *   - run step out of wall time, or killed by SIGXCPU: `timeout` (MultiPL-E's `Timeout`);
 *   - run step exits 0: `passed` (MultiPL-E's `OK`);
 *   - otherwise the toolchain's `classify` decides among failed / error / oom / killed
 *     (MultiPL-E's `Exception`).
 * A sandbox that could not be set up is an error of ours (`SandboxError`), never the program's
 * pass.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_LIMITS,
  ExecutionRequestSchema,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
} from '../../../domain/execution/types.js';
import { findBwrap } from '../backends.js';
import type { StepResult, Toolchain } from './contract.js';
import { runStep } from './bwrapStep.js';

export interface ProcessExecutorOptions {
  /** Samples running at once; default: cores + 2 (as the Python sandbox). */
  concurrency?: number;
  limits?: Partial<ExecutionLimits>;
  /** Size of each step's private /tmp. */
  tmpBytes?: number;
  /** First uid of the per-slot uids (root only); default: a random block. */
  uidBase?: number;
}

const MESSAGE_CHARS = 2000;

/** The toolchain is not installed: names it, what is missing and how to install it. */
export class ToolchainMissingError extends Error {
  override name = 'ToolchainMissingError';
}

export class ProcessExecutor {
  readonly concurrency: number;
  readonly limits: ExecutionLimits;
  private readonly uidBase: number;
  private readonly freeSlots: number[];
  private readonly waiting: Array<() => void> = [];
  private root: string | undefined;
  private started: Promise<void> | undefined;
  private closed = false;
  private sequence = 0;

  constructor(
    readonly toolchain: Toolchain,
    private readonly options: ProcessExecutorOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? availableParallelism() + 2);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.uidBase = options.uidBase ?? 2_000_000 + Math.floor(Math.random() * 1_000_000) * 128;
    this.freeSlots = Array.from({ length: this.concurrency }, (_, i) => i);
  }

  /** The uids the samples run as (root workers): [first, last]. */
  get uidRange(): [number, number] {
    return [this.uidBase, this.uidBase + this.concurrency - 1];
  }

  start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('ProcessExecutor is closed'));
    this.started ??= (async () => {
      const check = this.toolchain.check();
      if (!check.ok) throw new ToolchainMissingError(`${this.toolchain.name} (language ${this.toolchain.language}): ${check.missing} is missing; ${check.install}`);
      if (!findBwrap()) throw new Error('bwrap is not installed: run scripts/install-sandbox.sh');
      await this.toolchain.prepare?.();
      this.root = mkdtempSync(join(tmpdir(), `explora-${this.toolchain.language.replace(/[^a-z0-9]/g, '')}-`));
      // Samples' uids reach their own directory only.
      chmodSync(this.root, 0o711);
    })();
    this.started.catch(() => {
      this.started = undefined;
    });
    return this.started;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const parsed = ExecutionRequestSchema.parse(request);
    const limits = { ...this.limits, ...parsed.limits };
    await this.start();
    const slot = await this.takeSlot();
    try {
      return await this.runInSlot(parsed.id, parsed.program, limits, slot);
    } finally {
      this.freeSlots.push(slot);
      this.waiting.shift()?.();
    }
  }

  async runMany(requests: readonly ExecutionRequest[]): Promise<ExecutionResult[]> {
    return Promise.all(requests.map((r) => this.run(r)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.toolchain.close?.();
    if (this.root) rmSync(this.root, { recursive: true, force: true });
  }

  private takeSlot(): Promise<number> {
    const slot = this.freeSlots.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(() => resolve(this.freeSlots.shift()!)));
  }

  private async runInSlot(id: string, program: string, limits: ExecutionLimits, slot: number): Promise<ExecutionResult> {
    const asRoot = process.getuid?.() === 0;
    const uid = asRoot ? this.uidBase + slot : undefined;
    const buildDir = join(this.root!, `s${slot}-${++this.sequence}`);
    mkdirSync(buildDir, { mode: 0o700 });
    try {
      for (const [name, text] of Object.entries(this.toolchain.files(program))) writeFileSync(join(buildDir, name), text, { mode: 0o644 });
      if (uid !== undefined) chownSync(buildDir, uid, uid);
      const sandbox = { bwrap: findBwrap()!, uid, buildDir, mounts: this.toolchain.mounts(), tmpBytes: this.options.tmpBytes ?? 256 * 1024 * 1024 };
      const compile = this.toolchain.compile(limits, program);
      let compileMs = 0;
      if (compile) {
        const compiled = compile.kind === 'served' ? await compile.serve({ buildDir, uid }) : await runStep({ ...sandbox, writableBuild: true }, compile);
        compileMs = compiled.durationMs;
        if (compiled.sandboxError) return sandboxFailure(id, compiled);
        if (compiled.timedOut || compiled.exitCode !== 0) return { ...compileFailure(id, compiled, compile.limits.timeoutMs), compileMs: round(compileMs) };
      }
      const ran = await runStep({ ...sandbox, writableBuild: false }, this.toolchain.run(limits));
      if (ran.sandboxError) return sandboxFailure(id, ran);
      return { id, ...this.outcome(ran), ...common(ran), durationMs: round(ran.durationMs), ...(compile ? { compileMs: round(compileMs) } : {}) };
    } finally {
      rmSync(buildDir, { recursive: true, force: true });
    }
  }

  private outcome(ran: StepResult): Pick<ExecutionResult, 'status' | 'exception'> {
    if (ran.timedOut || ran.signal === 'SIGXCPU') return { status: 'timeout' };
    if (ran.exitCode === 0) return { status: 'passed' };
    const classified = this.toolchain.classify(ran);
    return { status: classified.status, ...(classified.exception ? { exception: clip(classified.exception) } : {}) };
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function clip(exception: { type: string; message: string; traceback?: string }) {
  return { ...exception, message: exception.message.slice(0, MESSAGE_CHARS), ...(exception.traceback ? { traceback: exception.traceback.slice(-4000) } : {}) };
}

function common(step: StepResult) {
  return {
    exitCode: step.exitCode,
    signal: step.signal,
    stdout: step.stdout,
    stderr: step.stderr,
    stdoutBytes: step.stdoutBytes,
    stderrBytes: step.stderrBytes,
    ...(step.survivors ? { survivors: step.survivors } : {}),
  };
}

function compileFailure(id: string, compiled: StepResult, timeoutMs: number): ExecutionResult {
  const diagnostics = (compiled.stderr + (compiled.stderr && compiled.stdout ? '\n' : '') + compiled.stdout).trim();
  const message = compiled.timedOut
    ? `the compile step ran out of its ${timeoutMs} ms`
    : compiled.signal
      ? `the compiler was killed by ${compiled.signal}${diagnostics ? `: ${diagnostics}` : ''}`
      : diagnostics || `the compiler exited with code ${compiled.exitCode}`;
  return { id, status: 'compile_error', exception: { type: 'CompileError', message: message.slice(0, MESSAGE_CHARS) }, ...common(compiled), durationMs: 0 };
}

function sandboxFailure(id: string, step: StepResult): ExecutionResult {
  return {
    id,
    status: 'error',
    exception: { type: 'SandboxError', message: `the sandbox could not start this program: ${step.sandboxError}`.slice(0, MESSAGE_CHARS) },
    ...common(step),
    durationMs: 0,
  };
}
