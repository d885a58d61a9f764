/**
 * ProcessExecutor: runs programs of one process-run language (toolchains/), many at once, each
 * in its own sandboxed steps (bwrapStep.ts says what is isolated): write the files into a fresh
 * build directory, compile (if the language compiles) with the compile limits, run with the run
 * limits, classify, remove the directory. Same request and result as the PythonExecutor.
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
 * Batches: when the toolchain can compile several programs at once (`compileBatch`, contract.ts)
 * and `runMany` gets several requests with the same limits, they are compiled in batches of at
 * most `batchSize`, spread over the slots (a batch: one slot, one build directory, the batch's
 * own steps); each program the batch built then runs alone in a fresh build directory of its own,
 * in its own sandbox (or its slot's fork server, as a lone run would), as its slot's uid, with its
 * own run limits, exactly as a lone program's run step; each program the batch did not build (its compile failed, or anything went wrong) is
 * compiled and run alone, so that its outcome and diagnostics are the lone ones. `run` batches
 * too, what it can: requests wait in a queue; the requests made in one turn of the event loop (a
 * shard's first burst) are spread over the free slots as batches, and when a slot frees, the
 * waiting requests with the same limits form a batch (a lone request waits one turn, then starts
 * alone).
 *
 * Shared processes (opt-in, `shareProcess`; contract.ts SharedRun): for a toolchain that can run
 * several programs in one process (JavaScript), the batches above are run instead of compiled
 * together: one sandboxed step in one slot runs the batch's programs, each in its own space
 * within it; each program whose outcome that step cannot vouch for runs alone. Results of a
 * shared process say so (`sharedProcess: true`).
 */
import { chmodSync, chownSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DEFAULT_LIMITS,
  ExecutionRequestSchema,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
} from '../../../domain/execution/types.js';
import { chownTree, findBwrap } from '../bwrapPolicy.js';
import type { BatchOutcome, SharedOutcome, SlotServers, StepResult, Toolchain } from './contract.js';
import { reapUid, runStep } from './bwrapStep.js';
import { ForkServers } from './forkServer.js';

export interface ProcessExecutorOptions {
  /** Samples running at once; default: cores + 2 (as the Python sandbox). */
  concurrency?: number;
  limits?: Partial<ExecutionLimits>;
  /** Size of each step's private /tmp. */
  tmpBytes?: number;
  /** First uid of the per-slot uids (root only); default: a random block. */
  uidBase?: number;
  /**
   * Most programs compiled in one batch by `runMany` when the toolchain batches (1: never batch).
   * Default 16: Go's shared test main and link (~140 ms of CPU, a little more with more packages)
   * are then under 10 ms a program; fewer programs than slots x 16 are spread over the slots.
   * Shared processes: DEFAULT_SHARED_BATCH_SIZE.
   */
  batchSize?: number;
  /**
   * Run a batch's programs in one process where the toolchain can (`runTogether`: JavaScript),
   * each in its own space within it (contract.ts SharedRun says what is shared). Default false:
   * a process per program.
   */
  shareProcess?: boolean;
  /**
   * Run each program as a child forked by a warm server of its slot where the toolchain has one
   * (`forkServer`: Ruby, Perl, PHP, R and Lua fork a warm interpreter; bash, Node, D and C# exec
   * their lone command from a warm sandbox; Racket runs programs in a warm racket's sandboxed
   * evaluators, `slotServers`), root runners only; weaker isolation between a slot's
   * programs than a sandbox each: the Python zygote's level (forkServer.ts says what). Default
   * true: MultiPL-E's scripted languages spend most of a lone run starting the interpreter and its
   * test library (docs/sandbox.md#fork-servers-scripted-languages); false runs every program alone.
   */
  forkServer?: boolean;
}

/** How the runner groups programs: compiled together, run together in one process, or neither. */
type Batching = 'compile' | 'share' | 'none';

export const DEFAULT_BATCH_SIZE = 16;
/**
 * Most programs in one shared process by default: a Node start (~50 ms with its sandbox) against
 * under 2 ms a MultiPL-E program; 64 brings the start under 1 ms a program (bench-multiple.ts
 * --share-process: 3.9x MultiPL-E's throughput at 16, 7.2x at 64), and a program that ends the
 * process (a memory bomb) sends at most 63 others to lone runs.
 */
export const DEFAULT_SHARED_BATCH_SIZE = 64;

const MESSAGE_CHARS = 2000;

