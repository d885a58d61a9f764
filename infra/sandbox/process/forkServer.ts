/**
 * Fork servers (the default, ProcessExecutorOptions.forkServer; docs/sandbox.md#fork-servers-scripted-languages): for a
 * scripted language whose interpreter can fork (Ruby, fork/rb.rb; Perl, fork/pl.pl; PHP,
 * fork/php.php; R, fork/r.R with its native loop fork/rfork.c, ./rForkServer.ts; Lua, fork/lua.lua
 * with its native module fork/luafork.c, ./luaForkServer.ts; both native parts share
 * fork/forkserve.h's loop), one warm interpreter per slot, with the test library already loaded
 * (Ruby's, Perl's, Lua's luaunit; PHP's and R's tests need none), that per program forks a child
 * which becomes the program.
 * Each program is still a fresh process (its own pid, its slot's uid, the lone run's limits); what
 * it saves is the interpreter's start with its test library (ruby + test/unit: ~115 ms, perl +
 * Test::Deep: ~40 ms, php: ~10 ms, Rscript: ~170 ms, lua + luaunit: ~3 ms) and the sandbox's (a
 * bwrap per step). Exec mode (execForkServer: bash, Node, D's binaries, C#'s mono; R and Lua where their native part
 * cannot be built): the same server and child, but the child execs the lone run's own command, a
 * fresh interpreter: only the sandbox's start is saved, and the program runs exactly the lone
 * command (Node cannot fork; Racket CS neither: it has a warm server of its own, rktServer.ts).
 *
 * Isolation, against the lone run's (process/bwrapStep.ts):
 *   - the server lives in a sandbox of the same policy (../bwrapPolicy.ts: namespaces, read-only
 *     system directories and the toolchain's, fresh /proc and /dev, a size-capped tmpfs /tmp, the
 *     step's environment only); it runs as root there with only CAP_SETUID, CAP_SETGID, CAP_KILL,
 *     CAP_DAC_OVERRIDE and CAP_FOWNER (no CAP_SYS_ADMIN, so no second network namespace: its
 *     loopback is up, where the lone step's is down; nothing listens on it, as a program's
 *     listener dies with the program);
 *   - its /build is a directory of its own (read-only inside) into which the runner copies each
 *     program's build directory before the request: the child sees its own program only;
 *   - each child: its own session, stdin /dev/null, stdout/stderr on fresh pipes (PHP, R: socket
 *     pairs, as Node gives a lone run, since PHP fixes its STDOUT's kind at start) the server caps
 *     as the lone run does, cwd /tmp (emptied by the server before each fork), the lone run's
 *     rlimits (CPU, AS or DATA, NPROC, FSIZE, NOFILE, no core), then no groups and the slot's uid
 *     (real, effective, saved: every capability gone; bwrap's no_new_privs stays): it cannot
 *     signal, trace or write to the server, and RLIMIT_NPROC binds as in the lone run;
 *   - wall time: the server kills every process of the slot's uid at the deadline, and after the
 *     child's exit (a daemon it left dies as the lone run's pid namespace would take it); the
 *     runner then reaps the uid as after a lone step (survivors are counted);
 *   - what is weaker than the lone run (the Python zygote's level; --no-fork-server for the lone run's): the programs of one slot share one pid, IPC
 *     and network namespace and one /tmp (emptied, not fresh) one after the other; a child sees
 *     the server in /proc (not its memory: another uid). The SysV IPC objects a program leaves
 *     (the lone run's IPC namespace ends with it) are removed before the next fork, by `ipcrm
 *     --all` as the slot's uid (fork/forkserve.h remove_ipc, and its like in each server).
 * Any doubt runs the program alone (the runner's lone path): the server's screen (a program its
 * child could not run as the interpreter would, e.g. Perl's top-level `caller`), the server's
 * death, a malformed or late answer (it is then killed and started afresh for the next program), a rootless runner (no
 * uids to drop to).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { environmentArgs, findBwrap, isolationArgs, readOnlyMountArgs, SANDBOX_PATH, type Mount } from '../bwrapPolicy.js';
import type { ForkServerSpec, SandboxStep, SlotServers, StepResult } from './contract.js';
import { BUILD_DIR } from './contract.js';
import { asBwrapReports } from './bwrapStep.js';

/** Exec mode for a language: Perl's server (fork/pl.pl) forks, drops to the slot's uid and execs the lone run's command. */
export function execForkServer(): ForkServerSpec {
  return { script: fileURLToPath(new URL('./fork/pl.pl', import.meta.url)), argv: (script) => ['perl', script], exec: true };
}

const AnswerSchema = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
});

const AloneSchema = z.object({ alone: z.literal(true) });

/** How long past a program's wall time the server may take to answer before it counts as hung. */
const ANSWER_GRACE_MS = 5_000;

/** One warm server for one slot (uid): one program at a time. */
class SlotServer {
  private child: ChildProcess | undefined;
  private lines: AsyncIterator<string> | undefined;
  private readonly dir: string;

