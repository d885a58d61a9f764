/**
 * One step (a compile or a run) of a process-run sample, in a sandbox of its own.
 *
 * Each step is one bubblewrap invocation (a few milliseconds), so nothing is shared between
 * samples or between a sample's two steps but the build directory. The isolation is the project's
 * one bubblewrap policy (../bwrapPolicy.ts: namespaces, a new root of read-only system directories
 * and the toolchain's own, fresh /dev and /proc, a size-capped private /tmp, an empty environment
 * plus the step's own variables); a step adds:
 *   - the build directory at BUILD_DIR, writable for a compile step, read-only for a run step;
 *   - as root (our machines): `unshare --net` enters one more network namespace whose loopback is
 *     down (no connection to anything, the host's loopback services, Temporal and S3, included);
 *     then `setpriv` drops to the slot's uid, no groups, no capabilities (also out of the bounding
 *     set), no_new_privs; so RLIMIT_NPROC binds per sample;
 *   - `prlimit` sets RLIMIT_CPU (wall time + 1 s), memory (RLIMIT_AS or RLIMIT_DATA, see
 *     MemoryLimitKind), RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE and no core dumps, then execs
 *     the program: the program is bwrap's direct child, its exit status bwrap's;
 *   - wall time: on expiry the whole bwrap process group is SIGKILLed; the inner bwrap, pid 1
 *     of the step's pid namespace, dies with its parent, and the kernel kills every process of
 *     the namespace with it (daemons that double-forked or setsid()-ed included). Likewise when
 *     the program ends on its own: its namespace's init exits and takes the rest along;
 *   - afterwards the runner waits (up to 2 s) until no process runs as the slot's uid, SIGKILLing
 *     any it finds (the namespace teardown runs just after bwrap's exit); what is still alive
 *     then is counted as `survivors` (0 is the norm). The slot is reused only after this.
 * stdout and stderr come through pipes; the first `maxOutputBytes` of each are kept, the rest
 * counted and dropped. stdin is /dev/null, or the step's `stdin` text.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { environmentArgs, isolationArgs, readOnlyMountArgs, SANDBOX_PATH } from '../bwrapPolicy.js';
import { BUILD_DIR, type Mount, type SandboxStep, type StepResult } from './contract.js';

export interface StepSandbox {
  bwrap: string;
  /** The slot's uid (root workers), or undefined when the worker is not root (rootless bwrap, shared uid). */
  uid: number | undefined;
  /** Host directory of the sample's files. */
  buildDir: string;
  /** Compile steps write into the build directory; run steps see it read-only. */
  writableBuild: boolean;
  mounts: readonly Mount[];
  tmpBytes: number;
}