/** The toolchain is not installed: names it, what is missing and how to install it. */
export class ToolchainMissingError extends Error {
  override name = 'ToolchainMissingError';
}

export class ProcessExecutor {
  readonly concurrency: number;
  readonly limits: ExecutionLimits;
  readonly batchSize: number;
  readonly batching: Batching;
  private readonly uidBase: number;
  private readonly freeSlots: number[];
  private readonly waiting: Array<() => void> = [];
  /** `run` requests waiting for a slot, to be compiled together (see dispatch). */
  private readonly queued: Array<{
    request: ExecutionRequest;
    resolve: (result: ExecutionResult) => void;
    reject: (error: unknown) => void;
  }> = [];
  private root: string | undefined;
  private started: Promise<void> | undefined;
  private closed = false;
  private sequence = 0;
  private dispatchScheduled = false;
  /** The slots' fork servers or warm servers (options.forkServer, a toolchain that has one, a root runner). */
  private forks: SlotServers | undefined;

  constructor(
    readonly toolchain: Toolchain,
    private readonly options: ProcessExecutorOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? availableParallelism() + 2);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    const sharing = Boolean(options.shareProcess && toolchain.runTogether && !toolchain.compileBatch);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? (sharing ? DEFAULT_SHARED_BATCH_SIZE : DEFAULT_BATCH_SIZE)));
    this.uidBase = options.uidBase ?? 2_000_000 + Math.floor(Math.random() * 1_000_000) * 128;
    this.freeSlots = Array.from({ length: this.concurrency }, (_, i) => i);
    this.batching = this.batchSize < 2 ? 'none' : toolchain.compileBatch ? 'compile' : sharing ? 'share' : 'none';
  }

  /**
   * `run` calls worth keeping in flight: where programs are batched, a batch's worth per slot
   * (requests that wait for a slot form the next batch); else two per slot.
   */
  get inFlightCapacity(): number {
    return this.batching === 'none' ? this.concurrency * 2 : this.concurrency * this.batchSize;
  }

  /** The uids the samples run as (root workers): [first, last]. */
  get uidRange(): [number, number] {
    return [this.uidBase, this.uidBase + this.concurrency - 1];
  }

  start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('ProcessExecutor is closed'));
    this.started ??= (async () => {
      const check = await this.toolchain.check();
      if (!check.ok)
        throw new ToolchainMissingError(
          `${this.toolchain.name} (language ${this.toolchain.language}): ${check.missing} is missing; ${check.install}`,
        );
      if (!findBwrap()) throw new Error('bwrap is not installed: run scripts/install-sandbox.sh');
      await this.toolchain.prepare?.();
      this.root = mkdtempSync(join(tmpdir(), `explora-${this.toolchain.language.replace(/[^a-z0-9]/g, '')}-`));
      // Samples' uids reach their own directory only.
      chmodSync(this.root, 0o711);
      this.toolchain.startServers?.(this.root);
      const tmpBytes = this.options.tmpBytes ?? 256 * 1024 * 1024;
      if (this.options.forkServer !== false && process.getuid?.() === 0)
        this.forks = this.toolchain.slotServers
          ? this.toolchain.slotServers(this.toolchain.mounts(), tmpBytes)
          : this.toolchain.forkServer
            ? new ForkServers(this.toolchain.forkServer(), this.toolchain.mounts(), tmpBytes)
            : undefined;
    })();
    this.started.catch(() => {
      this.started = undefined;
    });
    return this.started;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const parsed = ExecutionRequestSchema.parse(request);
    await this.start();
    if (this.batching === 'none') return this.runAlone(parsed);
    // Requests wait here; the ones with the same limits are batched when a slot is free (a sweep's
    // samples come one `run` at a time).
    return new Promise((resolve, reject) => {
      this.queued.push({ request: parsed, resolve, reject });
      this.dispatchSoon();
    });
  }

  /**
   * Dispatches after this turn of the event loop: requests made together all queue first and are
   * spread over the free slots as batches, rather than the first of them taking each free slot
   * alone (which costs a compile or a process start of their own each).
   */
  private dispatchSoon(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** Starts what waits in `queued` on the free slots (runs of built programs, in `waiting`, first). */
  private dispatch(): void {
    while (this.queued.length > 0 && this.freeSlots.length > 0 && this.waiting.length === 0) {
      const key = limitsKey(this.limits, this.queued[0]!.request);
      const alike = this.queued.filter((q) => limitsKey(this.limits, q.request) === key).length;
      // Spread over the free slots, at most batchSize a batch.
      const size = Math.min(this.batchSize, Math.ceil(alike / this.freeSlots.length));
      const taken: typeof this.queued = [];
      for (let i = 0; i < this.queued.length && taken.length < size;) {
        if (limitsKey(this.limits, this.queued[i]!.request) === key) taken.push(...this.queued.splice(i, 1));
        else i++;
      }
      // Both take their slot before their first await: the loop sees it gone.
      if (taken.length === 1) this.runAlone(taken[0]!.request).then(taken[0]!.resolve, taken[0]!.reject);
      else
        void this.runBatch(taken.map((t) => t.request)).then((settled) =>
          settled.forEach((r, k) => (r.status === 'fulfilled' ? taken[k]!.resolve(r.value) : taken[k]!.reject(r.reason))),
        );
    }
  }

  /** One program compiled (if its language compiles) and run on its own. */
  private async runAlone(parsed: ExecutionRequest): Promise<ExecutionResult> {
    const limits = { ...this.limits, ...parsed.limits };
    const slot = await this.takeSlot();
    try {
      return await this.runInSlot(parsed.id, parsed.program, limits, slot);
    } finally {
      this.freeSlot(slot);
    }
  }

  async runMany(requests: readonly ExecutionRequest[]): Promise<ExecutionResult[]> {
    if (this.batching === 'none' || requests.length < 2) return Promise.all(requests.map((r) => this.run(r)));
    // runMany's batches are its own: they do not wait for a slot to come free to form.
    const parsed = requests.map((r) => ExecutionRequestSchema.parse(r));
    await this.start();
    // Programs with the same limits share batches; the batches of a group are of even sizes.
    const groups = new Map<string, number[]>();
    parsed.forEach((r, i) => {
      const key = limitsKey(this.limits, r);
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const results: ExecutionResult[] = new Array(parsed.length);
    const batches: number[][] = [];
    for (const members of groups.values()) {
      // At most batchSize a batch, and as many batches as slots where there are programs enough
      // (two at least a batch): the slots compile side by side rather than waiting for one batch.
      const count = Math.max(Math.ceil(members.length / this.batchSize), Math.min(this.concurrency, Math.floor(members.length / 2)));
      for (let b = 0; b < count; b++)
        batches.push(members.slice(Math.floor((b * members.length) / count), Math.floor(((b + 1) * members.length) / count)));
    }
    await Promise.all(
      batches.map(async (members) => {
        const batch = members.map((i) => parsed[i]!);
        const done = batch.length < 2 ? await Promise.all(batch.map((r) => this.runAlone(r))) : settledOrThrow(await this.runBatch(batch));
        members.forEach((i, k) => (results[i] = done[k]!));
      }),
    );
    return results;
  }

  /** One batch (see the header): each program's result or failure. */
  private runBatch(batch: readonly ExecutionRequest[]): Promise<PromiseSettledResult<ExecutionResult>[]> {
    return this.batching === 'share' ? this.runShared(batch) : this.compileTogether(batch);
  }

  /** A batch run in one process (SharedRun): what it vouches for, as its lone runs would end; the rest alone. */
  private async runShared(batch: readonly ExecutionRequest[]): Promise<PromiseSettledResult<ExecutionResult>[]> {
    const limits = { ...this.limits, ...batch[0]!.limits };
    const plan = this.planned(`a shared process for ${batch.length} programs`, () =>
      this.toolchain.runTogether!(
        limits,
        batch.map((r) => r.program),
      ),
    );
    if (!plan) return Promise.allSettled(batch.map((r) => this.runAlone(r)));
    const slot = await this.takeSlot();
    const uid = this.uidOf(slot);
    const dir = join(this.root!, `b${slot}-${++this.sequence}`);
    let outcomes: SharedOutcome[];
    try {
      mkdirSync(dir, { mode: 0o700 });
      for (const [name, text] of Object.entries(plan.files)) writeFileSync(join(dir, name), text, { mode: 0o644 });
      if (uid !== undefined) chownTree(dir, uid);
      const sandbox = this.sandbox(uid, dir, false);
      const ran = await runStep(sandbox, plan.step);
      if (ran.sandboxError) throw new Error(ran.sandboxError);
      outcomes = plan.read(ran);
      if (outcomes.length !== batch.length)
        throw new Error(`a shared process of ${batch.length} programs answered ${outcomes.length} outcomes`);
    } catch (error) {
      // The shared process's own failure is no program's: each runs alone.
      process.emitWarning(`${this.toolchain.name}: a shared process of ${batch.length} programs failed, each runs alone: ${String(error)}`);
      outcomes = batch.map(() => ({ kind: 'alone' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      this.freeSlot(slot);
    }
    return Promise.allSettled(
      batch.map(async (request, k) => {
        const outcome = outcomes[k]!;
        if (outcome.kind === 'alone') return this.runAlone(request);
        const ran = outcome.run;
        return { id: request.id, ...this.outcome(ran), ...common(ran), durationMs: round(ran.durationMs), sharedProcess: true as const };
      }),
    );
  }

  /** Compiled together in one slot, each program then run alone. */
  private async compileTogether(batch: readonly ExecutionRequest[]): Promise<PromiseSettledResult<ExecutionResult>[]> {
    const limits = { ...this.limits, ...batch[0]!.limits };
    const plan = this.planned(`a batch of ${batch.length} programs`, () =>
      this.toolchain.compileBatch!(
        limits,
        batch.map((r) => r.program),
      ),
    );
    if (!plan) return Promise.allSettled(batch.map((r) => this.runAlone(r)));
    const slot = await this.takeSlot();
    const uid = this.uidOf(slot);
    const batchDir = join(this.root!, `b${slot}-${++this.sequence}`);
    let outcomes: BatchOutcome[];
    try {
      mkdirSync(batchDir, { mode: 0o700 });
      if (uid !== undefined) chownSync(batchDir, uid, uid);
      const sandbox = this.sandbox(uid, batchDir, true);
      outcomes = await plan.build({
        buildDir: batchDir,
        write: (files) => {
          for (const [name, text] of Object.entries(files)) {
            const path = join(batchDir, name);
            for (let dir = dirname(path); dir.length > batchDir.length; dir = dirname(dir))
              mkdirSync(dir, { recursive: true, mode: 0o700 });
            writeFileSync(path, text, { mode: 0o644 });
          }
          if (uid !== undefined) chownTree(batchDir, uid);
        },
        run: (step) => runStep(sandbox, step),
      });
      if (outcomes.length !== batch.length)
        throw new Error(`${this.toolchain.name}: a batch of ${batch.length} programs answered ${outcomes.length} outcomes`);
    } catch (error) {
      // The batch's own failure is no program's: each is compiled alone.
      process.emitWarning(`${this.toolchain.name}: a batch of ${batch.length} programs failed, each is compiled alone: ${String(error)}`);
      outcomes = batch.map(() => ({ kind: 'alone' }));
    }
    // The programs ask for their slots before the batch's is given back: their runs come before
    // the next batch's compile.
    const runs = Promise.allSettled(
      batch.map((r, k) =>
        outcomes[k]!.kind === 'built' ? this.runBuilt(r, outcomes[k] as Extract<BatchOutcome, { kind: 'built' }>) : this.runAlone(r),
      ),
    );
    this.freeSlot(slot);
    try {
      return await runs;
    } finally {
      rmSync(batchDir, { recursive: true, force: true });
    }
  }

  /** A program its batch built: its own build directory (the batch's files linked in), its own slot, its run step. */
  private async runBuilt(request: ExecutionRequest, built: Extract<BatchOutcome, { kind: 'built' }>): Promise<ExecutionResult> {
    const slot = await this.takeSlot();
    const uid = this.uidOf(slot);
    const buildDir = join(this.root!, `s${slot}-${++this.sequence}`);
    try {
      mkdirSync(buildDir, { mode: 0o700 });
      for (const [name, host] of Object.entries(built.files)) {
        const target = join(buildDir, name);
        try {
          linkSync(host, target);
        } catch {
          copyFileSync(host, target);
        }
        chmodSync(target, 0o755);
      }
      if (uid !== undefined) chownSync(buildDir, uid, uid);
      const sandbox = this.sandbox(uid, buildDir, false);
      const forked =
        this.forks && uid !== undefined && built.run.stdin === undefined ? await this.forks.run(uid, buildDir, built.run) : null;
      // As runInSlot's: a forked program's uid is reaped as a lone step's is.
      const ran = forked ? { ...forked, survivors: this.forks!.reapsAfter ? await reapUid(uid!) : 0 } : await runStep(sandbox, built.run);
      if (ran.sandboxError) return sandboxFailure(request.id, ran);
      return {
        id: request.id,
        ...this.outcome(ran),
        ...common(ran),
        durationMs: round(ran.durationMs),
        compileMs: round(built.compileMs),
        ...(forked ? { forked: true as const } : {}),
      };
    } finally {
      rmSync(buildDir, { recursive: true, force: true });
      this.freeSlot(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.toolchain.close?.();
    this.forks?.close();
    if (this.root) rmSync(this.root, { recursive: true, force: true });
  }

  /** A toolchain's plan for a batch, or null when it has none or failed to make one (warned): each program then runs alone. */
  private planned<T>(what: string, make: () => T | null): T | null {
    try {
      return make();
    } catch (error) {
      process.emitWarning(`${this.toolchain.name}: ${what} could not be planned, each runs alone: ${String(error)}`);
      return null;
    }
  }

  /** The uid a slot's steps run as (root workers), or undefined (rootless: the worker's own). */
  private uidOf(slot: number): number | undefined {
    return process.getuid?.() === 0 ? this.uidBase + slot : undefined;
  }

  private sandbox(uid: number | undefined, buildDir: string, writableBuild: boolean) {
    return {
      bwrap: findBwrap()!,
      uid,
      buildDir,
      mounts: this.toolchain.mounts(),
      tmpBytes: this.options.tmpBytes ?? 256 * 1024 * 1024,
      writableBuild,
    };
  }

  private freeSlot(slot: number): void {
    this.freeSlots.push(slot);
    this.waiting.shift()?.();
    this.dispatch();
  }

  private takeSlot(): Promise<number> {
    const slot = this.freeSlots.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(() => resolve(this.freeSlots.shift()!)));
  }

  private async runInSlot(id: string, program: string, limits: ExecutionLimits, slot: number): Promise<ExecutionResult> {
    const uid = this.uidOf(slot);
    const buildDir = join(this.root!, `s${slot}-${++this.sequence}`);
    mkdirSync(buildDir, { mode: 0o700 });
    try {
      for (const [name, text] of Object.entries(this.toolchain.files(program))) writeFileSync(join(buildDir, name), text, { mode: 0o644 });
      if (uid !== undefined) chownSync(buildDir, uid, uid);
      const sandbox = this.sandbox(uid, buildDir, false);
      const compile = this.toolchain.compile(limits, program);
      let compileMs = 0;
      if (compile) {
        const compiled =
          compile.kind === 'served' ? await compile.serve({ buildDir, uid }) : await runStep({ ...sandbox, writableBuild: true }, compile);
        compileMs = compiled.durationMs;
        if (compiled.sandboxError) return sandboxFailure(id, compiled);
        if (compiled.timedOut || compiled.exitCode !== 0)
          return { ...compileFailure(id, compiled, compile.limits.timeoutMs), compileMs: round(compileMs) };
      }
      const step = this.toolchain.run(limits);
      const forked = this.forks && uid !== undefined && step.stdin === undefined ? await this.forks.run(uid, buildDir, step) : null;
      // A forked program's uid is reaped as a lone step's is; the server already killed what it left.
      const ran = forked ? { ...forked, survivors: this.forks!.reapsAfter ? await reapUid(uid!) : 0 } : await runStep(sandbox, step);
      if (ran.sandboxError) return sandboxFailure(id, ran);
      return {
        id,
        ...this.outcome(ran),
        ...common(ran),
        durationMs: round(ran.durationMs),
        ...(compile ? { compileMs: round(compileMs) } : {}),
        ...(forked ? { forked: true as const } : {}),
      };
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

/** The results, or the first failure (as Promise.all). */
function settledOrThrow<T>(settled: PromiseSettledResult<T>[]): T[] {
  return settled.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
}

/** Requests with the same key can share a batch. */
function limitsKey(defaults: ExecutionLimits, request: ExecutionRequest): string {
  return JSON.stringify({ ...defaults, ...request.limits });
}

/** Hands a directory and what is in it to the slot's uid. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function clip(exception: { type: string; message: string; traceback?: string }) {
  return {
    ...exception,
    message: exception.message.slice(0, MESSAGE_CHARS),
    ...(exception.traceback ? { traceback: exception.traceback.slice(-4000) } : {}),
  };
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
  return {
    id,
    status: 'compile_error',
    exception: { type: 'CompileError', message: message.slice(0, MESSAGE_CHARS) },
    ...common(compiled),
    durationMs: 0,
  };
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
