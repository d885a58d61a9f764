/**
 * Warm Racket (the default for rkt, like the fork servers; --no-fork-server runs every program
 * cold; docs/sandbox.md#warm-racket). Racket CS cannot fork, and a cold `racket program.rkt` spends
 * ~350-580 ms starting Racket and loading racket and rackunit before a MultiPL-E program's few
 * milliseconds. So one racket per slot, started in the lone run's own jail (bwrapStep.ts's argv:
 * the same bubblewrap policy, network namespace with loopback down, the slot's uid without
 * capabilities, the lone run's memory, process, file-size and open-file limits; only RLIMIT_CPU is
 * the server's lifetime's, each program's time being the server's evaluation limit and this
 * runner's deadline), runs each program in a racket/sandbox evaluator of its own (fork/rkt.rkt says
 * what that isolates: a weaker code inspector, so no ffi/unsafe or unsafe primitives; a security
 * guard refusing files beyond Racket's own and the program, processes, network, foreign
 * libraries; a fresh namespace, custodian, thread, environment copy; the protocol out of reach).
 * Whatever the server cannot run as a cold racket would is answered `alone` (its screen, a refused
 * access, a protected binding, output past the cap, the time or memory limit), or is a server that
 * died or answered late or malformed: the server is then killed and replaced, and the program runs
 * cold (the runner's lone path), so its outcome is the cold one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { findBwrap, SANDBOX_PATH, type Mount } from '../bwrapPolicy.js';
import { asBwrapReports, bwrapArgs } from './bwrapStep.js';
import type { SandboxStep, SlotServers, StepResult } from './contract.js';

const SCRIPT = fileURLToPath(new URL('./fork/rkt.rkt', import.meta.url));
const SCRIPT_IN_SANDBOX = '/fork/rkt.rkt';

/** The server's RLIMIT_CPU: its lifetime's CPU, not a program's (each program has its deadline). */
const SERVER_CPU_MS = 3_600_000;
/** How long past a program's wall time the server may take to answer before it counts as hung. */
const ANSWER_GRACE_MS = 5_000;
/** How long a server may take to load racket, rackunit and racket/sandbox (seconds on a loaded machine). */
const START_MS = 60_000;
/** Programs one server runs before it is replaced: what a program leaves behind in shared state (interned symbols, caches) stays bounded. */
const PROGRAMS_PER_SERVER = 500;
/** How long a killed server's sandbox may take to go. */
const STOP_MS = 5_000;
/** A slot whose server failed to start this many times in a row runs its programs cold. */
const MAX_START_FAILURES = 2;

const AnswerSchema = z.object({
  exitCode: z.number().int().min(0).max(255),
  signal: z.null(),
  timedOut: z.literal(false),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
});
const AloneSchema = z.object({ alone: z.literal(true), why: z.string() });
const ReadySchema = z.object({ ready: z.literal(true) });

interface Running {
  child: ChildProcess;
  lines: AsyncIterator<string>;
  /** The limits and environment it was started with: a request with others gets a new server. */
  key: string;
  served: number;
  ready: Promise<boolean>;
}

class RacketSlot {
  private running: Running | undefined;
  private readonly dir: string;
  private startFailures = 0;