export function bwrapArgs(sandbox: StepSandbox, step: SandboxStep): string[] {
  const { limits } = step;
  const args = [
    ...isolationArgs({ tmpBytes: sandbox.tmpBytes, tmpWorldWritable: true, ownUserNamespace: sandbox.uid === undefined }),
    ...readOnlyMountArgs(sandbox.mounts),
  ];
  args.push(sandbox.writableBuild ? '--bind' : '--ro-bind', sandbox.buildDir, BUILD_DIR);
  args.push('--chdir', sandbox.writableBuild ? BUILD_DIR : '/tmp', ...environmentArgs(step.env));
  args.push('--');
  if (sandbox.uid !== undefined) {
    const uid = String(sandbox.uid);
    args.push(
      'unshare',
      '--net',
      '--',
      'setpriv',
      '--reuid',
      uid,
      '--regid',
      uid,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
  }
  const cpuS = Math.ceil(limits.timeoutMs / 1000) + 1;
  args.push(
    'prlimit',
    `--cpu=${cpuS}:${cpuS + 1}`,
    `${limits.memoryKind === 'data' ? '--data' : '--as'}=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileBytes}`,
    `--nofile=${limits.maxOpenFiles}`,
    '--core=0',
    '--',
    ...step.argv,
  );
  return args;
}

class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  take(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(part);
      this.kept += part.length;
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  4: 'SIGILL',
  5: 'SIGTRAP',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
  31: 'SIGSYS',
};

/**
 * A program's end as a lone step reports it: bwrap exits with the program's code, or 128 + the
 * signal that ended it, so a code of 129-192 reads as that signal (a shell's `exit 134` after its
 * child aborted included). The fork servers' answers go through it too, so that a forked program
 * ends as its lone run reads.
 */
export function asBwrapReports(code: number | null, signal: string | null): { exitCode: number | null; signal: string | null } {
  const number = signal === null ? undefined : (constants.signals as Record<string, number | undefined>)[signal];
  return fromBwrapExit(number === undefined ? code : 128 + number, number === undefined ? signal : null);
}

/** bwrap's own end (its exit code, or the signal that killed bwrap itself) as the program's. */
function fromBwrapExit(code: number | null, signal: string | null): { exitCode: number | null; signal: string | null } {
  if (code !== null && code > 128 && code < 128 + 65) return { exitCode: null, signal: SIGNALS[code - 128] ?? `SIG${code - 128}` };
  return { exitCode: code, signal };
}

/** Live (not zombie, not dead) processes of a uid, each SIGKILLed; returns how many there were. */
export function killProcessesOf(uid: number): number {
  let alive = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (statSync(`/proc/${entry}`).uid !== uid) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      alive++;
      process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return alive;
}

/** How long the namespace teardown may take before what is left counts as survivors. */
const CLEANUP_GRACE_MS = 2_000;
const CLEANUP_POLL_MS = 5;

/**
 * Waits until no process of the uid is left, killing any it finds. bwrap's outer process exits as
 * soon as the program does; its pid namespace (and with it every process the program left) is
 * torn down by the kernel just after. Processes still alive when the grace ends are survivors.
 */
export async function reapUid(uid: number): Promise<number> {
  const deadline = performance.now() + CLEANUP_GRACE_MS;
  for (;;) {
    const alive = killProcessesOf(uid);
    if (alive === 0) return 0;
    if (performance.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, CLEANUP_POLL_MS));
  }
}

/** Lines the launcher's own tools print when they, not the program, fail. */
const LAUNCHER_FAILURE = /^(bwrap|unshare|setpriv|prlimit): /m;

export function runStep(sandbox: StepSandbox, step: SandboxStep): Promise<StepResult> {
  const started = performance.now();
  const child = spawn(sandbox.bwrap, bwrapArgs(sandbox, step), {
    env: { PATH: SANDBOX_PATH },
    stdio: [step.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true, // a process group of its own: the wall-time kill takes all of it
  });
  if (step.stdin !== undefined) {
    // A step that exits without reading it must not fail the runner (EPIPE).
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(step.stdin);
  }
  const stdout = new Capture(step.limits.maxOutputBytes);
  const stderr = new Capture(step.limits.maxOutputBytes);
  // The launcher's own complaints arrive on stderr before the program starts; kept apart so that
  // a program printing a lot cannot push them out.
  let head = '';
  child.stdout!.on('data', (chunk: Buffer) => stdout.take(chunk));
  child.stderr!.on('data', (chunk: Buffer) => {
    if (head.length < 4096) head += chunk.toString('utf8', 0, Math.min(chunk.length, 4096));
    stderr.take(chunk);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, step.limits.timeoutMs);
  return new Promise<StepResult>((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({
        exitCode: null,
        signal: null,
        timedOut: false,
        durationMs: performance.now() - started,
        stdout: '',
        stderr: '',
        stdoutBytes: 0,
        stderrBytes: 0,
        survivors: 0,
        sandboxError: `could not start bwrap: ${error.message}`,
      });
    });
    // 'close': the process has exited and every holder of its output pipes is gone, i.e. the
    // whole pid namespace has been torn down.
    const onClose = async (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      const durationMs = performance.now() - started;
      const survivors = sandbox.uid === undefined ? 0 : await reapUid(sandbox.uid);
      const { exitCode, signal: signalName } = fromBwrapExit(code, signal);
      const launcherFailed = !timedOut && code === 1 && LAUNCHER_FAILURE.exec(head);
      resolve({
        exitCode,
        signal: timedOut ? 'SIGKILL' : signalName,
        timedOut,
        durationMs,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        survivors,
        ...(launcherFailed ? { sandboxError: head.slice(0, 1000).trim() } : {}),
      });
    };
    // Were reaping to throw (it reads /proc), the step fails instead of never settling.
    child.once('close', (code, signal) => void onClose(code, signal).catch(reject));
  });
}
