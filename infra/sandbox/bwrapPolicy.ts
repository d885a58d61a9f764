/**
 * The bubblewrap policy: the one list of isolation flags and mounts every sandbox of the project
 * is built from, whichever runner builds it (the Python zygote in pythonLaunch.ts, the process
 * runner's steps in process/bwrapStep.ts, the warm compilers' jails in warm/jail.ts):
 *   - new pid, network, ipc, uts (and, where possible, cgroup) namespaces; `--die-with-parent`,
 *     `--new-session`; the hostname `sandbox`;
 *   - a new root: /usr, /etc and the system library dirs read-only (systemMounts), a fresh /proc
 *     and /dev, a size-capped private tmpfs /tmp; the runner's own host paths read-only, their
 *     mount points' parents created traversable; nothing else of the host;
 *   - an empty environment: PATH and the runner's own variables only.
 * What each runner adds (its capabilities, how it drops to a sample's uid, its limits, the
 * second network namespace whose loopback is down) is written beside its argv, with why.
 * Tested once for every runner: test/sandbox/bwrap-policy.test.ts checks that each argv builder
 * takes these flags; test/sandbox/hostile.e2e.test.ts and process-hostile.e2e.test.ts what a
 * hostile program can and cannot do in the Python and the process sandboxes.
 */
import { chownSync, existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The PATH inside every sandbox. */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A host path mounted read-only at a path in the sandbox (read-write where `writable`: the warm compilers' kept results only). */
export interface Mount {
  host: string;
  sandbox: string;
  writable?: boolean;
}

export interface IsolationOptions {
  /** Size of the private tmpfs /tmp. */
  tmpBytes: number;
  /**
   * /tmp world-writable (1777): a sandbox of one sample at a time (a process-run step, a warm
   * compiler's jail) writes there. The Python zygote's /tmp is shared by its samples and stays
   * root's (0755): each sample writes only into the working directory the zygote hands it.
   */
  tmpWorldWritable: boolean;
  /** A user namespace of its own: a rootless step (its program runs as the worker's uid). */
  ownUserNamespace: boolean;
}

/** The namespaces and the new root (system directories, /proc, /dev, /tmp) of every sandbox. */
export function isolationArgs(options: IsolationOptions): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.ownUserNamespace ? ['--unshare-user'] : []),
    '--hostname',
    'sandbox',
    ...systemMounts(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...(options.tmpWorldWritable ? ['--perms', '1777'] : []),
    '--size',
    String(options.tmpBytes),
    '--tmpfs',
    '/tmp',
  ];
}

/**
 * Directories the new root has already: a mount point's parent among them is not created (under
 * the read-only /usr and /etc it could not be).
 */
function providedByIsolation(dir: string): boolean {
  return ['/usr', '/etc'].some((d) => dir === d || dir.startsWith(d + '/')) || dir === '/tmp';
}

/** The runner's host paths, read-only at their sandbox paths; their mount points' parents created traversable first. */
export function readOnlyMountArgs(mounts: readonly Mount[]): string[] {
  const args: string[] = [];
  for (const dir of mountPointParents(mounts.map((m) => m.sandbox)))
    if (!providedByIsolation(dir)) args.push('--perms', '0755', '--dir', dir);
  for (const mount of mounts) args.push(mount.writable ? '--bind' : '--ro-bind', mount.host, mount.sandbox);
  return args;
}

/** An empty environment but PATH and the runner's own variables. */
export function environmentArgs(env: Readonly<Record<string, string>>): string[] {
  return ['--clearenv', ...Object.entries({ PATH: SANDBOX_PATH, ...env }).flatMap(([name, value]) => ['--setenv', name, value])];
}

export function findBwrap(): string | undefined {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) {
    if (existsSync(`${dir}/bwrap`)) return `${dir}/bwrap`;
  }
  return undefined;
}

/** Top-level system directories, read-only, as symlinks where the host has merged /usr. */
export function systemMounts(): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  args.push('--ro-bind', '/etc', '/etc');
  return args;
}

/**
 * Every proper ancestor directory of the paths (not /), parents first: bwrap creates a mount
 * point's parents with the host's modes (/root is 0700), so the callers create them traversable.
 */
export function mountPointParents(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) dirs.add('/' + parts.slice(0, i).join('/'));
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** Hands a directory tree to a uid (a slot's, or a warm compiler's); only root can, and only root needs to. */
export function chownTree(dir: string, uid: number): void {
  if (process.getuid?.() !== 0) return;
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, uid);
    else chownSync(path, uid, uid);
  }
}