  constructor(
    private readonly uid: number,
    private readonly mounts: readonly Mount[],
    private readonly tmpBytes: number,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `explora-rkt-${uid}-`));
    mkdirSync(join(this.dir, 'build'), { mode: 0o755 });
  }

  private start(step: SandboxStep, key: string): Running {
    const sandbox = {
      bwrap: findBwrap()!,
      uid: this.uid,
      buildDir: join(this.dir, 'build'),
      writableBuild: false,
      mounts: [...this.mounts, { host: SCRIPT, sandbox: SCRIPT_IN_SANDBOX }],
      tmpBytes: this.tmpBytes,
    };
    const server: SandboxStep = { ...step, argv: ['racket', SCRIPT_IN_SANDBOX], limits: { ...step.limits, timeoutMs: SERVER_CPU_MS } };
    const child = spawn(sandbox.bwrap, bwrapArgs(sandbox, server), {
      env: { PATH: SANDBOX_PATH },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stderr!.resume();
    child.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const ready = (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), START_MS)));
        const first = await Promise.race([lines.next(), late]);
        return Boolean(first && !first.done && ReadySchema.safeParse(JSON.parse(first.value)).success);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    })();
    return { child, lines, key, served: 0, ready };
  }

  /** The program in `buildDir` run by the slot's warm racket, or null: run it cold. */
  async run(buildDir: string, step: SandboxStep): Promise<StepResult | null> {
    if (this.startFailures >= MAX_START_FAILURES) return null;
    const { limits } = step;
    const key = JSON.stringify({ ...limits, timeoutMs: 0, env: step.env });
    if (this.running && (this.running.key !== key || this.running.served >= PROGRAMS_PER_SERVER || !alive(this.running.child)))
      await this.stop();
    const program = join(this.dir, 'build', 'program.rkt');
    copyFileSync(join(buildDir, 'program.rkt'), program);
    chownSync(program, this.uid, this.uid);
    this.running ??= this.start(step, key);
    const running = this.running;
    if (!(await running.ready)) {
      this.startFailures += 1;
      await this.stop();
      return null;
    }
    this.startFailures = 0;
    running.served += 1;
    let timer: NodeJS.Timeout | undefined;
    try {
      running.child.stdin!.write(
        JSON.stringify({ timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes, cap: limits.maxOutputBytes }) + '\n',
      );
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), limits.timeoutMs + ANSWER_GRACE_MS)));
      const next = await Promise.race([running.lines.next(), late]);
      if (!next || next.done) throw new Error(next ? 'the Racket server ended' : 'the Racket server did not answer in time');
      const parsed: unknown = JSON.parse(next.value);
      // Anything it cannot run as a cold racket would: killed and replaced (the cold run, as
      // the slot's uid, must not share the uid with a live server anyway).
      if (AloneSchema.safeParse(parsed).success) throw new Error('run it cold');
      const answer = AnswerSchema.parse(parsed);
      return {
        ...answer,
        ...asBwrapReports(answer.exitCode, null),
        stdout: Buffer.from(answer.stdout, 'base64').toString('utf8'),
        stderr: Buffer.from(answer.stderr, 'base64').toString('utf8'),
        survivors: 0,
      };
    } catch {
      await this.stop();
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the server's whole sandbox and waits for its end (the slot's uid then runs nothing of it). */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (!running || !alive(running.child)) return;
    let timer: NodeJS.Timeout | undefined;
    const ended = new Promise((resolve) => {
      running.child.once('close', resolve);
      // Never wait forever on a close that does not come (the slot's uid is reaped before a cold run anyway).
      timer = setTimeout(resolve, STOP_MS);
    });
    try {
      process.kill(-running.child.pid!, 'SIGKILL');
    } catch {
      clearTimeout(timer);
      return;
    }
    await ended;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The warm Racket servers of one runner: one per slot uid, started at its first program. */
export class RacketServers implements SlotServers {
  /** Its programs leave no process of their own (the guard refuses them); the slot's uid runs the server. */
  readonly reapsAfter = false;
  private readonly slots = new Map<number, RacketSlot>();

  constructor(
    private readonly mounts: readonly Mount[],
    private readonly tmpBytes: number,
  ) {}

  run(uid: number, buildDir: string, step: SandboxStep): Promise<StepResult | null> {
    let slot = this.slots.get(uid);
    if (!slot) {
      slot = new RacketSlot(uid, this.mounts, this.tmpBytes);
      this.slots.set(uid, slot);
    }
    return slot.run(buildDir, step);
  }

  close(): void {
    for (const slot of this.slots.values()) void slot.close();
    this.slots.clear();
  }
}
