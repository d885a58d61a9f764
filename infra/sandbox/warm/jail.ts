/**
 * The jail of the warm compiler servers (lineServer.ts: the javac and tsc servers of
 * warmToolchains.ts), each a long-lived process serving the build directories under one root. The
 * same isolation as the process runner's steps (process/bwrapStep.ts), built from bubblewrap and
 * util-linux:
 *   bwrap  the project's one bubblewrap policy (../bwrapPolicy.ts: new pid, ipc, uts, network and
 *          where possible cgroup namespaces, a fresh root with /usr and /etc read-only plus the
 *          toolchain's own directories read-only, a fresh /proc and /dev, a size-capped tmpfs
 *          /tmp, an empty environment), plus the root of the build directories read-write at /job,
 *          LANG and HOME set; every process killed when its pid 1 ends;
 *   unshare --net  a second network namespace, in which loopback is down: no connection at all,
 *          not even to the sandbox's own loopback;
 *   setpriv  the servers' own uid (SERVER_UID; the samples' uids are the runner's), no
 *          capabilities, no_new_privs;
 *   prlimit  CPU, address space, processes, file size, open files, no core dumps.
 * The server's deadline per request is LineServer's: past it, the whole jail is killed.
 */
import { realpathSync } from 'node:fs';
import { environmentArgs, findBwrap, isolationArgs, readOnlyMountArgs } from '../bwrapPolicy.js';

export interface JailLimits {
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space in bytes (RLIMIT_AS); 0 = none (JVMs and V8 reserve far more than they use). */
  memoryBytes: number;
  processes: number;
  fileBytes: number;
  openFiles: number;
}

export const COMPILE_LIMITS: JailLimits = { cpuSeconds: 60, memoryBytes: 0, processes: 256, fileBytes: 256 << 20, openFiles: 1024 };

export interface JailSpec {
  /** Host directory mounted read-write at `/job` (the working directory). */
  jobDir: string;
  /** Host paths mounted read-only at the same path (toolchains outside /usr). */
  readOnly?: string[];
  /**
   * Host directories mounted read-write at the same path, outside /job: where a server keeps what a
   * later run can reuse (tscServer.cjs's library check). Owned by the server's uid when we are root.
   */
  readWrite?: string[];
  /** The uid it runs as (when we are root); the caller chowns what it is to read and write to it. */
  uid: number;
  limits: JailLimits;
}

/** The uid of the warm compiler servers (the samples' uids are the process runner's, far above). */
export const SERVER_UID = 61000;

function findBwrapBinary(): string {
  const bwrap = findBwrap();
  if (!bwrap) throw new Error('bwrap is not installed: run scripts/install-sandbox.sh');
  return bwrap;
}

/** The argv (bwrap first) that runs `command` in the jail. */
export function jailArgv(spec: JailSpec, command: string[]): string[] {
  const readOnly = [...new Set((spec.readOnly ?? []).filter((p) => !p.startsWith('/usr/')).map((p) => realpathSync(p)))].sort();
  const roots = readOnly.filter((p) => !readOnly.some((o) => o !== p && p.startsWith(o + '/')));
  const { limits } = spec;
  const args = [
    findBwrapBinary(),
    ...isolationArgs({ tmpBytes: 256 << 20, tmpWorldWritable: true, ownUserNamespace: false }),
    ...readOnlyMountArgs([
      ...roots.map((root) => ({ host: root, sandbox: root })),
      ...[...new Set((spec.readWrite ?? []).map((p) => realpathSync(p)))].map((p) => ({ host: p, sandbox: p, writable: true })),
    ]),
  ];
  args.push('--bind', spec.jobDir, '/job', '--chdir', '/job');
  if (process.getuid?.() === 0)
    args.push(
      '--cap-drop',
      'ALL',
      '--cap-add',
      'CAP_SYS_ADMIN',
      '--cap-add',
      'CAP_SETUID',
      '--cap-add',
      'CAP_SETGID',
      '--cap-add',
      'CAP_DAC_OVERRIDE',
    );
  args.push(...environmentArgs({ LANG: 'C.UTF-8', HOME: '/job' }));
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