  constructor(
    private readonly spec: ForkServerSpec,
    private readonly uid: number,
    private readonly mounts: readonly Mount[],
    private readonly tmpBytes: number,
    private readonly env: Record<string, string>,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `explora-fork-${uid}-`));
    mkdirSync(join(this.dir, 'build'), { mode: 0o755 });
  }

  private start(): { child: ChildProcess; lines: AsyncIterator<string> } {
    if (this.child && this.lines && this.child.exitCode === null && this.child.signalCode === null)
      return { child: this.child, lines: this.lines };
    const script = `/fork/${this.spec.script.split('/').pop()}`;
    const args = [
      ...isolationArgs({ tmpBytes: this.tmpBytes, tmpWorldWritable: true, ownUserNamespace: false }),
      ...readOnlyMountArgs([...this.mounts, ...(this.spec.mounts ?? []), { host: this.spec.script, sandbox: script }]),
      '--ro-bind',
      join(this.dir, 'build'),
      BUILD_DIR,
      '--chdir',
      '/tmp',
      '--cap-drop',
      'ALL',
      ...['CAP_SETUID', 'CAP_SETGID', 'CAP_KILL', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER'].flatMap((c) => ['--cap-add', c]),
      ...environmentArgs(this.env),
      '--',
      ...this.spec.argv(script),
    ];
    // stderr a pipe (drained) rather than /dev/null: Node's pipes are socket pairs, and a lone run's
    // stderr is one; PHP opens STDERR as a socket stream on a socket (fork/php.php).
    const child = spawn(findBwrap()!, args, { env: { PATH: SANDBOX_PATH }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child.stderr!.resume();
    child.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    this.child = child;
    this.lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    return { child, lines: this.lines };
  }

  /** The program in the build directory run by a forked child, or null: run it alone. */
  async run(buildDir: string, step: SandboxStep): Promise<StepResult | null> {
    const build = join(this.dir, 'build');
    for (const name of readdirSync(build)) rmSync(join(build, name), { recursive: true, force: true });
    for (const name of readdirSync(buildDir)) {
      copyFileSync(join(buildDir, name), join(build, name));
      chownSync(join(build, name), this.uid, this.uid);
    }
    const { limits } = step;
    const cpu = Math.ceil(limits.timeoutMs / 1000) + 1;
    const request = {
      ...(this.spec.exec ? { argv: step.argv } : {}),
      uid: this.uid,
      cap: limits.maxOutputBytes,
      timeoutMs: limits.timeoutMs,
      limits: {
        cpu,
        memoryKind: limits.memoryKind,
        memory: limits.memoryBytes,
        processes: limits.maxProcesses,
        fileBytes: limits.maxFileBytes,
        openFiles: limits.maxOpenFiles,
      },
    };
    const { child, lines } = this.start();
    let timer: NodeJS.Timeout | undefined;
    try {
      child.stdin!.write(JSON.stringify(request) + '\n');
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), limits.timeoutMs + ANSWER_GRACE_MS)));
      const next = await Promise.race([lines.next(), late]);
      if (!next || next.done) throw new Error(next ? 'the fork server ended' : 'the fork server did not answer in time');
      const parsed: unknown = JSON.parse(next.value);
      // The server's screen: a program it cannot run as the interpreter would (it says why in its script).
      if (AloneSchema.safeParse(parsed).success) return null;
      const answer = AnswerSchema.parse(parsed);
      // A process that neither exited nor was killed: the server's fault, not the program's.
      if (answer.exitCode === null && answer.signal === null) throw new Error('the fork server answered no exit status');
      return {
        ...answer,
        ...asBwrapReports(answer.exitCode, answer.signal),
        stdout: Buffer.from(answer.stdout, 'base64').toString('utf8'),
        stderr: Buffer.from(answer.stderr, 'base64').toString('utf8'),
        survivors: 0,
      };
    } catch {
      this.stop();
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    this.lines = undefined;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  close(): void {
    this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The fork servers of one runner: one per slot uid, started at its first program. */
export class ForkServers implements SlotServers {
  /** A forked program's leftovers are the slot uid's processes; the server runs as root. */
  readonly reapsAfter = true;
  private readonly servers = new Map<number, SlotServer>();

  constructor(
    private readonly spec: ForkServerSpec,
    private readonly mounts: readonly Mount[],
    private readonly tmpBytes: number,
  ) {}

  /** The run step's program, forked by the slot's server; null when it must run alone. */
  run(uid: number, buildDir: string, step: SandboxStep): Promise<StepResult | null> {
    let server = this.servers.get(uid);
    if (!server) {
      server = new SlotServer(this.spec, uid, this.mounts, this.tmpBytes, step.env);
      this.servers.set(uid, server);
    }
    return server.run(buildDir, step);
  }

  close(): void {
    for (const server of this.servers.values()) server.close();
    this.servers.clear();
  }
}
