/**
 * One sandboxed process for the compiled languages' warm strategies (infra/sandbox/warm/*): the
 * same isolation as the Python sandbox (executor.ts), built from bubblewrap and util-linux:
 *   bwrap  new pid, ipc, uts, network (and where possible cgroup) namespaces, a fresh root with
 *          /usr and /etc read-only plus the toolchain's own directories read-only, a fresh /proc
 *          and /dev, a size-capped tmpfs /tmp, the job's private directory read-write at /job,
 *          an empty environment (PATH and LANG only), every process killed when its pid 1 ends;
 *   unshare --net  a second network namespace, in which loopback is down: no connection at all,
 *          not even to the sandbox's own loopback;
 *   setpriv  a uid of the job's concurrency slot (so RLIMIT_NPROC binds and the job's files and
 *          signals are its own), no capabilities, no_new_privs;
 *   prlimit  CPU, address space, processes, file size, open files, no core dumps.
 * Wall time is the caller's (`timeoutMs`): the whole sandbox is SIGKILLed at the deadline, which
 * ends every process in its pid namespace, daemons included. Output is capped per stream; the
 * excess is counted and dropped.
 *
 * Long-lived servers (the warm javac and TypeScript checkers) run in the same jail with a
 * directory of jobs instead of one job; see servers.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';

export interface JailLimits {
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space in bytes (RLIMIT_AS); 0 = none (JVMs and V8 reserve far more than they use). */
  memoryBytes: number;
  processes: number;
  fileBytes: number;
  openFiles: number;
}

export const RUN_LIMITS: JailLimits = { cpuSeconds: 10, memoryBytes: 4 << 30, processes: 64, fileBytes: 16 << 20, openFiles: 256 };
export const COMPILE_LIMITS: JailLimits = { cpuSeconds: 60, memoryBytes: 0, processes: 256, fileBytes: 256 << 20, openFiles: 1024 };

export interface JailSpec {
  /** Host directory mounted read-write at `/job` (the working directory). */
  jobDir: string;
  /** Host paths mounted read-only at the same path (toolchains outside /usr). */
  readOnly?: string[];
  /** Host directories mounted read-write: [host, sandbox path]. */
  readWrite?: [string, string][];
  /** Extra environment beside PATH and LANG. */
  env?: Record<string, string>;
  /** Slot uid; the caller chowns jobDir to it. */
  uid: number;
  limits: JailLimits;
  /** Host-side PATH entries to put first (toolchain bin dirs). */
  path?: string[];
  tmpBytes?: number;
}

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Every proper ancestor directory of the paths (not /), parents first. */
function ancestors(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) dirs.add('/' + parts.slice(0, i).join('/'));
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  args.push('--ro-bind', '/etc', '/etc');
  return args;
}

export function findBwrapBinary(): string {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) if (existsSync(`${dir}/bwrap`)) return `${dir}/bwrap`;
  throw new Error('bwrap is not installed: run scripts/install-sandbox.sh');
}

/** The argv (bwrap first) that runs `command` in the jail. */
export function jailArgv(spec: JailSpec, command: string[]): string[] {
  const readOnly = [...new Set((spec.readOnly ?? []).filter((p) => !p.startsWith('/usr/')).map((p) => realpathSync(p)))].sort();
  const roots = readOnly.filter((p) => !readOnly.some((o) => o !== p && p.startsWith(o + '/')));
  const { limits } = spec;
  const args = [
    findBwrapBinary(),
    '--die-with-parent', '--new-session',
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--unshare-cgroup-try',
    '--hostname', 'sandbox',
    ...systemMounts(),
    '--proc', '/proc', '--dev', '/dev',
    '--perms', '1777', '--size', String(spec.tmpBytes ?? 256 << 20), '--tmpfs', '/tmp',
  ];
  // bwrap creates a mount point's parents with the host's modes (/root is 0700): make them traversable.
  const writable = spec.readWrite ?? [];
  for (const dir of ancestors([...roots, '/job', ...writable.map(([, at]) => at)])) if (!['/usr', '/tmp'].includes(dir)) args.push('--perms', '0755', '--dir', dir);
  for (const root of roots) args.push('--ro-bind', root, root);
  for (const [host, at] of writable) args.push('--bind', host, at);
  args.push('--bind', spec.jobDir, '/job', '--chdir', '/job');
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL', '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_DAC_OVERRIDE');
  args.push('--clearenv', '--setenv', 'PATH', [...(spec.path ?? []), SYSTEM_PATH].join(':'), '--setenv', 'LANG', 'C.UTF-8', '--setenv', 'HOME', '/job');
  for (const [name, value] of Object.entries(spec.env ?? {})) args.push('--setenv', name, value);
  args.push('--', '/usr/bin/unshare', '--net');
  if (process.getuid?.() === 0) {
    args.push('/usr/bin/setpriv', `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--inh-caps=-all', '--no-new-privs');
  }
  args.push(
    '/usr/bin/prlimit',
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    ...(limits.memoryBytes > 0 ? [`--as=${limits.memoryBytes}`] : []),
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
    ...command,
  );
  return args;
}

export interface JailResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Bytes dropped beyond the cap, both streams. */
  droppedBytes: number;
  wallMs: number;
}

/** Runs `command` in the jail to its end or its deadline. */
export function runInJail(spec: JailSpec, command: string[], timeoutMs: number, outputCap = 64 * 1024): Promise<JailResult> {
  const argv = jailArgv(spec, command);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: SYSTEM_PATH } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      const room = outputCap - kept;
      if (room <= 0) dropped += chunk.length;
      else {
        sink.push(room >= chunk.length ? chunk : chunk.subarray(0, room));
        dropped += Math.max(0, chunk.length - room);
        kept += Math.min(room, chunk.length);
      }
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL'); // bwrap's pid 1 dies, and with it every process of the jail
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: code,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        droppedBytes: dropped,
        wallMs: performance.now() - started,
      });
    });
  });
}
