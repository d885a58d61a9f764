/**
 * What every bubblewrap sandbox of the project shares with the host, whichever runner builds it
 * (the Python pool in pythonLaunch.ts, the process runner's steps in process/bwrapStep.ts, the warm
 * compilers' jails in warm/jail.ts): where bwrap is, the system directories mounted read-only, the
 * parents of mount points, and handing a build directory to a slot's uid.
 */
import { chownSync, existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

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
