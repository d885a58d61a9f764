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
 *
 * Batches: `runMany` compiles the programs a toolchain's `batch` accepts several per compiler call
 * (contract.ts, BatchCompile), in at least as many batches as there are slots (none smaller than
 * two programs); `run` does so for the accepted programs of calls that find every slot busy (they
 * would wait anyway): the next free slot compiles up to a batch of them together. Then each program
 * runs in a fresh build directory of its own holding what its own
 * compile would have left, with the ordinary run step: same sandbox, limits, status mapping and
 * survivors accounting. A batch that fails to compile never decides an outcome: the programs it
 * blames take the ordinary route (their own compile step), the others are batched again, and
 * when nothing new is blamed every program takes the ordinary route. A batched program's
 * `compileMs` is its share of the batch's compile step.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DEFAULT_LIMITS,
  ExecutionRequestSchema,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
} from '../../../domain/execution/types.js';
import { findBwrap } from '../backends.js';
import type { BatchCompile, BuildFile, SandboxStep, StepResult, Toolchain } from './contract.js';
import { runStep } from './bwrapStep.js';

export interface ProcessExecutorOptions {
  /** Samples running at once; default: cores + 2 (as the Python sandbox). */
  concurrency?: number;
  limits?: Partial<ExecutionLimits>;
  /** Size of each step's private /tmp. */
  tmpBytes?: number;
  /** First uid of the per-slot uids (root only); default: a random block. */
  uidBase?: number;
  /**
   * Most programs per compiler call in `runMany`, for a toolchain that batches (contract.ts,
   * BatchCompile); default and upper bound: the toolchain's own `maxPrograms`; 1: never batch.
   */
  batchSize?: number;
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
  /** What `runMany`'s batches did: compile steps, programs run from a batch's binary, failed batch compiles. */
  readonly batchCounts = { compiles: 0, programs: 0, failures: 0 };
  /** Batchable programs of `run` waiting for a slot, and whether one of them waits for it. */
  private readonly pending: Array<{ request: ExecutionRequest; done: ReturnType<typeof deferred<ExecutionResult>> }> = [];
  private leading = false;

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
    await this.start();
    // All slots busy: a program that may share a compiler call waits with the others that do, and
    // the next free slot compiles them together (no wait is added: they would queue anyway).
    const batch = this.batching();
    if (batch && this.freeSlots.length === 0 && batch.compile.accepts(parsed.program)) {
      const done = deferred<ExecutionResult>();
      this.pending.push({ request: parsed, done });
      if (!this.leading) this.leadPending(batch.compile, batch.size);
      return done.promise;
    }
    return this.runAlone(parsed);
  }

  /** One program, its own compile step: the ordinary route. */
  private async runAlone(request: ExecutionRequest): Promise<ExecutionResult> {
    const limits = { ...this.limits, ...request.limits };
    const slot = await this.takeSlot();
    try {
      return await this.runInSlot(request.id, request.program, limits, slot);
    } finally {
      this.releaseSlot(slot);
    }
  }

  /** The toolchain's batch and the batch size, or null when programs compile one per call. */
  private batching(): { compile: BatchCompile; size: number } | null {
    const compile = this.toolchain.batch;
    if (!compile) return null;
    const size = Math.min(compile.maxPrograms, this.options.batchSize ?? compile.maxPrograms);
    return size >= 2 ? { compile, size } : null;
  }

  /** Waits for a slot for the pending programs; whoever is pending then (up to `size`) compiles in it. */
  private leadPending(batch: BatchCompile, size: number): void {
    this.leading = true;
    void this.takeSlot().then((slot) => {
      this.leading = false;
      const group = this.pending.splice(0, size);
      if (this.pending.length) this.leadPending(batch, size);
      const requests = group.map((p) => p.request);
      const results: Promise<ExecutionResult[]> =
        group.length === 1
          ? this.runInSlot(requests[0]!.id, requests[0]!.program, { ...this.limits, ...requests[0]!.limits }, slot)
              .finally(() => this.releaseSlot(slot))
              .then((r) => [r])
          : this.runBatch(batch, requests, slot);
      results.then(
        (rs) => group.forEach((p, i) => p.done.resolve(rs[i]!)),
        (error: unknown) => group.forEach((p) => p.done.reject(error)),
      );
    });
  }

  async runMany(requests: readonly ExecutionRequest[]): Promise<ExecutionResult[]> {
    const batching = this.batching();
    if (!batching || requests.length < 2) return Promise.all(requests.map((r) => this.run(r)));
    const { compile: batch, size } = batching;
    const parsed = requests.map((r) => ExecutionRequestSchema.parse(r));
    await this.start();
    const results = new Array<Promise<ExecutionResult>>(parsed.length);
    const batchable: number[] = [];
    parsed.forEach((request, i) => {
      if (batch.accepts(request.program)) batchable.push(i);
      else results[i] = this.runAlone(request);
    });
    const groups = batchGroups(batchable, size, this.concurrency);
    const outcomes = groups.map(() => deferred<ExecutionResult[]>());
    groups.forEach((group, g) => group.forEach((i, k) => (results[i] = outcomes[g]!.promise.then((rs) => rs[k]!))));
    // At most `concurrency` batches at once: a batch's runs queue behind few other compiles, and
    // the binaries of batches not yet run do not pile up.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < groups.length) {
        const g = next++;
        await this.runBatch(batch, groups[g]!.map((i) => parsed[i]!)).then(outcomes[g]!.resolve, outcomes[g]!.reject);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, groups.length) }, worker));
    return Promise.all(results);
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

  /** One batch: one compile step, then each program's own run; on a compile failure, see runMany. */
  private async runBatch(batch: BatchCompile, requests: readonly ExecutionRequest[], heldSlot?: number): Promise<ExecutionResult[]> {
    if (requests.length === 1 && heldSlot === undefined) return [await this.runAlone(requests[0]!)];
    const programs = requests.map((r) => r.program);
    const limits = { ...this.limits, ...requests[0]!.limits };
    const slot = heldSlot ?? (await this.takeSlot());
    let step: SandboxStep;
    let compiled: StepResult;
    let runFiles: Array<Record<string, BuildFile> | null> = [];
    try {
      step = batch.compile(limits, programs);
      const uid = this.slotUid(slot);
      const buildDir = join(this.root!, `b${slot}-${++this.sequence}`);
      mkdirSync(buildDir, { mode: 0o700 });
      try {
        writeBuildFiles(buildDir, batch.files(programs), uid);
        compiled = await runStep({ ...this.sandbox(buildDir, uid), writableBuild: true }, step);
        this.batchCounts.compiles++;
        if (!compiled.sandboxError && !compiled.timedOut && compiled.exitCode === 0) runFiles = programs.map((_, i) => usableRunFiles(batch, buildDir, i, programs));
      } finally {
        rmSync(buildDir, { recursive: true, force: true });
      }
    } finally {
      this.releaseSlot(slot);
    }
    if (runFiles.length === programs.length && runFiles.every((f) => f !== null)) {
      const share = compiled.durationMs / programs.length;
      this.batchCounts.programs += programs.length;
      return Promise.all(requests.map((r, i) => this.runPrebuilt(r, runFiles[i]!, share)));
    }
    // The batch failed: its output decides nothing. The blamed programs compile alone; the rest
    // is batched again (strictly fewer programs, so this ends), or, if nobody is blamed, alone.
    this.batchCounts.failures++;
    const ok = compiled.exitCode === 0 && !compiled.timedOut && !compiled.sandboxError;
    const blamed = ok || compiled.timedOut || compiled.signal || compiled.sandboxError ? null : batch.blame(compiled, programs);
    const named = new Set((blamed ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < programs.length));
    if (named.size === 0) return Promise.all(requests.map((r) => this.runAlone(r)));
    const rest = requests.filter((_, i) => !named.has(i));
    const [alone, again] = await Promise.all([
      Promise.all(requests.filter((_, i) => named.has(i)).map((r) => this.runAlone(r))),
      rest.length ? this.runBatch(batch, rest) : Promise.resolve([]),
    ]);
    let a = 0;
    let b = 0;
    return requests.map((_, i) => (named.has(i) ? alone[a++]! : again[b++]!));
  }

  /** A batched program's run: a build directory of its own with what its own compile would leave, the ordinary run step. */
  private async runPrebuilt(request: ExecutionRequest, files: Record<string, BuildFile>, compileMs: number): Promise<ExecutionResult> {
    const limits = { ...this.limits, ...request.limits };
    const slot = await this.takeSlot();
    try {
      const uid = this.slotUid(slot);
      const buildDir = join(this.root!, `s${slot}-${++this.sequence}`);
      mkdirSync(buildDir, { mode: 0o700 });
      try {
        writeBuildFiles(buildDir, files, uid);
        return await this.runStepOf(request.id, limits, this.sandbox(buildDir, uid), compileMs);
      } finally {
        rmSync(buildDir, { recursive: true, force: true });
      }
    } finally {
      this.releaseSlot(slot);
    }
  }

  private slotUid(slot: number): number | undefined {
    return process.getuid?.() === 0 ? this.uidBase + slot : undefined;
  }

  private releaseSlot(slot: number): void {
    this.freeSlots.push(slot);
    this.waiting.shift()?.();
  }

  private sandbox(buildDir: string, uid: number | undefined) {
    return { bwrap: findBwrap()!, uid, buildDir, mounts: this.toolchain.mounts(), tmpBytes: this.options.tmpBytes ?? 256 * 1024 * 1024 };
  }

  /** The run step and its outcome, the same after a lone compile and after a batch's. */
  private async runStepOf(id: string, limits: ExecutionLimits, sandbox: ReturnType<ProcessExecutor['sandbox']>, compileMs: number | undefined): Promise<ExecutionResult> {
    const ran = await runStep({ ...sandbox, writableBuild: false }, this.toolchain.run(limits));
    if (ran.sandboxError) return sandboxFailure(id, ran);
    return { id, ...this.outcome(ran), ...common(ran), durationMs: round(ran.durationMs), ...(compileMs !== undefined ? { compileMs: round(compileMs) } : {}) };
  }

  private async runInSlot(id: string, program: string, limits: ExecutionLimits, slot: number): Promise<ExecutionResult> {
    const uid = this.slotUid(slot);
    const buildDir = join(this.root!, `s${slot}-${++this.sequence}`);
    mkdirSync(buildDir, { mode: 0o700 });
    try {
      writeBuildFiles(buildDir, this.toolchain.files(program), uid);
      const sandbox = this.sandbox(buildDir, uid);
      const compile = this.toolchain.compile(limits, program);
      let compileMs = 0;
      if (compile) {
        const compiled = compile.kind === 'served' ? await compile.serve({ buildDir, uid }) : await runStep({ ...sandbox, writableBuild: true }, compile);
        compileMs = compiled.durationMs;
        if (compiled.sandboxError) return sandboxFailure(id, compiled);
        if (compiled.timedOut || compiled.exitCode !== 0) return { ...compileFailure(id, compiled, compile.limits.timeoutMs), compileMs: round(compileMs) };
      }
      return await this.runStepOf(id, limits, sandbox, compile ? compileMs : undefined);
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

/** A batch's output for one program, or null (every program then compiles alone) if it cannot be read. */
function usableRunFiles(batch: BatchCompile, buildDir: string, index: number, programs: readonly string[]): Record<string, BuildFile> | null {
  try {
    return batch.runFiles(buildDir, index, programs);
  } catch {
    return null;
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * The batchable programs (indices) in groups: at least one per slot while there are programs for
 * it, none larger than `size`, sizes as even as can be.
 */
export function batchGroups(indices: readonly number[], size: number, concurrency: number): number[][] {
  if (indices.length === 0) return [];
  const count = Math.max(Math.min(concurrency, indices.length), Math.ceil(indices.length / size));
  const groups: number[][] = Array.from({ length: count }, () => []);
  indices.forEach((index, k) => groups[Math.floor((k * count) / indices.length)]!.push(index));
  return groups;
}

/**
 * Writes files (relative paths, subdirectories made) into a build directory owned by the step's
 * uid: sources stay root's (readable), executables are the uid's, as a compiler run as the uid
 * leaves them.
 */
function writeBuildFiles(buildDir: string, files: Record<string, string | BuildFile>, uid: number | undefined): void {
  for (const [name, file] of Object.entries(files)) {
    const path = join(buildDir, name);
    if (dirname(name) !== '.') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    }
    const { data, executable } = typeof file === 'string' ? { data: file, executable: false } : file;
    writeFileSync(path, data, { mode: executable ? 0o755 : 0o644 });
    if (executable && uid !== undefined) chownSync(path, uid, uid);
  }
  if (uid !== undefined) chownSync(buildDir, uid, uid);
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
